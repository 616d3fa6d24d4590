"""What every binding generator shares: the prologue order (plan.py), the
ctypes/range table and its integer check (ctypes_table.py), and the tree
walk the `min_lengths` proof uses (syntax/ast.py `walk`)."""
from __future__ import annotations

import dataclasses
import json
import operator
import typing

import pytest

from ea_compiler.analysis import analyze
from ea_compiler.bind import python, torch
from ea_compiler.bind.ctypes_table import INT_CHECK
from ea_compiler.bind.meta import parse_api
from ea_compiler.outputs.metadata import metadata_text
from ea_compiler.syntax import ast as A


def arg(name: str, type_: str, out: bool = False, cap: str | None = None) -> dict:
    return {"name": name, "type": type_, "direction": "out" if out else "in", "cap": cap, "count": None}


# `count` is read from the output `o`, whose cap uses `n`, read from `a`: `n`
# must be bound first although `count` comes first in the signature.
LATE_LENGTH = parse_api(json.dumps({"exports": [{
    "name": "f", "args": [arg("o", "*mut f32", True, "n * 2"), arg("count", "i32"), arg("a", "*f32"),
                          arg("n", "i32")],
    "return_type": None}]}), "k")


def _first(lines: list[str], prefix: str) -> int:
    return next(i for i, line in enumerate(lines) if line.strip().startswith(prefix))


def test_torch_binds_lengths_in_the_shared_order():
    lines = torch.module_text(LATE_LENGTH).splitlines()
    assert _first(lines, "n = _length(") < _first(lines, "o = _empty(") < _first(lines, "count = _length(")


def test_python_binds_lengths_in_the_shared_order():
    lines = python.module_text(LATE_LENGTH).splitlines()
    assert _first(lines, "n = _length(a.size") < _first(lines, "o = _empty(") < _first(lines, "count = _length(o.size")


def test_both_python_bindings_run_the_one_integer_check():
    for text in (python.module_text(LATE_LENGTH), torch.module_text(LATE_LENGTH)):
        assert INT_CHECK in text and "import operator as _op" in text


def test_integer_check_takes_any_index_integer_and_no_bool():
    namespace = {"_op": operator}
    exec(INT_CHECK, namespace)
    check = namespace["_int"]

    class Index:
        def __index__(self) -> int:
            return 7

    assert check(Index(), "n", 0, 10) == 7 and type(check(Index(), "n", 0, 10)) is int
    with pytest.raises(TypeError, match=r"^n: expected an int, got bool$"):
        check(True, "n", 0, 10)
    with pytest.raises(TypeError, match=r"^n: expected an int, got float$"):
        check(2.0, "n", 0, 10)
    with pytest.raises(ValueError, match=r"^n: 11 does not fit in \[0, 10\]$"):
        check(11, "n", 0, 10)


def test_min_lengths_of_a_long_operator_chain():
    chain = " + ".join(["x[i]"] * 3000)  # deeper than the recursion limit
    src = f"export func f(x: *f32, y: *mut f32, n: i32) {{\n    for i in 0..n {{\n        y[i] = {chain}\n    }}\n}}\n"
    result = analyze(src.encode(), "deep.ea")
    assert not result.diagnostics
    export = json.loads(metadata_text("libdeep.so", result.desugared, result.decisions))["exports"][0]
    assert export["min_lengths"] == {"x": "n", "y": "n"}
    assert export["parallel"] == {"length": "n", "granule": 1, "combine": "none", "split": ["x", "y"]}


def _node_types(annotation: str) -> bool:
    return any(name in annotation for name in ("Expr", "Block", "Stmt", "While", "If", "FieldInit"))


@pytest.mark.parametrize("cls", [c for c in vars(A).values() if dataclasses.is_dataclass(c)
                                 and (issubclass(c, A.Expr) or c in typing.get_args(A.Stmt) or c is A.Block)],
                         ids=lambda c: c.__name__)
def test_children_covers_every_field_holding_a_node(cls):
    """A node class added to the tree with a child field must be taught to `children`."""
    holding = [f.name for f in dataclasses.fields(cls) if _node_types(str(f.type))]
    if not holding:
        return
    placeholders = {f.name: object() for f in dataclasses.fields(cls)}
    node = cls.__new__(cls)
    for name, value in placeholders.items():
        setattr(node, name, [value] if name in ("stmts", "args", "elems") else value)
    if cls is A.StructLit:
        node.fields = [A.FieldInit.__new__(A.FieldInit)]
        node.fields[0].value = placeholders["fields"]
    found = {id(c) for c in A.children(node)}
    assert {id(placeholders[name]) for name in holding} <= found
