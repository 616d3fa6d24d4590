"""Statement lowering: locals as entry-block allocas (SROA turns them into
registers), structured control flow, returns."""
from __future__ import annotations

from llvmlite import ir
from llvmlite.ir.values import MDValue

from ..syntax import ast as A
from ..typesys import model as T
from .features import vector_registers
from .names import local_name
from . import ntauto
from .ntloop import emit_versioned, version_groups


class StmtEmitter:
    def block(self, block: A.Block) -> None:
        for stmt in block.stmts:
            if self.builder.block.is_terminated:
                return  # statements after a `return` are ignored (LANGUAGE.md §4)
            self.at(stmt.span)
            self._stmt_dispatch[type(stmt)](self, stmt)

    # ---- bindings ----
    def local(self, name: str, t: T.Type, let: A.Let | None = None) -> ir.AllocaInstr:
        """A fresh stack slot (a new `let` replaces the binding, §4); one per
        `let` statement, which every copy of a versioned loop (ntloop.py)
        shares: whichever copy ran, code after the loop reads its value."""
        slot = self.let_slots.get(id(let)) if let is not None else None
        if slot is None:
            with self.builder.goto_block(self.entry):
                if self.entry.instructions:
                    self.builder.position_before(self.entry.instructions[0])
                slot = self.builder.alloca(self.types(t), name=local_name(name))
            if let is not None:
                self.let_slots[id(let)] = slot
        self.vars[name] = (slot, t)
        return slot

    def _let(self, s: A.Let) -> None:
        t = s.ty
        value = self.expr(s.value, t)
        slot = self.local(s.name, t, s)
        self.builder.store(value, slot)

    def _assign(self, s: A.Assign) -> None:
        target = s.target
        ptr, t = self.place(target)
        self.builder.store(self.expr(s.value, t), ptr)

    # ---- control flow ----
    def _if(self, s: A.If) -> None:
        cond = self.expr(s.cond)
        then_bb = self.fn.append_basic_block("if.then")
        merge_bb = self.fn.append_basic_block("if.end")
        else_bb = self.fn.append_basic_block("if.else") if s.orelse is not None else merge_bb
        self.builder.cbranch(cond, then_bb, else_bb)
        self.builder.position_at_end(then_bb)
        self.block(s.then)
        self._branch(merge_bb)
        if s.orelse is not None:
            self.builder.position_at_end(else_bb)
            if isinstance(s.orelse, A.Block):
                self.block(s.orelse)
            else:
                self.at(s.orelse.span)
                self._if(s.orelse)
            self._branch(merge_bb)
        self.builder.position_at_end(merge_bb)

    def _branch(self, target: ir.Block) -> None:
        if not self.builder.block.is_terminated:
            self.builder.branch(target)

    def _while(self, s: A.While, unroll: int | None = None) -> None:
        auto = ntauto.plan(self, s)
        if auto is not None:  # streams past the cache on a big call (ntauto.py)
            ntauto.emit(self, s, auto, lambda: self._while_stores(s, unroll))
            return
        self._while_stores(s, unroll)

    def _while_stores(self, s: A.While, unroll: int | None) -> None:
        groups = version_groups(self, s)
        if groups:  # a kernel's main loop with streaming stores: one copy per alignment (ntloop.py)
            emit_versioned(self, s, groups, lambda end: self._while_copy(s, unroll, end))
            return
        end_bb = self.fn.append_basic_block("while.end")
        self._while_copy(s, unroll, end_bb)
        self.builder.position_at_end(end_bb)

    def _while_copy(self, s: A.While, unroll: int | None, end_bb: ir.Block) -> None:
        cond_bb = self.fn.append_basic_block("while.cond")
        body_bb = self.fn.append_basic_block("while.body")
        self.builder.branch(cond_bb)
        self.builder.position_at_end(cond_bb)
        self.at(s.cond.span)
        self.builder.cbranch(self.expr(s.cond), body_bb, end_bb)
        self.builder.position_at_end(body_bb)
        self.block(s.body)
        self._latch(cond_bb, unroll, self._kernel_loop_md(s) or self._saturated_loop_md(s.body))

    def _kernel_loop_md(self, s: A.While) -> ir.Value | None:
        """Loop metadata for the loops a kernel desugars to (LANGUAGE.md §7).

        The main loop is not unrolled: it does `step` elements per iteration,
        as written and as `ea inspect` reports. Unrolling it 2x or 4x
        (`llvm.loop.unroll.count`) measured no faster than C or than itself at
        4K and 256K f32 and slower on 64M u8 threshold (bench/kernels.py,
        README "Generated code performance"); LLVM leaves such a loop alone
        today on the targets tried, this pins it for every target and LLVM
        version. A step-1 kernel's loop is not marked: its body is scalar, and
        LLVM vectorises and interleaves it (LLVM reads `unroll.disable` as no
        interleaving too).

        The `tail scalar` loop runs at most step-1 times, so LLVM must not
        vectorise, interleave or unroll it: left alone, LLVM made a 4x-unrolled
        vector loop with runtime checks of it, 3-4x the machine code of the
        whole kernel and slower for fewer than 16 leftover elements
        (bench/scalar_tail_bench.py)."""
        kernel = self.func.origin
        if not (s.synthetic and kernel is not None):
            return None
        module = self.module
        no_unroll = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")])
        if s.span == kernel.body.span and kernel.step > 1:
            properties = (no_unroll,)
        elif kernel.tail == "scalar" and kernel.tail_body is not None and s.span == kernel.tail_body.span:
            no_vectorize = module.add_metadata([ir.MetaDataString(module, "llvm.loop.vectorize.enable"),
                                                ir.Constant(ir.IntType(1), 0)])
            properties = (no_vectorize, no_unroll)
        else:
            return None
        # A loop ID is a node that names itself (LangRef, `llvm.loop`); LLVM
        # reads a self-referencing node as distinct. Not cached: it is unique.
        loop_id = MDValue(module, [], name=str(len(module.metadata)))
        loop_id.operands = (loop_id, *properties)
        return loop_id

    def _saturated_loop_md(self, body: A.Block) -> ir.Value | None:
        """`unroll.disable` for a loop whose carried vector values (variables
        declared before it and assigned in it) alone fill the vector registers:
        unrolling it can only add spills. LLVM unrolled the 16-accumulator k
        loop of bench/tune_nest/matmul_blocked.ea 2x on AVX2, spilling 25 ymm
        per 32 FMAs, 1.3-1.4x the time of the loop left alone
        (bench/reference_bench.py); loops with room to spare stay LLVM's."""
        declared = {st.name for st in A.statements(body.stmts) if isinstance(st, A.Let)}
        carried = {st.target.name for st in A.statements(body.stmts)
                   if isinstance(st, A.Assign) and isinstance(st.target, A.Name)
                   and st.target.name not in declared and st.target.name in self.vars}
        count, bits = vector_registers(self.options)
        used = sum(-(-t.bits // bits) for t in (self.vars[name][1] for name in carried) if isinstance(t, T.Vector))
        if used < count:
            return None
        module = self.module
        loop_id = MDValue(module, [], name=str(len(module.metadata)))
        loop_id.operands = (loop_id, module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")]))
        return loop_id

    def _latch(self, header: ir.Block, unroll: int | None, loop_md: ir.Value | None = None) -> None:
        """The back edge. `unroll(N)` is a hint only: like the reference
        compiler we leave unrolling to LLVM's heuristics (LANGUAGE.md §4)."""
        if not self.builder.block.is_terminated:
            br = self.builder.branch(header)
            if loop_md is not None:
                br.set_metadata("llvm.loop", loop_md)

    def _foreach(self, s: A.ForEach, unroll: int | None = None) -> None:
        start = self.expr(s.start, T.I32)
        end = self.expr(s.end, T.I32)  # evaluated once, before the loop (§4)
        saved = dict(self.vars)
        slot = self.local(s.var, T.I32)
        self.builder.store(self.convert_int(start, s.start.ty, T.I32), slot)
        end = self.convert_int(end, s.end.ty, T.I32)
        cond_bb = self.fn.append_basic_block("foreach.cond")
        body_bb = self.fn.append_basic_block("foreach.body")
        end_bb = self.fn.append_basic_block("foreach.end")
        self.builder.branch(cond_bb)
        self.builder.position_at_end(cond_bb)
        i = self.builder.load(slot, typ=ir.IntType(32))
        self.builder.cbranch(self.builder.icmp_signed("<", i, end), body_bb, end_bb)
        self.builder.position_at_end(body_bb)
        self.block(s.body)
        if not self.builder.block.is_terminated:
            self.at(s.span)
            i = self.builder.load(slot, typ=ir.IntType(32))
            self.builder.store(self.builder.add(i, ir.Constant(ir.IntType(32), 1), flags=["nsw"]), slot)
        self._latch(cond_bb, unroll, self._saturated_loop_md(s.body))
        self.builder.position_at_end(end_bb)
        self.vars = saved

    def _unroll(self, s: A.Unroll) -> None:
        loop = s.loop
        if isinstance(loop, A.While):
            self._while(loop, s.count)
        else:
            self._foreach(loop, s.count)

    def _return(self, s: A.Return) -> None:
        if s.value is None or self.ret is T.VOID:
            if s.value is not None:
                self.expr(s.value)
            self.return_default()
            return
        self.builder.ret(self.expr(s.value, self.ret))

    def return_default(self) -> None:
        """Falling off the end returns the zero value (§3.1); `main` returns 0."""
        if self.ret is T.VOID:
            if self.is_main:
                self.builder.ret(ir.Constant(ir.IntType(32), 0))
            else:
                self.builder.ret_void()
        else:
            self.builder.ret(ir.Constant(self.types(self.ret), None))

    def _expr_stmt(self, s: A.ExprStmt) -> None:
        self.expr(s.expr)


StmtEmitter._stmt_dispatch = {
    A.Let: StmtEmitter._let, A.Assign: StmtEmitter._assign, A.If: StmtEmitter._if,
    A.While: StmtEmitter._while, A.ForEach: StmtEmitter._foreach, A.Unroll: StmtEmitter._unroll,
    A.Return: StmtEmitter._return, A.ExprStmt: StmtEmitter._expr_stmt,
}
