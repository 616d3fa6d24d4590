"""Parameters: the `const` items a suite's `[tune.params]` names, read from
the source and written back as the consts' values (only the literal
changes; the rest of the file stays byte for byte)."""
from __future__ import annotations

from ..analysis import Analysis
from ..syntax import ast as A
from .config import TuneError
from .transforms.base import Edit, splice


def const_values(analysis: Analysis) -> dict[str, A.ConstDecl]:
    return {item.name: item for item in analysis.ast.items
            if isinstance(item, A.ConstDecl) and isinstance(item.value, (A.IntLit, A.FloatLit, A.Unary))}


def check_params(analysis: Analysis, params: dict[str, list], where: str) -> dict[str, object]:
    """The current value of each tuned const; TuneError for names that are not consts."""
    consts = const_values(analysis)
    current = {}
    for name, values in params.items():
        decl = consts.get(name)
        if decl is None:
            known = ", ".join(consts) or "none"
            raise TuneError(f"{where}: [tune.params] {name} is not a const of {analysis.path} (consts: {known})")
        is_int = _is_int_type(decl)
        if is_int and not all(isinstance(v, int) for v in values):
            raise TuneError(f"{where}: [tune.params] {name} is an integer const: its values must be integers")
        current[name] = _literal_value(analysis, decl)
    return current


def set_params(analysis: Analysis, values: dict[str, object]) -> str:
    """The source with each named const set to its value."""
    consts = const_values(analysis)
    edits = []
    for name, value in values.items():
        decl = consts[name]
        text = str(int(value)) if _is_int_type(decl) else _float_text(float(value))
        edits.append(Edit(decl.value.span.start, decl.value.span.end, text))
    return splice(analysis.source.data, edits).decode()


def _is_int_type(decl: A.ConstDecl) -> bool:
    name = getattr(decl.type, "name", "")
    return not str(name).startswith("f")


def _literal_value(analysis: Analysis, decl: A.ConstDecl):
    """The const's value as the parser read it (hex, underscores and a sign included)."""
    e, sign = decl.value, 1
    while isinstance(e, A.Unary) and e.op == "-":
        e, sign = e.operand, -sign
    value = sign * e.value if isinstance(e, (A.IntLit, A.FloatLit)) else None
    return value if value is None or _is_int_type(decl) else float(value)


def _float_text(value: float) -> str:
    text = repr(value)
    return text if any(c in text for c in ".eEn") else text + ".0"
