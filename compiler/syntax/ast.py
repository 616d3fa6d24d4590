"""The Eä abstract syntax tree. Every node carries a `span`; expression nodes
get their checked type in `ty` (the typed AST is this tree after checking).

Desugaring builds new item/statement nodes but shares the user's expression
and statement nodes, so types recorded on them are visible from both trees.
Nodes made by desugaring have `synthetic=True`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional

from ..source import Span

node = dataclass(slots=True, eq=False)


# ---- types as written -------------------------------------------------------

@node
class NamedType:
    name: str
    span: Span


@node
class PointerType:
    inner: "TypeRef"
    mutable: bool
    restrict: bool
    span: Span


TypeRef = NamedType | PointerType


# ---- expressions ------------------------------------------------------------

@node
class Expr:
    span: Span
    ty: Any = field(default=None, kw_only=True)


@node
class IntLit(Expr):
    value: int
    text: str


@node
class FloatLit(Expr):
    value: float
    text: str


@node
class BoolLit(Expr):
    value: bool


@node
class StringLit(Expr):
    value: str


@node
class Name(Expr):
    name: str


@node
class Call(Expr):
    name: str
    name_span: Span
    args: list[Expr]


@node
class FieldInit:
    name: str
    name_span: Span
    value: Expr


@node
class StructLit(Expr):
    name: str
    name_span: Span
    fields: list[FieldInit]


@node
class VectorLit(Expr):
    elems: list[Expr]
    suffix: Optional[str]
    suffix_span: Optional[Span]


@node
class Index(Expr):
    base: Expr
    index: Expr


@node
class Field(Expr):
    base: Expr
    name: str
    name_span: Span


@node
class Unary(Expr):
    op: str
    operand: Expr


@node
class Binary(Expr):
    op: str
    op_span: Span
    left: Expr
    right: Expr


@node
class Paren(Expr):
    inner: Expr


@node
class ErrorExpr(Expr):
    """Stands where an expression failed to parse (already reported)."""


# ---- statements -------------------------------------------------------------

@node
class Block:
    stmts: list["Stmt"]
    span: Span
    synthetic: bool = False


@node
class Let:
    name: str
    name_span: Span
    mutable: bool
    type: TypeRef
    value: Expr
    span: Span
    synthetic: bool = False
    ty: Any = field(default=None, kw_only=True)  # the declared type, once checked


@node
class Assign:
    target: Expr
    value: Expr
    span: Span
    synthetic: bool = False


@node
class Return:
    value: Optional[Expr]
    span: Span


@node
class If:
    cond: Expr
    then: Block
    orelse: Optional["Block | If"]
    span: Span
    synthetic: bool = False


@node
class While:
    cond: Expr
    body: Block
    span: Span
    synthetic: bool = False


@node
class ForEach:
    var: str
    var_span: Span
    start: Expr
    end: Expr
    body: Block
    span: Span


@node
class For:
    var: str
    var_span: Span
    start: Expr
    end: Expr
    step: int
    body: Block
    span: Span


@node
class Unroll:
    count: int
    count_span: Span
    loop: "While | ForEach | For"
    span: Span


@node
class ExprStmt:
    expr: Expr
    span: Span


Stmt = Let | Assign | Return | If | While | ForEach | For | Unroll | ExprStmt


# ---- items ------------------------------------------------------------------

@node
class Annotation:
    """A `[cap: ...]`/`count:` annotation, kept as its tokens' text."""
    text: str
    idents: list[tuple[str, Span]]
    span: Span


@node
class Param:
    name: str
    name_span: Span
    type: TypeRef
    out: bool
    cap: Optional[Annotation]
    count: Optional[Annotation]
    span: Span
    ty: Any = field(default=None, kw_only=True)  # once checked


@node
class Cfg:
    """`#[cfg(target)]` before an item, as written (what it means for each
    kind of item is decided in check/liveness.py)."""
    target: str  # "x86_64" or "aarch64"
    span: Span


@node
class Func:
    name: str
    name_span: Span
    params: list[Param]
    ret: Optional[TypeRef]
    body: Block
    export: bool
    cfg: Optional[Cfg]
    span: Span
    origin: Optional["Kernel"] = None  # set when desugared from a kernel
    ret_ty: Any = field(default=None, kw_only=True)  # the return type, once checked


@node
class Kernel:
    name: str
    name_span: Span
    params: list[Param]
    var: str
    var_span: Span
    bound: str
    bound_span: Span
    step: int
    step_span: Span
    tail: Optional[str]  # None, "scalar", "mask" or "pad"
    tail_body: Optional[Block]
    body: Block
    export: bool
    cfg: Optional[Cfg]
    span: Span


@node
class FieldDecl:
    name: str
    name_span: Span
    type: TypeRef
    span: Span


@node
class StructDecl:
    name: str
    name_span: Span
    fields: list[FieldDecl]
    cfg: Optional[Cfg]
    span: Span


@node
class ConstDecl:
    name: str
    name_span: Span
    type: TypeRef
    value: Expr  # IntLit or FloatLit (sign folded in)
    cfg: Optional[Cfg]
    span: Span


@node
class StaticAssert:
    cond: Expr
    message: StringLit
    cfg: Optional[Cfg]
    span: Span


Item = Func | Kernel | StructDecl | ConstDecl | StaticAssert


@node
class Program:
    items: list[Item]
    span: Span


def left_spine(e: Binary) -> list[Binary]:
    """`e` and its left-nested binary operands, outermost first. Passes walk
    `a + b + c + ...` with this instead of recursing: chains can be long."""
    spine = [e]
    node = e.left
    while isinstance(node, Binary):
        spine.append(node)
        node = node.left
    return spine


def type_text(t: TypeRef) -> str:
    """Eä spelling of a written type (`*restrict mut f32`)."""
    if isinstance(t, NamedType):
        return t.name
    prefix = "*" + ("restrict " if t.restrict else "") + ("mut " if t.mutable else "")
    return prefix + type_text(t.inner)


# ---- walking ----------------------------------------------------------------

_CHILD_FIELDS = {Let: ("value",), Return: ("value",), Assign: ("target", "value"), ExprStmt: ("expr",),
                 If: ("cond", "then", "orelse"), While: ("cond", "body"), ForEach: ("start", "end", "body"),
                 For: ("start", "end", "body"), Unroll: ("loop",), Binary: ("left", "right"),
                 Unary: ("operand",), Paren: ("inner",), Index: ("base", "index"), Field: ("base",)}
_CHILD_LISTS = {Block: "stmts", Call: "args", VectorLit: "elems"}


def unparen(e):
    """`e` without the parentheses around it."""
    while isinstance(e, Paren):
        e = e.inner
    return e


def children(x) -> list:
    """The statements and expressions directly under a statement, an
    expression or a Block, in source order (a struct literal's field values;
    absent parts such as a bare `return`'s value left out)."""
    if isinstance(x, StructLit):
        return [f.value for f in x.fields]
    if type(x) in _CHILD_LISTS:
        return list(getattr(x, _CHILD_LISTS[type(x)]))
    found = (getattr(x, name) for name in _CHILD_FIELDS.get(type(x), ()))
    return [c for c in found if c is not None]


def walk(roots: Iterable) -> Iterator:
    """Every node under `roots` (statements, expressions, blocks), each before
    the nodes under it."""
    return _depth_first(roots, children)


def statements(stmts: Iterable) -> Iterator:
    """Every statement in `stmts` and in the blocks nested in them (branches,
    loop bodies, the loop of an `unroll`); expressions are not entered."""
    return _depth_first(stmts, _nested)


def _nested(s) -> list:
    if isinstance(s, If):
        orelse = [] if s.orelse is None else s.orelse.stmts if isinstance(s.orelse, Block) else [s.orelse]
        return s.then.stmts + orelse
    if isinstance(s, (While, ForEach, For)):
        return s.body.stmts
    return [s.loop] if isinstance(s, Unroll) else []


def _depth_first(roots: Iterable, below) -> Iterator:
    """An explicit stack, so long operator chains cannot overflow the
    recursion limit; the last root comes out first."""
    stack = [r for r in roots if r is not None]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(below(x))
