"""`ea bind --rust`: `<stem>.rs`, raw `extern "C"` declarations plus safe
slice-taking wrappers (TOOLCHAIN.md §4.3).

Departures from the reference output, where it does not work:
- `#[link]` sits on the extern block (on `mod ffi` rustc ignores it and the
  link fails), and the block is `unsafe extern "C"` so the file also builds
  under edition 2024 (rustc >= 1.82 accepts it in every edition);
- the library is linked by its file name (`#[link(name = "k.so", modifiers =
  "+verbatim")]`, the linker's `-l:k.so`), not by the §4.3 link stem: `ea
  k.ea --lib` writes `k.so`, which `-lk` (`libk.so`) does not find;
- every collapsed length is first bound to a local of its own name, so `cap`
  expressions may use it (§4.1 note), and a slice with a proven extent
  (metadata `extents`) must have at least that many elements, computed in
  i128 with overflow checks (else a panic naming the parameter and the
  length it needs) — the kernel would read or write past it; a slice whose
  extent is not provable is named in the wrapper's documentation.

The order of those locals, checks and allocations is `plan.py`'s, shared by
every generator."""
from __future__ import annotations

import re

from ..outputs.bounds.poly import Extent, Poly
from .meta import SCALARS, Api, Arg, Export, Struct
from .plan import cap_expr, prologue_lines

LANGUAGE = "Rust"

_KEYWORDS = frozenset((
    "as async await break const continue dyn else enum extern false fn for gen if impl in let loop "
    "match mod move mut pub ref return static struct trait true type unsafe use where while "
    "abstract become box do final macro override priv try typeof unsized virtual yield").split())
_NOT_RAW = frozenset({"self", "Self", "super", "crate", "_"})  # cannot be written as r#name


def link_name(library: str) -> str:
    """The library's file name, linked verbatim (`-l:k.so`): `k.so` is not
    found as `-lk`, which means `libk.so`."""
    return re.split(r"[/\\]", library)[-1]


# ---- Rust text ----------------------------------------------------------------------

def ident(name: str) -> str:
    if name in _NOT_RAW:
        return f"{name}_"
    return f"r#{name}" if name in _KEYWORDS else name


class _Types:
    def __init__(self, structs: list[Struct]):
        self.structs = {s.name for s in structs}

    def rust(self, t: str, ffi: bool = False) -> str:
        """`*f32` → `*const f32`, `*mut T` → `*mut T`, scalars keep their names,
        structs by name (`super::Name` inside `mod ffi`)."""
        probe = Arg("", t)
        if probe.is_pointer:
            return f"{'*mut' if probe.mutable else '*const'} {self.rust(probe.pointee, ffi)}"
        if t in SCALARS:
            return t
        if t in self.structs:
            return f"super::{t}" if ffi else t
        return f"i32 /* unknown: {t} */"

    def param(self, a: Arg) -> str:
        if a.is_pointer:
            return f"&{'mut ' if a.mutable else ''}[{self.rust(a.pointee)}]"
        return self.rust(a.type)

    def ret(self, e: Export) -> str | None:
        outs = [f"Vec<{self.rust(o.pointee)}>" for o in e.outputs]
        if len(outs) > 1:
            return f"({', '.join(outs)})"
        if outs:
            return outs[0]
        return self.rust(e.ret) if e.ret else None


def _defaultable(structs: list[Struct]) -> set[str]:
    """Structs whose fields all implement `Default` (no raw pointers)."""
    ok = {s.name for s in structs}
    changed = True
    while changed:
        changed = False
        for s in structs:
            if s.name in ok and any(t.startswith("*") or (t in {x.name for x in structs} and t not in ok)
                                    for _, t in s.fields):
                ok.discard(s.name)
                changed = True
    return ok


def _struct(s: Struct, types: _Types, default: bool) -> list[str]:
    derives = "Debug, Clone, Copy, PartialEq" + (", Default" if default else "")
    lines = ["#[repr(C)]", f"#[derive({derives})]", f"pub struct {ident(s.name)} {{"]
    lines += [f"    pub {ident(n)}: {types.rust(t)}," for n, t in s.fields]
    return lines + ["}", ""]


def _fill(t: str, default: set[str], structs: set[str]) -> str:
    """The initial element of an output buffer: `Default::default()`, null for
    pointers, all-zero bytes for structs that hold pointers (no `Default`;
    zero is a valid value of every type these bindings use)."""
    probe = Arg("", t)
    if probe.is_pointer:
        return "std::ptr::null_mut()" if probe.mutable else "std::ptr::null()"
    if t in structs and t not in default:
        return "unsafe { std::mem::zeroed() }"
    return "Default::default()"


def _usize(cap: str) -> str:
    if cap.isdigit():
        return cap
    return f"{cap} as usize" if re.fullmatch(r"(r#)?[A-Za-z_]\w*", cap) else f"({cap}) as usize"


def _wrapper(e: Export, types: _Types, default: set[str]) -> list[str]:
    params = ", ".join(f"{ident(a.name)}: {types.param(a)}" for a in e.visible)
    ret = types.ret(e)
    arrow = f" -> {ret}" if ret else ""
    lines = [f"/// {e.name}({params}){arrow}", "///", f"/// C signature: `{e.signature()}`"]
    lines += [f"/// {note}" for note in e.length_notes()]
    if ret:
        lines.append("#[must_use]")
    lines.append(f"pub fn {ident(e.name)}({params}){arrow} {{")
    def length(a: Arg, src: Arg) -> list[str]:
        t, of = types.rust(a.type), ident(src.name)  # `as` would cut a length past the type short
        return [f"let {ident(a.name)} = {t}::try_from({of}.len()).unwrap_or_else(|_| panic!(",
                f'    "{src.name}: {{}} elements do not fit the kernel\'s length argument (at most {{}})", '
                f"{of}.len(), {t}::MAX));"]

    def alloc(a: Arg) -> list[str]:
        fill, size = _fill(a.pointee, default, types.structs), _usize(cap_expr(a.cap, ident))
        return [f"let mut {ident(a.name)}: Vec<{types.rust(a.pointee)}> = vec![{fill}; {size}];"]

    def check(a: Arg, extent: Extent) -> list[str]:
        polys = ", ".join(_poly(p) for p in extent.alternatives)
        cap = _escape(a.cap) if a.auto_out else ""
        return [f'__ea_check("{a.name}", {ident(a.name)}.len(), &[{polys}], "{extent.text()}", "{cap}");']

    def limit(a: Arg, lim) -> list[str]:
        helper = "__ea_limit_below" if lim.below else "__ea_limit"
        return [f'{helper}("{a.name}", {_poly(lim.index)}, {lim.most}, "{lim.index.text()}", "{lim.type}");']

    body = prologue_lines(e, length, alloc, check, limit)
    call_args = []
    for a in e.args:
        name = ident(a.name)
        if a.is_pointer:
            call_args.append(f"{name}.as_mut_ptr()" if a.mutable else f"{name}.as_ptr()")
        else:
            call_args.append(name)
    call = f"ffi::{ident(e.name)}({', '.join(call_args)})"
    if e.outputs:
        body.append(f"unsafe {{ {call}; }}")
        names = [ident(o.name) for o in e.outputs]
        body.append(names[0] if len(names) == 1 else f"({', '.join(names)})")
    else:
        body.append(f"unsafe {{ {call} }}")
    return lines + [f"    {b}" for b in body] + ["}", ""]


def _poly(p: Poly) -> str:
    """A polynomial of the parameters in i128, None if it overflows (`as i128` holds every integer type)."""
    return p.checked_text(lambda c: f"Some({c})", lambda n: f"Some({ident(n)} as i128)",
                          lambda c, m: f"__ea_term({c}, &[{', '.join(f'{ident(n)} as i128' for n in m)}])",
                          lambda terms: f"__ea_sum(&[{', '.join(terms)}])")


# The extent checks' helpers (outputs/bounds: the elements each slice needs), when a wrapper checks one.
_CHECKS = """\
/// One term of an extent: `coef` times the factors; None on overflow.
fn __ea_term(coef: i128, factors: &[i128]) -> Option<i128> {
    factors.iter().try_fold(coef, |acc, &f| acc.checked_mul(f))
}

/// A polynomial: the sum of its terms; None on overflow.
fn __ea_sum(terms: &[Option<i128>]) -> Option<i128> {
    terms.iter().try_fold(0i128, |acc, &t| acc.checked_add(t?))
}

/// Panics unless `len` elements are at least every polynomial of the extent `text`
/// (`cap`: the cap a wrapper allocated the slice with, or "").
fn __ea_check(name: &str, len: usize, polys: &[Option<i128>], text: &str, cap: &str) {
    let mut need: i128 = 0;
    for p in polys {
        match p {
            Some(v) => need = need.max(*v),
            None => panic!("{}: needs more elements ({}) than an i128 counts, got {}", name, text, len),
        }
    }
    if (len as i128) < need {
        let what = format!("{} element{}{}", need, if need == 1 { "" } else { "s" },
                           if text == need.to_string() { String::new() } else { format!(" ({})", text) });
        if cap.is_empty() {
            panic!("{}: needs at least {}, got {}", name, what, len);
        }
        panic!("{}: the kernel may write {} but its cap ({}) allocates {}", name, what, cap, len);
    }
}
"""


# The index limits' helper (outputs/bounds/limits.py), when a wrapper checks one.
_LIMITS = """\
/// Panics unless `value` (the polynomial `index`; None past an i128) is at most `most`, the
/// largest value of the type an index of `name` is computed in: past it the index wraps around.
fn __ea_limit(name: &str, value: Option<i128>, most: i128, index: &str, ty: &str) {
    let shown = match value {
        Some(v) if v <= most => return,
        Some(v) => v.to_string(),
        None => String::from("more than an i128 holds"),
    };
    panic!("{}: {} = {} is past the largest {} ({}): an index of {} is computed from it and would wrap around",
           name, index, shown, ty, most, name);
}
"""

# The same for a limit below: the value must stay at or above `least`, the type's smallest.
_LIMITS_BELOW = """\
/// Panics unless `value` (the polynomial `index`; None past an i128) is at least `least`, the
/// smallest value of the type an index of `name` is computed in: below it the index wraps around.
fn __ea_limit_below(name: &str, value: Option<i128>, least: i128, index: &str, ty: &str) {
    let shown = match value {
        Some(v) if v >= least => return,
        Some(v) => v.to_string(),
        None => String::from("more than an i128 holds"),
    };
    panic!("{}: {} = {} is below the smallest {} ({}): an index of {} is computed from it and would wrap around",
           name, index, shown, ty, least, name);
}
"""


def generate(api: Api, source: str) -> dict[str, str]:
    types = _Types(api.structs)
    default = _defaultable(api.structs)
    out = [f"//! {api.stem} — generated by ea bind", "",
           "#![allow(dead_code, non_snake_case, non_camel_case_types)]", ""]
    for s in api.structs:
        out += _struct(s, types, s.name in default)
    out += ["mod ffi {", f'    #[link(name = "{_escape(link_name(api.library))}", modifiers = "+verbatim")]',
            '    unsafe extern "C" {']
    for e in api.exports:
        params = ", ".join(f"{ident(a.name)}: {types.rust(a.type, ffi=True)}" for a in e.args)
        ret = f" -> {types.rust(e.ret, ffi=True)}" if e.ret else ""
        out.append(f"        pub fn {ident(e.name)}({params}){ret};")
    out += ["    }", "}", ""]
    if any(e.extents for e in api.exports):
        out.append(_CHECKS)
    kinds = {lim.below for e in api.exports for found in e.index_limits.values() for lim in found}
    if False in kinds:
        out.append(_LIMITS)
    if True in kinds:
        out.append(_LIMITS_BELOW)
    for e in api.exports:
        out += _wrapper(e, types, default)
    return {f"{api.stem}.rs": "\n".join(out).rstrip("\n") + "\n"}


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
