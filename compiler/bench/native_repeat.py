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
from ..options import Options
from .c_args import c_arguments

# Eä scalar types as the C ABI passes them (loader_fast.py's table), 8- and 16-bit ones extended by the caller
_IR = {"f32": "float", "f64": "double", "i8": "i8", "u8": "i8", "i16": "i16", "u16": "i16",
       "i32": "i32", "u32": "i32", "i64": "i64", "u64": "i64"}
SYMBOL = "__ea_repeat"


def repeat_ir(address: int, types: list[str], values: tuple, ret: str | None) -> str | None:
    """The IR of `void __ea_repeat(i64 reps)`: `reps` calls of the function at `address`
    (Eä argument types `types`, C values `values`, result type `ret`); None for a type
    the table does not pass."""
    params, args = [], []
    for t, v in zip(types, values):
        if t.startswith("*"):
            params.append("ptr")
            args.append(f"ptr inttoptr (i64 {int(v)} to ptr)")
            continue
        if t not in _IR:
            return None
        ir_type = _IR[t]
        extend = (" signext" if t[0] == "i" else " zeroext") if ir_type in ("i8", "i16") else ""
        params.append(f"{ir_type}{extend}")
        args.append(f"{ir_type}{extend} {_constant(ir_type, v)}")
    if ret is not None and ret not in _IR:
        return None
    result = _IR[ret] if ret else "void"
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
    return str(int(value))


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
