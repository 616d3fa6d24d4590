"""Desugaring: `kernel` items and `for` loops become plain functions and
`while` loops, exactly as LANGUAGE.md §7 and §8 say. Later passes never see
`kernel` or `for`.

The input tree is not modified: new item and loop nodes are built, the
user's statements and expressions are shared. Generated nodes reuse the
spans of the header parts they come from, so diagnostics point at user code.
"""
from __future__ import annotations

from .diagnostics import DiagnosticSink
from .syntax import ast as A


def desugar(program: A.Program, sink: DiagnosticSink) -> A.Program:
    items: list[A.Item] = []
    for item in program.items:
        if isinstance(item, A.Kernel):
            items.append(_kernel(item, sink))
        elif isinstance(item, A.Func):
            items.append(A.Func(item.name, item.name_span, item.params, item.ret, _block(item.body),
                                item.export, item.cfg, item.span))
        else:
            items.append(item)
    return A.Program(items, program.span)


def _kernel(k: A.Kernel, sink: DiagnosticSink) -> A.Func:
    for block in (k.body, k.tail_body):
        if block is not None:
            _check_no_assign(block, k.var, sink)
    var_span, bound_span, step_span = k.var_span, k.bound_span, k.step_span
    i32 = A.NamedType("i32", bound_span)
    bound = A.Param(k.bound, bound_span, i32, False, None, None, bound_span)

    def var() -> A.Name:
        return A.Name(var_span, k.var)

    def advance(step: int, span) -> A.Assign:
        inc = A.Binary(span, "+", span, var(), A.IntLit(span, step, str(step)))
        return A.Assign(var(), inc, span, synthetic=True)

    header = var_span.to(step_span)
    init = A.Let(k.var, var_span, True, A.NamedType("i32", var_span), A.IntLit(var_span, 0, "0"),
                 var_span, synthetic=True)
    main_cond = A.Binary(header, "<=", header,
                         A.Binary(header, "+", step_span, var(), A.IntLit(step_span, k.step, str(k.step))),
                         A.Name(bound_span, k.bound))
    main_body = _block(k.body)
    main = A.While(main_cond, A.Block(main_body.stmts + [advance(k.step, step_span)], k.body.span,
                                      synthetic=True), k.body.span, synthetic=True)
    stmts: list[A.Stmt] = [init, main]
    if k.tail in ("scalar", "mask") and k.tail_body is not None:
        tail_body = _block(k.tail_body)
        cond = A.Binary(header, "<", header, var(), A.Name(bound_span, k.bound))
        if k.tail == "scalar":
            body = A.Block(tail_body.stmts + [advance(1, k.tail_body.span)], k.tail_body.span, synthetic=True)
            stmts.append(A.While(cond, body, k.tail_body.span, synthetic=True))
        else:
            stmts.append(A.If(cond, tail_body, None, k.tail_body.span, synthetic=True))
    body = A.Block(stmts, k.body.span, synthetic=True)
    return A.Func(k.name, k.name_span, k.params + [bound], None, body, k.export, k.cfg, k.span, origin=k)


def _block(block: A.Block) -> A.Block:
    out: list[A.Stmt] = []
    changed = False
    for stmt in block.stmts:
        new = _stmt(stmt)
        if isinstance(new, list):
            out.extend(new)
            changed = True
        else:
            out.append(new)
            changed = changed or new is not stmt
    return A.Block(out, block.span, block.synthetic) if changed else block


def _stmt(stmt: A.Stmt):
    if isinstance(stmt, A.For):
        return _for(stmt)
    if isinstance(stmt, A.Unroll):
        loop = _stmt(stmt.loop)
        if isinstance(loop, list):  # unroll(N) for: keep the let, unroll the while
            return [loop[0], A.Unroll(stmt.count, stmt.count_span, loop[1], stmt.span)]
        return stmt if loop is stmt.loop else A.Unroll(stmt.count, stmt.count_span, loop, stmt.span)
    if isinstance(stmt, A.If):
        then = _block(stmt.then)
        orelse = stmt.orelse
        if orelse is not None:
            orelse = _block(orelse) if isinstance(orelse, A.Block) else _stmt(orelse)
        if then is stmt.then and orelse is stmt.orelse:
            return stmt
        return A.If(stmt.cond, then, orelse, stmt.span, stmt.synthetic)
    if isinstance(stmt, A.While):
        body = _block(stmt.body)
        return stmt if body is stmt.body else A.While(stmt.cond, body, stmt.span, stmt.synthetic)
    if isinstance(stmt, A.ForEach):
        body = _block(stmt.body)
        return stmt if body is stmt.body else A.ForEach(stmt.var, stmt.var_span, stmt.start, stmt.end,
                                                        body, stmt.span)
    return stmt


def _for(f: A.For) -> list[A.Stmt]:
    """for i in a..b step S { B }  =>  let mut i: i32 = a; while i < b { B; i = i + S }"""
    span = f.var_span
    init = A.Let(f.var, span, True, A.NamedType("i32", span), f.start, f.var_span.to(f.start.span),
                 synthetic=True)
    cond = A.Binary(span.to(f.end.span), "<", span, A.Name(span, f.var), f.end)
    step = A.Binary(span, "+", span, A.Name(span, f.var), A.IntLit(span, f.step, str(f.step)))
    body = _block(f.body)
    loop_body = A.Block(body.stmts + [A.Assign(A.Name(span, f.var), step, span, synthetic=True)],
                        f.body.span, synthetic=True)
    return [init, A.While(cond, loop_body, f.span, synthetic=True)]


def _check_no_assign(block: A.Block, var: str, sink: DiagnosticSink) -> None:
    stack = list(block.stmts)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, A.Assign) and isinstance(stmt.target, A.Name) and stmt.target.name == var:
            sink.error("type", "assign-loop-variable",
                       f"cannot assign to loop variable '{var}' \u2014 it is advanced by the kernel's step",
                       stmt.span)
        elif isinstance(stmt, (A.While, A.ForEach, A.For)):
            stack.extend(stmt.body.stmts)
        elif isinstance(stmt, A.Unroll):
            stack.append(stmt.loop)
        elif isinstance(stmt, A.If):
            stack.extend(stmt.then.stmts)
            if isinstance(stmt.orelse, A.Block):
                stack.extend(stmt.orelse.stmts)
            elif stmt.orelse is not None:
                stack.append(stmt.orelse)
