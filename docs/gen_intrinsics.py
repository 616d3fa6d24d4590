"""Generate the intrinsic reference pages (docs/intrinsics/*.md) from the
compiler's intrinsic table, so the reference cannot drift from the compiler.

    python docs/gen_intrinsics.py           # rewrite the pages
    python docs/gen_intrinsics.py --check   # exit 1 if a page is out of date

Everything on the pages comes from `compiler.intrinsics.TABLE`: names,
signatures, one-line docs, versions, deprecations, and the target columns,
which are worked out by asking each intrinsic's target rule and the vector
type rules (`compiler.typesys.vectors.target_error`) about every signature
on four targets. Only the family introductions below are written here.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.intrinsics import TABLE, memory  # noqa: E402
from compiler.intrinsics.table import Intrinsic, type_named  # noqa: E402
from compiler.options import Options  # noqa: E402
from compiler.typesys import model as T  # noqa: E402
from compiler.typesys.vectors import VECTORS, target_error  # noqa: E402

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
}

X86 = "x86_64-unknown-linux-gnu"
ARM = "aarch64-unknown-linux-gnu"
FLAGS = {"x86": ["avx512"], "arm": ["dotprod", "i8mm", "fp16"]}


def slug(family: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")


def families() -> dict[str, list[Intrinsic]]:
    grouped: dict[str, list[Intrinsic]] = {}
    for intr in TABLE.values():
        grouped.setdefault(intr.family, []).append(intr)
    missing = [f for f in grouped if f not in INTROS]
    if missing:
        raise SystemExit(f"gen_intrinsics: no introduction for famil{'y' if len(missing) == 1 else 'ies'} "
                         f"{', '.join(missing)}; add one to INTROS in docs/gen_intrinsics.py")
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


def _options(arch: str, flags: tuple[str, ...] = ()) -> Options:
    return Options(target_triple=X86 if arch == "x86" else ARM, **{f: True for f in flags})


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
    if all(plain.values()):
        reasons = list(dict.fromkeys(m for s in sigs for m in plain[s]))
        return "no: " + "; ".join(_md(r) for r in reasons)
    ok = [s for s in sigs if not plain[s]]
    reasons = list(dict.fromkeys(m for s in sigs for m in plain[s]))
    return ("only " + ", ".join(f"`{_md(s)}`" for s in ok) + "; other forms: "
            + "; ".join(_md(r) for r in reasons))


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
    elems = re.search(r"\(([a-z0-9|]+)\)", memory._LOAD_WIDTH.pattern).group(1).split("|")
    sample = memory.load_width("load_f32x8")
    assert sample is not None
    sig = f"load_<T>x<N>(*T, int) -> TxN"
    doc = (f"`load` with the width in the name, e.g. `load_f32x8`, `load_u8x32`: "
           f"{_md(sample.doc).replace('8 consecutive f32', 'N consecutive T')} "
           f"T is one of {', '.join(f'`{e}`' for e in elems)} and must be the pointer's element type; "
           "N is any lane count the target accepts.")
    return f"| `load_<T>x<N>` | `{_md(sig)}` | {doc} | yes (no `f16`, no 64-bit vectors) | up to 128 bits; `f16` with `--fp16` | {sample.since} |"


TABLE_HEAD = ("| Intrinsic | Signatures | What it does | x86-64 | AArch64 | Since |\n"
              "|---|---|---|---|---|---|")


def family_page(family: str, members: list[Intrinsic]) -> str:
    rows = [_row(i) for i in members]
    if family == "memory":
        rows.insert(1, _load_width_row())
    count = len(members) + (1 if family == "memory" else 0)
    title = family[0].upper() + family[1:]
    return (HEADER.format(cmd=COMMAND) + f"\n# {title} intrinsics\n\n{INTROS[family]}\n\n"
            f"{count} entr{'y' if count == 1 else 'ies'}. Notation and the target columns are explained "
            f"in the [index](README.md).\n\n{TABLE_HEAD}\n" + "\n".join(rows) + "\n")


def index_page(grouped: dict[str, list[Intrinsic]]) -> str:
    lines = [HEADER.format(cmd=COMMAND), "# Intrinsics by family", "",
             f"The compiler knows {len(TABLE)} named intrinsics plus the `load_<T>x<N>` family. "
             "Intrinsic names are not reserved words, but a call to one of these names means the "
             "intrinsic (see [Language](../language.md#functions)).", "",
             "| Family | Intrinsics |", "|---|---|"]
    for family, members in grouped.items():
        names = ", ".join(f"`{i.name}`" for i in members)
        if family == "memory":
            names = names.replace("`store`", "`load_<T>x<N>`, `store`", 1)
        lines.append(f"| [{family}]({slug(family)}.md) | {names} |")
    lines += ["", "## Reading the tables", "",
              "- `TxN` is a vector of N lanes of element type T; `FV` a vector of `f32` or `f64` lanes; "
              "`int` any integer type (an integer literal is fine); `imm a..=b` an integer literal (or "
              "constant expression) in that range, checked at compile time.",
              "- A signature whose result is `TxN` with N not fixed by the arguments (`load`, `splat`, "
              "`load_masked`) takes N from the expected type and defaults to 4 lanes; see "
              "[Kernels](../kernels.md#how-wide-is-load).",
              "- Several signatures mean overloads: the first that fits the arguments is used.",
              "- **x86-64** and **AArch64** say whether every form can be compiled for that target: "
              "`yes`; `with --flag` (the form needs that target flag, see [Targets](../targets.md)); "
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
