"""Generate the intrinsic reference pages (docs/intrinsics/*.md) from the
compiler's intrinsic table, so the reference cannot drift from the compiler.

    python docs/gen_intrinsics.py           # rewrite the pages
    python docs/gen_intrinsics.py --check   # exit 1 if a page is out of date

Everything on the pages comes from `ea_compiler.intrinsics.TABLE`: names,
signatures, one-line docs, versions, deprecations, and the target columns,
which are worked out by asking each intrinsic's target rule and the vector
type rules (`ea_compiler.typesys.vectors.target_error`) about every signature
on four targets. Only the family introductions below are written here.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.intrinsics import TABLE, memory  # noqa: E402
from ea_compiler.intrinsics.table import Intrinsic, type_named  # noqa: E402
from ea_compiler.options import Options  # noqa: E402
from ea_compiler.typesys import model as T  # noqa: E402
from ea_compiler.typesys.vectors import target_error  # noqa: E402

OUT = ROOT / "docs" / "intrinsics"
COMMAND = "python docs/gen_intrinsics.py"

# One user-facing paragraph per family. A family the table gains without an
# entry here stops the generator, so every page has an introduction.
INTROS = {
    "memory": "Moving vectors between memory and registers. Offsets count elements of the pointer's type, "
              "never bytes; any element-aligned address works. `load` takes its lane count from the "
              "expected type (see [Kernels](../kernels.md#how-wide-is-load)); the `load_<T>x<N>` "
              "spellings name it explicitly.",
    "arithmetic": "Broadcast and math on scalars and vectors. Element-wise `+ - * /` on vectors are the "
                  "dotted operators (`.+ .- .* ./`), not intrinsics.",
    "reduction": "Collapse a vector to one scalar, usually once after a loop that kept vector "
                 "accumulators.",
    "lanes": "Rearranging lanes: shuffles, selects, byte table lookups, concatenating and splitting "
             "vectors, building vectors from scalars, reinterpreting bits, byte shifts.",
    "conversion": "Scalar conversions (`to_*`), pointer reinterpretation (`ptr_as_*`), widening bytes to "
                  "wider lanes, rounding, and narrowing with saturation (`pack_*`). There are no implicit "
                  "conversions in Eä: every change of type is one of these calls.",
    "integer dot product": "Multiply-add of narrow integers into wider sums: the x86 `pmaddubsw`/`pmaddwd` "
                           "family and the AArch64 dot-product, matrix-multiply and widening-multiply "
                           "instructions. Most are tied to one architecture; the Targets column names "
                           "the alternative on the other.",
    "saturating arithmetic": "Add and subtract clamped to the element range, and absolute difference. "
                             "Use the spellings with the type in the name; the polymorphic ones are "
                             "deprecated.",
    "half precision": "IEEE binary16 values carried as `i16` bit patterns, converted to and from `f32` "
                      "vectors. This works without `--fp16`; native `f16x4`/`f16x8` arithmetic needs "
                      "`--fp16` on AArch64.",
    "polynomial approximation": "Fast vector approximations of transcendental functions for `f32` "
                                "vectors of any width. They never call the C math library; each has "
                                "a stated domain and error.",
    "prefetch": "Cache hints. They never fault and have no visible effect other than speed. The offset "
                "counts elements of the pointer's type.",
    "streaming stores and fences": "Non-temporal stores that bypass the cache, for outputs too large to "
                                   "stay in it, and the fence that orders them.",
    "masked memory": "Loads and stores of the first `count` lanes only; masked-off lanes never touch "
                     "memory. The usual tool for `tail mask` (see [Kernels](../kernels.md#tail-mask)).",
    "gather/scatter": "Indexed loads and stores: each lane has its own index.",
    "VNNI dot product": "One-instruction multiply-accumulate of narrow integers on x86 CPUs with VNNI "
                        "(`vpdpbusd`, `vpdpwssd`): each i32 lane of the accumulator gains the sum of four "
                        "u8 x i8 or two i16 x i16 products, exact (no intermediate saturation; the i32 sum "
                        "wraps). An extension: the reference compiler has only `maddubs_i16` + `madd_i16`, "
                        "two instructions whose u8 x i8 pair sums saturate at i16. The 512-bit forms need "
                        "AVX512-VNNI (Ice Lake, Sapphire Rapids, Zen 4 and later); the 128/256-bit forms "
                        "also run on AVX-VNNI (Alder Lake, Zen 5). Elsewhere the compiler refuses the call "
                        "and names the alternative; `ea --print-target` names the host CPU.",
}

# One example per family, compiled by tests/test_docs.py like every ```ea block of the guide.
EXAMPLES = {
    "memory": """\
// Copy 16 floats as two f32x8 vectors; print the first element
export func copy16(src: *f32, dst: *mut f32) {
    let a: f32x8 = load(src, 0)
    store(dst, 0, a)
    store(dst, 8, load_f32x8(src, 8))
    println(dst[0])
}
""",
    "arithmetic": """\
// Distance of 4 points from the origin, clamped to [0, limit]
export func dist4(x: *f32, y: *f32, limit: f32, out: *mut f32) {
    let vx: f32x4 = load(x, 0)
    let vy: f32x4 = load(y, 0)
    let d: f32x4 = sqrt(fma(vx, vx, vy .* vy))
    store(out, 0, min(d, splat(limit)))
}
""",
    "reduction": """\
// Largest absolute value of 8 floats
export func peak8(p: *f32) -> f32 {
    let v: f32x8 = load(p, 0)
    return reduce_max(abs(v))
}
""",
    "lanes": """\
// Reverse 4 lanes, keep the larger of each pair, and build a vector from scalars
export func lanes_demo(p: *f32, out: *mut f32) {
    let v: f32x4 = load(p, 0)
    let r: f32x4 = shuffle(v, [3, 2, 1, 0])
    let m: f32x4 = select(v .> r, v, r)
    let s: f32x4 = f32x4_from_scalars(p[0], p[1], 0.0, 0.0)
    store(out, 0, m .+ s)
}
""",
    "conversion": """\
// Bytes to floats scaled to [0, 1], and a scalar conversion
export func bytes_to_unit(px: *u8, out: *mut f32) {
    let b: u8x16 = load(px, 0)
    let f: f32x4 = widen_u8_f32x4(b)
    store(out, 0, f ./ splat(255.0))
    out[4] = to_f32(px[4]) / 255.0
}
""",
    "integer dot product": """\
// x86-64: 16 u8 x i8 products summed into 4 i32 lanes
export func dot16(a: *u8, b: *i8) -> i32 {
    let va: u8x16 = load(a, 0)
    let vb: i8x16 = load(b, 0)
    let ones: i16x8 = splat(1)
    return reduce_add(madd_i16(maddubs_i16(va, vb), ones))
}
""",
    "saturating arithmetic": """\
// Brighten 16 pixels without wrapping past 255
export func brighten(px: *u8, out: *mut u8, amount: u8) {
    let v: u8x16 = load(px, 0)
    store(out, 0, sat_add_u8x16(v, splat(amount)))
}
""",
    "half precision": """\
// Half floats stored as i16 bit patterns, doubled through f32
export func double_halves(src: *i16, dst: *mut i16) {
    let h: i16x8 = load(src, 0)
    let f: f32x8 = cvt_f16_f32(h)
    store(dst, 0, cvt_f32_f16(f .+ f))
}
""",
    "polynomial approximation": """\
// A fast sigmoid, 1 / (1 + e^-x), on 8 lanes
export func sigmoid8(x: *f32, out: *mut f32) {
    let v: f32x8 = load(x, 0)
    let neg: f32x8 = splat(0.0) .- v
    let one: f32x8 = splat(1.0)
    store(out, 0, one ./ (one .+ exp_poly_f32(neg)))
}
""",
    "prefetch": """\
// Sum with a read hint 256 elements ahead
export func sum_prefetch(p: *f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        prefetch(p, i + 256)
        acc = acc .+ load(p, i)
        i = i + 8
    }
    return reduce_add(acc)
}
""",
    "streaming stores and fences": """\
// Fill a large buffer without pulling it into the cache
export kernel fill(dst: *mut f32, value: f32)
    over i in n step 8
    tail scalar { dst[i] = value }
{
    let v: f32x8 = splat(value)
    stream_store(dst, i, v)
}
""",
    "masked memory": """\
// Add 1 to the first count (at most 8) elements, touching nothing after them
export func bump_first(p: *mut f32, count: i32) {
    let v: f32x8 = load_masked(p, 0, count)
    store_masked(p, 0, v .+ splat(1.0), count)
}
""",
    "gather/scatter": """\
// Look up 8 table entries by index
export func lookup8(table: *f32, idx: *i32, out: *mut f32) {
    let i: i32x8 = load(idx, 0)
    store(out, 0, gather(table, i))
}
""",
    "VNNI dot product": """\
// x86-64 with VNNI (e.g. icelake-server, alderlake, znver4): u8 x i8 dot product,
// 32 products per dpbusd; n a multiple of 32
export func dot_vnni(a: *u8, b: *i8, n: i32) -> i32 {
    let mut acc: i32x8 = splat(0)
    let mut i: i32 = 0
    while i < n {
        acc = dpbusd(acc, load_u8x32(a, i), load_i8x32(b, i))
        i = i + 32
    }
    return reduce_add(acc)
}
""",
}

# Target flags for an example that needs more than the host may have (the
# fence's `flags=` marker, read by tests/test_docs.py).
EXAMPLE_FLAGS = {"VNNI dot product": "--target=icelake-server"}

X86 = "x86_64-unknown-linux-gnu"
ARM = "aarch64-unknown-linux-gnu"
FLAGS = {"x86": ["avx512"], "arm": ["dotprod", "i8mm", "fp16"]}
# The x86 column is for LLVM's baseline CPU whatever machine generates the pages;
# forms that need an instruction set no flag adds (VNNI) name, in this order,
# the first of these CPUs that has it.
X86_CPU = "x86-64"
X86_CPUS = ("alderlake", "icelake-server")


def slug(family: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")


def families() -> dict[str, list[Intrinsic]]:
    grouped: dict[str, list[Intrinsic]] = {}
    for intr in TABLE.values():
        grouped.setdefault(intr.family, []).append(intr)
    missing = [f for f in grouped if f not in INTROS or f not in EXAMPLES]
    if missing:
        raise SystemExit(f"gen_intrinsics: no introduction or example for "
                         f"{', '.join(missing)}; add them to INTROS and EXAMPLES in docs/gen_intrinsics.py")
    return grouped


# ---- targets ----

@dataclass
class _Probe:
    """What a target rule sees of a call: the options and the argument types."""
    options: Options
    types: list

    def arg(self, i: int):
        return self.types[i]

    @property
    def nargs(self) -> int:
        return len(self.types)


def _parse_type(text: str):
    """The first alternative of a signature operand (`u8x16|i8x16` -> u8x16),
    or None for a generic one (`TxN`, `*T`, `imm 0..=15`)."""
    first = text.split("|")[0].strip()
    try:
        return type_named(first)
    except KeyError:
        return None


def _signature_types(sig: str):
    params, _, ret = sig.partition(" -> ")
    inner = params.strip()[1:-1]
    args = [_parse_type(p) for p in inner.split(", ")] if inner else []
    return args, _parse_type(ret.split(" ")[0])


def _problems(intr: Intrinsic, sig: str, options: Options) -> list[str]:
    """Why this signature of the intrinsic cannot be used on the target (empty: it can).
    The intrinsic's own message comes first and alone: it names the alternative."""
    args, ret = _signature_types(sig)
    if intr.target is not None:
        msg = intr.target(_Probe(options, args), ret)
        if msg:
            return [msg]
    found = []
    for t in args + [ret]:
        if isinstance(t, T.Vector):
            msg = target_error(f"{t.elem}x{t.lanes}", options.is_arm, options.fp16)
            if msg and msg not in found:
                found.append(msg)
    return found


def _options(arch: str, flags: tuple[str, ...] = (), cpu: str = X86_CPU) -> Options:
    if arch == "x86":
        return Options(target_triple=X86, target_cpu=cpu, **{f: True for f in flags})
    return Options(target_triple=ARM, **{f: True for f in flags})


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def target_cell(intr: Intrinsic, arch: str) -> str:
    """yes / with `--flag` / no: why, per signature when the forms differ."""
    sigs = intr.signatures
    plain = {s: _problems(intr, s, _options(arch)) for s in sigs}
    if not any(plain.values()):
        return "yes"
    every = _options(arch, tuple(FLAGS[arch]))
    if not any(_problems(intr, s, every) for s in sigs):
        needed = [f for f in FLAGS[arch]
                  if any(_problems(intr, s, _options(arch, tuple(g for g in FLAGS[arch] if g != f)))
                         for s in sigs)]
        return "with " + " ".join(f"`--{f}`" for f in needed)
    if arch == "x86":
        cell = _cpu_cell(intr)
        if cell:
            return cell
    if all(plain.values()):
        reasons = list(dict.fromkeys(m for s in sigs for m in plain[s]))
        return "no: " + "; ".join(_md(r) for r in reasons)
    ok = [s for s in sigs if not plain[s]]
    reasons = list(dict.fromkeys(m for s in sigs for m in plain[s]))
    return ("only " + ", ".join(f"`{_md(s)}`" for s in ok) + "; other forms: "
            + "; ".join(_md(r) for r in reasons))


def _cpu_cell(intr: Intrinsic) -> str | None:
    """`with a CPU that has it, e.g. --target=X; 128/256-bit forms also --target=Y`
    when some CPU of X86_CPUS takes every form; None otherwise."""
    takes = {cpu: [s for s in intr.signatures if not _problems(intr, s, _options("x86", (), cpu))]
             for cpu in X86_CPUS}
    every = next((cpu for cpu in X86_CPUS if len(takes[cpu]) == len(intr.signatures)), None)
    if every is None:
        return None
    cell = f"with a CPU that has it, e.g. `--target={every}`"
    for cpu in X86_CPUS[:X86_CPUS.index(every)]:
        if takes[cpu]:
            bits = sorted({_signature_types(s)[1].bits for s in takes[cpu]})
            cell += f"; {'/'.join(map(str, bits))}-bit forms also `--target={cpu}`"
    return cell


# ---- pages ----

HEADER = "<!-- Generated by {cmd} from compiler/intrinsics/; do not edit by hand. -->\n"


def _row(intr: Intrinsic) -> str:
    sigs = "<br>".join(f"`{_md(intr.name + s)}`" for s in intr.signatures)
    doc = _md(intr.doc)
    if intr.deprecated:
        doc += f"<br>**Deprecated** since {intr.deprecated}" + (f": {_md(intr.advice)}" if intr.advice else "")
    return (f"| `{intr.name}` | {sigs} | {doc} | {target_cell(intr, 'x86')} | "
            f"{target_cell(intr, 'arm')} | {intr.since} |")


def _load_width_row() -> str:
    """The `load_<T>x<N>` family is matched by a pattern, not listed in TABLE."""
    elems = re.search(r"\(([a-z0-9|]+)\)", memory._LOAD_WIDTH.pattern).group(1).split("|")
    sample = memory.load_width("load_f32x8")
    assert sample is not None
    doc = ("`load` with the width in the name, e.g. `load_f32x8`, `load_u8x32`: N consecutive T elements "
           f"from ptr[index]. T is one of {', '.join(f'`{e}`' for e in elems)} and must be the pointer's "
           "element type; N is any lane count of a vector type the target accepts.")
    return (f"| `load_<T>x<N>` | `load_<T>x<N>(*T, int) -> TxN` | {doc} | yes (no `f16`, no 64-bit vectors) "
            f"| up to 128 bits; `f16` with `--fp16` | {sample.since} |")


TABLE_HEAD = ("| Intrinsic | Signatures | What it does | x86-64 | AArch64 | Since |\n"
              "|---|---|---|---|---|---|")


def family_page(family: str, members: list[Intrinsic]) -> str:
    rows = [_row(i) for i in members]
    if family == "memory":
        rows.insert(1, _load_width_row())
    count = len(members) + (1 if family == "memory" else 0)
    title = family[0].upper() + family[1:]
    fence = f" flags={EXAMPLE_FLAGS[family]}" if family in EXAMPLE_FLAGS else ""
    return (HEADER.format(cmd=COMMAND) + f"\n# {title} intrinsics\n\n{INTROS[family]}\n\n"
            f"{count} entr{'y' if count == 1 else 'ies'}. Notation and the target columns are explained "
            f"in the [index](README.md).\n\n{TABLE_HEAD}\n" + "\n".join(rows) + "\n"
            f"\n## Example\n\n```ea{fence}\n{EXAMPLES[family]}```\n")


def index_page(grouped: dict[str, list[Intrinsic]]) -> str:
    lines = [HEADER.format(cmd=COMMAND), "# Intrinsics by family", "",
             f"The compiler knows {len(TABLE)} named intrinsics plus the `load_<T>x<N>` family. "
             "Each family page has a table of its intrinsics and a compiled example. Intrinsic names "
             "are not reserved words (see [Names shared with intrinsics]"
             "(../diagnostics.md#names-shared-with-intrinsics)); names that were removed or renamed are "
             "listed in [Diagnostics](../diagnostics.md#removed-and-renamed-intrinsics).", "",
             "| Family | Intrinsics |", "|---|---|"]
    for family, members in grouped.items():
        names = ", ".join(f"`{i.name}`" for i in members)
        if family == "memory":
            names = names.replace("`store`", "`load_<T>x<N>`, `store`", 1)
        lines.append(f"| [{family}]({slug(family)}.md) | {names} |")
    lines += ["", "## Reading the tables", "",
              "- `TxN` is a vector of N lanes of element type T; `FV` a vector of `f32` or `f64` lanes; "
              "`int` any integer type (an integer literal is fine); `imm a..=b` an integer known at compile "
              "time (a literal, a constant, or an expression of them) in that range.",
              "- A signature whose result is `TxN` with N not fixed by the arguments (`load`, `splat`, "
              "`load_masked`) takes N from the expected type and defaults to 4 lanes; see "
              "[Kernels](../kernels.md#how-wide-is-load).",
              "- Several signatures mean overloads: the first that fits the arguments is used.",
              "- **x86-64** and **AArch64** say whether every form can be compiled for that target: "
              "`yes`; `with --flag` (the form needs that target flag, see [Targets](../targets.md)); "
              "`with a CPU that has it, e.g. --target=...` (no flag enables it: the instruction set comes "
              "with the CPU compiled for, the host's by default); "
              "`only ...` (the listed forms work, the others are refused with the message shown); "
              "`no: <message>` (the compiler's own message, which names the alternative). The columns "
              "include the rule that AArch64 holds vectors of at most 128 bits and x86-64 has no "
              "64-bit vectors.",
              "- **Since** is the language version that introduced the intrinsic (`CORE` = in the "
              "original core set).", ""]
    return "\n".join(lines)


def render() -> dict[str, str]:
    """File name -> content of every generated page."""
    grouped = families()
    pages = {"README.md": index_page(grouped)}
    for family, members in grouped.items():
        pages[f"{slug(family)}.md"] = family_page(family, members)
    return pages


def stale(pages: dict[str, str]) -> list[str]:
    """Pages missing, different, or no longer generated."""
    problems = [name for name, text in pages.items()
                if not (OUT / name).exists() or (OUT / name).read_text(encoding="utf-8") != text]
    if OUT.exists():
        problems += [p.name for p in sorted(OUT.glob("*.md")) if p.name not in pages]
    return problems


def main(argv: list[str]) -> int:
    pages = render()
    if argv == ["--check"]:
        problems = stale(pages)
        if problems:
            print(f"out of date: {', '.join(problems)}; run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(f"usage: {COMMAND} [--check]", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    for p in OUT.glob("*.md"):
        if p.name not in pages:
            p.unlink()
    for name, text in pages.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(pages)} pages to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
