"""The Eä abstract syntax tree. Every node carries a `span`; expression nodes
get their checked type in `ty` (the typed AST is this tree after checking).

Desugaring builds new item/statement nodes but shares the user's expression
and statement nodes, so types recorded on them are visible from both trees.
Nodes made by desugaring have `synthetic=True`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

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
class Func:
    name: str
    name_span: Span
    params: list[Param]
    ret: Optional[TypeRef]
    body: Block
    export: bool
    cfg: Optional[str]
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
    cfg: Optional[str]
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
    cfg: Optional[str]
    span: Span


@node
class ConstDecl:
    name: str
    name_span: Span
    type: TypeRef
    value: Expr  # IntLit or FloatLit (sign folded in)
    cfg: Optional[str]
    span: Span


@node
class StaticAssert:
    cond: Expr
    message: StringLit
    cfg: Optional[str]
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
