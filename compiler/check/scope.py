"""Bindings of names to types inside a function body."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..source import Span
from ..symbols import Symbol


@dataclass(slots=True)
class Binding:
    type: Any
    mutable: bool
    kind: str  # "param", "local", "loop-var", "foreach", "poison"
    symbol: Optional[Symbol]
    def_span: Span
    type_node: Any = None  # the written type of a parameter (for quick fixes)


@dataclass(slots=True)
class FuncInfo:
    node: Any
    param_types: list
    ret: Any
    symbol: Symbol
    signature: str
