"""In-process end-to-end harness for the intrinsic tests.

`build_and_run(ea_src, c_src, tmp)` compiles the Eä source with
`generate(analyze(...))` in this process, writes `k.o`, links it with the C
driver `main.c` (`cc main.c k.o -o prog -lm`), runs it and returns stdout.

`run_cases(cases, tmp)` builds one Eä module and one C driver from many
small `Case`s (one exported function each, pointer arguments only, so no
vector ABI is involved), runs them in a single process and returns the
printed values per case and output. Integers print in decimal, floats as
their IEEE bit patterns in hex so comparisons are exact.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ea_compiler import Options, analyze
from ea_compiler.codegen import generate

from .harness import compiled_for, host_has, link_and_run  # noqa: F401  (host_has is re-exported to the tests)

os.environ["EA_DEBUG"] = "1"

C_TYPES = {"i8": "int8_t", "u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t", "i32": "int32_t",
           "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t", "f32": "float", "f64": "double"}
NP_TYPES = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
            "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f64": np.float64}


def compile_module(ea_src: str, options: Options | None = None):
    """analyze + generate; fails with the diagnostics if the source has errors."""
    analysis = analyze(ea_src, "k.ea", options or Options())
    if analysis.errors:
        shown = "\n".join(f"{d.span.line if d.span else '?'}: {d.message}" for d in analysis.errors)
        raise AssertionError(f"Eä source has errors:\n{shown}\n--- source ---\n{ea_src}")
    return generate(analysis)


def build_and_run(ea_src: str, c_src: str, tmp: Path, options: Options | None = None) -> str:
    tmp = Path(tmp)
    (tmp / "k.ea").write_text(ea_src, encoding="utf-8")
    (tmp / "k.o").write_bytes(compile_module(ea_src, options).object())
    compiled_for(tmp / "k.o", options or Options())
    return link_and_run(tmp / "k.o", c_src, tmp)


@dataclass
class Case:
    """One exported function `t_<name>(a0: *T0, ..., o0: *mut U0, ...)`.

    `body` is Eä code using a0.. and o0..; `inputs` are (element type,
    values), `outputs` (element type, count); `expected` lists, per output,
    the values the spec predicts; `prelude` goes at the top level (consts)."""
    name: str
    body: str
    inputs: list[tuple[str, list]]
    outputs: list[tuple[str, int]]
    expected: list[list] = field(default_factory=list)
    prelude: str = ""


def _c_literal(elem: str, value) -> str:
    if elem in ("f32", "f64"):
        x = float(value)
        if np.isnan(x):
            raise ValueError("NaN inputs are not supported (their bits are not portable through C literals)")
        if np.isinf(x):
            return ("-" if x < 0 else "") + ("__builtin_inff()" if elem == "f32" else "__builtin_inf()")
        # Hex float literals are exact (an f32 value converts to double exactly).
        return x.hex() + ("f" if elem == "f32" else "")
    v = int(value)
    if elem.startswith("u"):
        return f"{v}ull"
    if v == -(1 << 63):  # not writable as one literal in C
        return "(-9223372036854775807ll - 1)"
    return f"({C_TYPES[elem]}){v}ll"


_PRINT = {"f32": ('printf(" %08x", f32u({x}));'), "f64": 'printf(" %016llx", (unsigned long long)f64u({x}));',
          "u64": 'printf(" %llu", (unsigned long long){x});', "i64": 'printf(" %lld", (long long){x});'}


def format_values(elem: str, values) -> list[str]:
    """How the C driver prints `values` of `elem`: what tests compare."""
    if elem == "f32":
        return [f"{int(b):08x}" for b in np.asarray(values, dtype=np.float32).view(np.uint32)]
    if elem == "f64":
        return [f"{int(b):016x}" for b in np.asarray(values, dtype=np.float64).view(np.uint64)]
    bits = int(elem[1:])
    out = []
    for v in values:  # wrap to the element width, as the C side stores it
        v = int(v) & ((1 << bits) - 1)
        if elem.startswith("i") and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(str(v))
    return out


def build_program(cases: list[Case]) -> tuple[str, str]:
    ea, c = [], []
    c.append("#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
             "static uint32_t f32u(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }\n"
             "static uint64_t f64u(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }\n")
    calls = []
    for case in cases:
        if case.prelude:
            ea.append(case.prelude)
        params = [f"a{k}: *{t}" for k, (t, _) in enumerate(case.inputs)]
        params += [f"o{k}: *mut {t}" for k, (t, _) in enumerate(case.outputs)]
        # Prefixed: a user function may not take an intrinsic's name.
        fn = f"t_{case.name}"
        ea.append(f"export func {fn}({', '.join(params)}) {{\n{case.body}\n}}\n")
        cparams = [f"const {C_TYPES[t]}*" for t, _ in case.inputs] + [f"{C_TYPES[t]}*" for t, _ in case.outputs]
        c.append(f"void {fn}({', '.join(cparams)});")
        lines = [f"static void run_{case.name}(void) {{"]
        args = []
        for k, (t, values) in enumerate(case.inputs):
            init = ", ".join(_c_literal(t, v) for v in values)
            # Generous alignment: stream_store needs full-vector alignment.
            lines.append(f"    static {C_TYPES[t]} a{k}[{len(values)}] __attribute__((aligned(64))) = {{{init}}};")
            args.append(f"a{k}")
        for k, (t, n) in enumerate(case.outputs):
            lines.append(f"    static {C_TYPES[t]} o{k}[{n}] __attribute__((aligned(64)));")
            lines.append(f"    memset(o{k}, 0, sizeof o{k});")
            args.append(f"o{k}")
        lines.append(f"    {fn}({', '.join(args)});")
        for k, (t, n) in enumerate(case.outputs):
            fmt = _PRINT.get(t, 'printf(" %lld", (long long){x});' if not t.startswith("u")
                             else 'printf(" %llu", (unsigned long long){x});')
            lines.append(f'    printf("{case.name}#{k}");')
            lines.append(f"    for (int i = 0; i < {n}; i++) {fmt.format(x=f'o{k}[i]')}")
            lines.append('    printf("\\n");')
        lines.append("}")
        c.extend(lines)
        calls.append(f"    run_{case.name}();")
    c.append("int main(void) {\n" + "\n".join(calls) + "\n    return 0;\n}\n")
    return "\n".join(ea), "\n".join(c)


def run_cases(cases: list[Case], tmp: Path, options: Options | None = None) -> dict[str, list[list[str]]]:
    """Run every case; result[name][k] is output k as printed strings."""
    ea_src, c_src = build_program(cases)
    out = build_and_run(ea_src, c_src, tmp, options)
    results: dict[str, list[list[str]]] = {}
    for line in out.splitlines():
        head, *values = line.split()
        name, k = head.split("#")
        results.setdefault(name, []).append(values)
    return results


def expected_strings(case: Case) -> list[list[str]]:
    return [format_values(t, values) for (t, _), values in zip(case.outputs, case.expected)]


class Cases(list):
    """A list of Case with shorthands for the common shapes."""

    def add(self, name, body, inputs, outputs, expected, prelude=""):
        self.append(Case(name, body, inputs, outputs, [list(e) for e in expected], prelude))

    def unary(self, name, call, in_t, in_vec, out_t, out_vec, values, expected, prelude=""):
        """o0 = `call`, where `call` uses `v`, loaded as in_vec from a0."""
        lanes = int(out_vec.split("x")[1])
        body = f"    let v: {in_vec} = load(a0, 0)\n    let r: {out_vec} = {call}\n    store(o0, 0, r)"
        self.add(name, body, [(in_t, values)], [(out_t, lanes)], [expected], prelude)

    def binary(self, name, call, in_t, in_vec, out_t, out_vec, a, b, expected):
        """o0 = `call`, where `call` uses `x` and `y`, loaded as in_vec from a0 and a1."""
        lanes = int(out_vec.split("x")[1])
        body = (f"    let x: {in_vec} = load(a0, 0)\n    let y: {in_vec} = load(a1, 0)\n"
                f"    let r: {out_vec} = {call}\n    store(o0, 0, r)")
        self.add(name, body, [(in_t, a), (in_t, b)], [(out_t, lanes)], [expected])
