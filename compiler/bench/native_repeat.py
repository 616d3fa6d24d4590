"""A native loop that calls one export of a loaded kernel `reps` times with
fixed arguments: for measuring a call of a few hundred nanoseconds (a loop
over an L1-resident array) without Python in between.

From Python each call costs 0.2-0.8 µs besides the kernel's own 0.1-0.5 µs
at the L1 sizes of `ea bench --cycles`, and the interpreter's own data
evicts part of the kernel's arrays from L1 between calls: both land in the
slope between two sizes. Calls back to back from native code keep the arrays
where the calibration's loops keep theirs (compiler/bench/calibrate.ea runs
its repetitions natively too).

    rep = repeater(kernel, "dot", kwargs)   # None when the export cannot be called this way
    rep(1000)                               # 1000 calls, as kernel.dot(**kwargs) would make them

The loop is JIT-compiled with llvmlite, calling the export through its
address (no inlining: the kernel's code is the code measured), with the
arguments as constants; the arrays in `kwargs` are kept alive by the
returned function. Exports with struct or bool arguments or results are not
supported (None)."""
from __future__ import annotations

import ctypes
import struct
from typing import Callable

from ..bind.meta import BindError
from ..loader_fast import IR_SCALARS, abi_extension
from ..options import Options
from .c_args import c_arguments

SYMBOL = "__ea_repeat"


def repeat_ir(address: int, types: list[str], values: tuple, ret: str | None) -> str | None:
    """The IR of `void __ea_repeat(i64 reps)`: `reps` calls of the function at `address`
    (Eä argument types `types`, C values `values`, result type `ret`), passed as the fast
    calls pass them (loader_fast.IR_SCALARS); None for a type that table has not."""
    args = []
    for t, v in zip(types, values):
        if t.startswith("*"):
            args.append(f"ptr inttoptr (i64 {int(v)} to ptr)")
        elif t in IR_SCALARS:
            args.append(f"{IR_SCALARS[t]}{abi_extension(t)} {_constant(IR_SCALARS[t], v)}")
        else:
            return None
    if ret is not None and ret not in IR_SCALARS:
        return None
    result = IR_SCALARS[ret] if ret else "void"
    callee = f"inttoptr (i64 {address} to ptr)"
    return "\n".join([
        f"define void @{SYMBOL}(i64 %reps) {{",
        "entry:",
        "  %any = icmp sgt i64 %reps, 0",
        "  br i1 %any, label %loop, label %done",
        "loop:",
        "  %i = phi i64 [ 0, %entry ], [ %next, %loop ]",
        f"  call {result} {callee}({', '.join(args)})",
        "  %next = add i64 %i, 1",
        "  %more = icmp slt i64 %next, %reps",
        "  br i1 %more, label %loop, label %done",
        "done:",
        "  ret void",
        "}",
    ]) + "\n"


def _constant(ir_type: str, value) -> str:
    """The IR constant: floats exactly, as the bits of an IEEE double (LLVM writes a float
    constant as the double of the same value, so an f32 is rounded to f32 first)."""
    if ir_type == "float":
        value = ctypes.c_float(value).value
    if ir_type in ("float", "double"):
        return "0x" + struct.pack(">d", float(value)).hex().upper()
    bits = int(ir_type[1:])  # an unsigned value past the signed range is written as its two's complement
    value = int(value) & ((1 << bits) - 1)
    return str(value - (1 << bits) if value >> (bits - 1) else value)


def repeater(kernel, function: str, kwargs: dict) -> Callable[[int], None] | None:
    """`rep(reps)`: `reps` calls of `function` of the loaded `kernel` (ea_compiler.loader.load)
    with the suite's keyword arguments `kwargs`, from native code; None when that cannot be
    done (no metadata, an argument or result type the loop does not pass)."""
    import llvmlite.binding as llvm

    from ..codegen import LLVM_LOCK
    from ..codegen.target import init, new_target_machine
    api = getattr(kernel, "_api", None)
    engine = getattr(kernel, "_engine", None)
    export = next((e for e in api.exports if e.name == function), None) if api else None
    if export is None or engine is None:
        return None
    try:
        values = c_arguments(export, kwargs)
    except BindError:
        return None
    with LLVM_LOCK:
        address = engine.get_function_address(function)
    text = repeat_ir(address, [a.type for a in export.args], values, export.ret or None) if address else None
    if text is None:
        return None
    init()
    with LLVM_LOCK:
        machine = new_target_machine(kernel._options or Options())
        module = llvm.parse_assembly(text)
        module.triple, module.data_layout = machine.triple, str(machine.target_data)
        module.verify()
        loop_engine = llvm.create_mcjit_compiler(module, machine)
        loop_engine.finalize_object()
        entry = loop_engine.get_function_address(SYMBOL)
    call = ctypes.CFUNCTYPE(None, ctypes.c_int64)(entry)

    def rep(reps: int, _alive=(loop_engine, kwargs, kernel)) -> None:  # the code and the arrays stay
        call(reps)

    return rep
