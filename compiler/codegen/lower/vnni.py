"""Lowering of the VNNI dot products (compiler/intrinsics/vnni.py) to
`llvm.x86.avx512.vpdp{busd,wssd}.{128,256,512}`.

LLVM names the 128/256-bit forms `avx512` but selects the VEX encoding
(`{vex} vpdpbusd`) on a CPU with AVX-VNNI and no AVX512-VL, so the
`llvm.x86.avx512.*` group rule of `call_intrinsic` (AVX512-BW) does not
apply: the check here is the intrinsic's own, with LLVM's view of the CPU.
Asking LLVM to select them on a CPU without VNNI aborts the process.
"""
from __future__ import annotations

from ...intrinsics.vnni import vnni_problem
from ..errors import CodegenError
from ..features import x86_features
from .common import cannot_lower, declare


def _vnni(op: str):
    def lower(em, call, want):
        if em.options.is_arm:
            cannot_lower(em, "it needs an x86 instruction")
        bits = call.ty.lanes * 32
        problem = vnni_problem(call.name, bits, x86_features(em.options), em.options)
        if problem:
            raise CodegenError(problem, call.span, user=True)
        acc, a, b = (em.expr(x) for x in call.args)
        fn = declare(em, f"llvm.x86.avx512.{op}.{bits}", acc.type, [acc.type, a.type, b.type])
        return em.builder.call(fn, [acc, a, b])
    return lower


LOWER = {"dpbusd": _vnni("vpdpbusd"), "dpwssd": _vnni("vpdpwssd")}
