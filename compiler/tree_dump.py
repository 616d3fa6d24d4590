"""An indented text dump of any syntax tree (compiler/syntax/ast.py nodes).

One line per node: the node's type name, its `line:col`, then its scalar
fields inline (`name="x"`, `step=8`, `op="+"`); child nodes follow on their
own lines, indented and prefixed with the field that holds them
(`body: Block 5:1`, `args[1]: Name 9:22 name="vb"`):

    Program 1:1
      items[0]: Kernel 2:1 name="fma_kernel" var="i" bound="n" step=8 tail="scalar" export
        params[0]: Param 2:26 name="a"
          type: PointerType 2:29 restrict
            inner: NamedType 2:39 name="f32"

Left out as bookkeeping: spans (`span`, `*_span`), `origin` (the kernel a
function was desugared from: a second copy of a tree shown elsewhere) and,
unless `types=True`, the checked types (`ty`, `ret_ty`, shown as `: f32x8`).
`None` fields are omitted and booleans print as a bare word when true.

The walk uses an explicit stack, so deeply nested trees (long operator
chains) cannot overflow the interpreter's recursion limit.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from .source import Span

_TYPE_FIELDS = ("ty", "ret_ty")
_SKIPPED = ("span", "origin")


def _is_node(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, tuple):  # (name, span) pairs of annotations: keep the names
        return _scalar(next((v for v in value if not isinstance(v, Span)), ""))
    return repr(value)


def _head(node: Any, types: bool) -> tuple[str, list[tuple[str, Any]]]:
    """The node's own line and its (label, child node) pairs in field order."""
    parts = [type(node).__name__]
    span = getattr(node, "span", None)
    if isinstance(span, Span):
        parts.append(f"{span.line}:{span.col}")
    children: list[tuple[str, Any]] = []
    suffix = ""
    for f in dataclasses.fields(node):
        name, value = f.name, getattr(node, f.name)
        if name in _SKIPPED or name.endswith("_span"):
            continue
        if name in _TYPE_FIELDS:
            if types and value is not None:
                suffix = f" : {value}"
            continue
        if _is_node(value):
            children.append((name, value))
        elif isinstance(value, list) and any(_is_node(v) for v in value):
            children.extend((f"{name}[{i}]", v) for i, v in enumerate(value) if _is_node(v))
        elif isinstance(value, list):
            if value:
                parts.append(f"{name}=[{', '.join(_scalar(v) for v in value)}]")
        elif value is None or value is False:
            continue
        elif value is True:
            parts.append(name)
        else:
            parts.append(f"{name}={_scalar(value)}")
    return " ".join(parts) + suffix, children


def tree_dump(root: Any, types: bool = False, indent: str = "  ") -> str:
    """The whole tree under `root` as indented text, one node per line."""
    out: list[str] = []
    stack: list[tuple[int, str, Any]] = [(0, "", root)]
    while stack:
        depth, label, node = stack.pop()
        head, children = _head(node, types)
        out.append(f"{indent * depth}{label + ': ' if label else ''}{head}")
        for child_label, child in reversed(children):
            stack.append((depth + 1, child_label, child))
    return "\n".join(out) + "\n"
