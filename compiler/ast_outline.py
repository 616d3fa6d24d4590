"""The `--emit-ast` text: an outline, one line per top-level item (TOOLCHAIN.md §1.4);
the full node tree, for the explorer, is `tree_dump.py`."""
from __future__ import annotations

from .syntax import ast as A


def _params(params: list[A.Param]) -> str:
    out = []
    for p in params:
        text = ("out " if p.out else "") + f"{p.name}: {A.type_text(p.type)}"
        if p.cap is not None:
            text += f" [cap: {p.cap.text}" + (f", count: {p.count.text}" if p.count else "") + "]"
        out.append(text)
    return ", ".join(out)


def item_line(item: A.Item) -> str:
    cfg = f"#[cfg({item.cfg.target})] " if item.cfg is not None else ""  # as written, whatever it means
    if isinstance(item, A.Func):
        ret = f" -> {A.type_text(item.ret)}" if item.ret is not None else ""
        return f"{cfg}{'export ' if item.export else ''}func {item.name}({_params(item.params)}){ret} {{ ... }}"
    if isinstance(item, A.Kernel):
        return (f"{cfg}{'export ' if item.export else ''}kernel {item.name}({_params(item.params)}) "
                f"over {item.var} in {item.bound} step {item.step}")
    if isinstance(item, A.StructDecl):
        fields = ", ".join(f"{f.name}: {A.type_text(f.type)}" for f in item.fields)
        return f"{cfg}struct {item.name} {{ {fields} }}"
    if isinstance(item, A.ConstDecl):
        value = getattr(item.value, "text", "?")
        return f"{cfg}const {item.name}: {A.type_text(item.type)} = {value}"
    return f'{cfg}static_assert(..., "{item.message.value}")'


def ast_outline(program: A.Program) -> str:
    return "".join(item_line(i) + "\n" for i in program.items)
