"""`ea bind --cpp`: `<stem>.hpp`, the raw `extern "C"` prototypes plus inline
`std::span` overloads (TOOLCHAIN.md §4.4; needs C++20).

Beyond the reference output: the header includes everything it uses
(`<vector>`, `<tuple>`, `<stdexcept>`, `<string>`), defines the structs the
prototypes use (a struct held by value first), qualifies the call
(`::ea::f`, so a parameter named like the function cannot hide it), binds
every collapsed length to a local of its own name before a `cap` uses it,
and throws `std::invalid_argument` (naming the parameter and the length it
needs) when a span is shorter than its proven extent (metadata `extents`,
computed in 64 bits with overflow checks); a span whose extent is not
provable is named in the overload's documentation. Compiled below C++20 it
stops with an `#error` naming `-std=c++20`. `bool` outputs are returned as
`std::vector<uint8_t>` (`std::vector<bool>` has no `data()`)."""
from __future__ import annotations

from ..outputs.c_types import C_SCALARS
from ..outputs.bounds.poly import Extent, Poly
from .meta import Api, Arg, Export, Struct
from .plan import cap_expr, prologue_lines

LANGUAGE = "C++"

_CTYPES = {**C_SCALARS, "bool": "bool"}  # C++ spells C's _Bool `bool`
_KEYWORDS = frozenset((
    "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t "
    "char32_t class compl concept const consteval constexpr constinit const_cast continue co_await "
    "co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern "
    "false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr "
    "operator or or_eq private protected public register reinterpret_cast requires return short signed "
    "sizeof static static_assert static_cast struct switch template this thread_local throw true try "
    "typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq").split())


def ident(name: str) -> str:
    return f"{name}_" if name in _KEYWORDS else name


class _Types:
    def __init__(self, structs: list[Struct]):
        self.structs = {s.name for s in structs}

    def c(self, t: str) -> str:
        """`*f32` → `const float*`, `*mut f32` → `float*`, stdint scalars, structs by name."""
        probe = Arg("", t)
        if probe.is_pointer:
            inner = self.c(probe.pointee)
            return f"{inner}*" if probe.mutable else _const(inner) + "*"
        if t in _CTYPES:
            return _CTYPES[t]
        if t in self.structs:
            return t
        return f"int32_t /* unknown: {t} */"

    def span(self, a: Arg) -> str:
        inner = self.c(a.pointee)
        return f"std::span<{inner if a.mutable else _const(inner)}>"

    def vector(self, a: Arg) -> str:
        return "std::vector<uint8_t>" if a.pointee == "bool" else f"std::vector<{self.c(a.pointee)}>"

    def ret(self, e: Export) -> str:
        outs = [self.vector(o) for o in e.outputs]
        if len(outs) > 1:
            return f"std::tuple<{', '.join(outs)}>"
        if outs:
            return outs[0]
        return self.c(e.ret) if e.ret else "void"


def _const(t: str) -> str:
    """`const T`, written `T const` after a pointer (`const float* const`)."""
    return f"{t} const" if t.endswith("*") else f"const {t}"


def _raw_params(e: Export, types: _Types) -> str:
    return ", ".join(f"{types.c(a.type)} {ident(a.name)}" for a in e.args)


def _size(cap: str) -> str:
    return cap if cap.isdigit() else f"static_cast<std::size_t>({cap})"


def _overload(e: Export, types: _Types) -> list[str]:
    params = ", ".join(f"{types.span(a) if a.is_pointer else types.c(a.type)} {ident(a.name)}"
                       for a in e.visible)
    ret = types.ret(e)
    lines = [f"/// @brief {e.name}({params})",
             f"/// @note C signature: {e.name}({_raw_params(e, types)}) -> {types.c(e.ret) if e.ret else 'void'}",
             *(f"/// @note {note}" for note in e.length_notes()),
             f"{'[[nodiscard]] ' if ret != 'void' else ''}inline {ret} {ident(e.name)}({params}) {{"]
    def length(a: Arg, src: Arg) -> list[str]:
        c, of = types.c(a.type), ident(src.name)  # static_cast would cut a length past the type short
        most = f"std::numeric_limits<{c}>::max()"
        return [f"if ({of}.size() > static_cast<std::size_t>({most})) {{",
                f'    throw std::invalid_argument(std::string("{src.name}: ") + std::to_string({of}.size()) + '
                f'" elements do not fit the kernel\'s length argument (at most " + std::to_string({most}) + ")");',
                "}",
                f"const {c} {ident(a.name)} = static_cast<{c}>({of}.size());"]

    def alloc(a: Arg) -> list[str]:
        return [f"{types.vector(a)} {ident(a.name)}({_size(cap_expr(a.cap, ident))});"]

    def check(a: Arg, extent: Extent) -> list[str]:
        polys = ", ".join(_poly(p) for p in extent.alternatives)
        cap = _escape(a.cap) if a.auto_out else ""
        return [f'::ea::detail::check("{a.name}", {ident(a.name)}.size(), {{{polys}}}, "{extent.text()}", "{cap}");']

    def limit(a: Arg, lim) -> list[str]:
        if lim.below:  # an i64's smallest is LLONG_MIN: written so, as no literal is
            least = "LLONG_MIN" if lim.most < -_LLONG_MAX else f"{lim.most}LL"
            return [f'::ea::detail::limit_below("{a.name}", {_poly(lim.index)}, {least}, '
                    f'"{lim.index.text()}", "{lim.type}");']
        most = min(lim.most, _LLONG_MAX)  # a u64's: every value a long long holds is below it
        return [f'::ea::detail::limit("{a.name}", {_poly(lim.index)}, {most}LL, "{lim.index.text()}", '
                f'"{lim.type}");']

    body = prologue_lines(e, length, alloc, check, limit)
    call_args = []
    for a in e.args:
        if a.auto_out and a.pointee == "bool":
            call_args.append(f"reinterpret_cast<bool*>({ident(a.name)}.data())")
        else:
            call_args.append(f"{ident(a.name)}.data()" if a.is_pointer else ident(a.name))
    call = f"::ea::{ident(e.name)}({', '.join(call_args)})"
    names = [ident(o.name) for o in e.outputs]
    if len(names) > 1:
        body += [f"{call};", f"return std::make_tuple({', '.join(f'std::move({n})' for n in names)});"]
    elif names:
        body += [f"{call};", f"return {names[0]};"]
    else:
        body.append(f"return {call};" if e.ret else f"{call};")
    return lines + [f"    {b}" for b in body] + ["}", ""]


def _poly(p: Poly) -> str:
    """A polynomial of the parameters in 64 bits (nullopt on overflow)."""
    def wide(n: str) -> str:
        return f"::ea::detail::wide({ident(n)})"
    return p.checked_text(lambda c: f"::ea::detail::Wide({c})", wide,
                          lambda c, m: f"::ea::detail::term({c}, {{{', '.join(wide(n) for n in m)}}})",
                          lambda terms: f"::ea::detail::sum({{{', '.join(terms)}}})")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


# The extent checks' helpers (outputs/bounds: the elements each span needs), when an overload checks one.
_CHECKS = """\
#ifndef EA_BIND_DETAIL_CHECKS_1  // one definition when several generated headers are included
#define EA_BIND_DETAIL_CHECKS_1
namespace detail {

// Extents in 64 bits: nullopt where a value does not fit.
using Wide = std::optional<long long>;

template <class T> Wide wide(T v) {
    if constexpr (std::is_unsigned_v<T>) {
        if (v > static_cast<unsigned long long>(LLONG_MAX)) return std::nullopt;
    }
    return static_cast<long long>(v);
}

inline Wide term(long long coef, std::initializer_list<Wide> factors) {
    long long acc = coef;
    for (const Wide& f : factors) {
        if (!f) return std::nullopt;
        const long long b = *f;
        const bool over = acc > 0 ? (b > 0 ? acc > LLONG_MAX / b : b < LLONG_MIN / acc)
                                  : (b > 0 ? acc < LLONG_MIN / b : acc != 0 && b < LLONG_MAX / acc);
        if (over) return std::nullopt;
        acc *= b;
    }
    return acc;
}

inline Wide sum(std::initializer_list<Wide> terms) {
    long long acc = 0;
    for (const Wide& t : terms) {
        if (!t || (*t > 0 && acc > LLONG_MAX - *t) || (*t < 0 && acc < LLONG_MIN - *t)) return std::nullopt;
        acc += *t;
    }
    return acc;
}

// Throws unless `size` elements are at least every polynomial of the extent `text`
// (`cap`: the cap an overload allocated the vector with, or "").
inline void check(const char* name, std::size_t size, std::initializer_list<Wide> polys, const char* text,
                  const char* cap) {
    long long need = 0;
    for (const Wide& p : polys) {
        if (!p) {
            throw std::invalid_argument(std::string(name) + ": needs more elements (" + text +
                                        ") than 64 bits count, got " + std::to_string(size));
        }
        need = std::max(need, *p);
    }
    if (std::cmp_less(size, need)) {
        const std::string count = std::to_string(need);
        const std::string what = count + (need == 1 ? " element" : " elements") +
                                 (count == text ? std::string() : std::string(" (") + text + ")");
        if (*cap) {
            throw std::invalid_argument(std::string(name) + ": the kernel may write " + what + " but its cap (" +
                                        cap + ") allocates " + std::to_string(size));
        }
        throw std::invalid_argument(std::string(name) + ": needs at least " + what + ", got " +
                                    std::to_string(size));
    }
}

}  // namespace detail
#endif
"""


_LLONG_MAX = (1 << 63) - 1
# The index limits' helper (outputs/bounds/limits.py), apart from _CHECKS: a header of an older
# `ea bind` may have defined those already.
_LIMITS = """\
#ifndef EA_BIND_DETAIL_LIMITS_1
#define EA_BIND_DETAIL_LIMITS_1
namespace detail {

// Throws unless `value` (the polynomial `index`; nullopt past 64 bits) is at most `most`, the largest
// value of the type an index of `name` is computed in: past it the index wraps around.
inline void limit(const char* name, Wide value, long long most, const char* index, const char* type) {
    if (value && *value <= most) return;
    throw std::invalid_argument(std::string(name) + ": " + index + " = " +
                                (value ? std::to_string(*value) : std::string("more than 64 bits hold")) +
                                " is past the largest " + type + " (" + std::to_string(most) + "): an index of " +
                                name + " is computed from it and would wrap around");
}

}  // namespace detail
#endif
"""

# A limit below, in a block of its own: a header from before it may define the one above.
_LIMITS_BELOW = """\
#ifndef EA_BIND_DETAIL_LIMITS_BELOW_1
#define EA_BIND_DETAIL_LIMITS_BELOW_1
namespace detail {

// Throws unless `value` (the polynomial `index`; nullopt past 64 bits) is at least `least`, the
// smallest value of the type an index of `name` is computed in: below it the index wraps around.
inline void limit_below(const char* name, Wide value, long long least, const char* index, const char* type) {
    if (value && *value >= least) return;
    throw std::invalid_argument(std::string(name) + ": " + index + " = " +
                                (value ? std::to_string(*value) : std::string("more than 64 bits hold")) +
                                " is below the smallest " + type + " (" + std::to_string(least) + "): an index of " +
                                name + " is computed from it and would wrap around");
}

}  // namespace detail
#endif
"""


def _base(t: str) -> str:
    while Arg("", t).is_pointer:
        t = Arg("", t).pointee
    return t


def _by_dependency(structs: list[Struct]) -> list[Struct]:
    """Source order, except that a struct held by value is defined before the
    structs holding it (Eä accepts any order; C++ needs complete types)."""
    by_name = {s.name: s for s in structs}
    ordered: list[Struct] = []
    seen: set[str] = set()

    def visit(s: Struct) -> None:
        if s.name in seen:
            return
        seen.add(s.name)
        for _, t in s.fields:
            if t in by_name:
                visit(by_name[t])
        ordered.append(s)

    for s in structs:
        visit(s)
    return ordered


def generate(api: Api, source: str) -> dict[str, str]:
    types = _Types(api.structs)
    out = [f"// {api.stem}.hpp — generated by ea bind", "#pragma once", "",
           "#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L",
           f'#error "{api.stem}.hpp needs C++20 (std::span): compile with -std=c++20 or newer"',
           "#else  // the rest only under C++20, so the #error is the only message", ""]
    limits = any(e.index_limits for e in api.exports)
    checks = limits or any(e.extents for e in api.exports)
    headers = ("cstddef", "cstdint", "limits", "span", "stdexcept", "string", "tuple", "utility", "vector") + \
        (("algorithm", "climits", "initializer_list", "optional", "type_traits") if checks else ())
    out += [f"#include <{h}>" for h in sorted(headers)]
    out += ["", "namespace ea {", ""]
    ordered = _by_dependency(api.structs)
    if any(Arg("", t).is_pointer and _base(t) in types.structs for s in ordered for _, t in s.fields):
        out += [f"struct {ident(s.name)};" for s in ordered] + [""]
    for s in ordered:
        out.append(f"struct {ident(s.name)} {{")
        out += [f"    {types.c(t)} {ident(n)};" for n, t in s.fields]
        out += ["};", ""]
    out.append('extern "C" {')
    for e in api.exports:
        out.append(f"{types.c(e.ret) if e.ret else 'void'} {ident(e.name)}({_raw_params(e, types)});")
    out += ["}", ""]
    if checks:
        out.append(_CHECKS)
    kinds = {lim.below for e in api.exports for found in e.index_limits.values() for lim in found}
    if False in kinds:
        out.append(_LIMITS)
    if True in kinds:
        out.append(_LIMITS_BELOW)
    for e in api.exports:
        if any(a.is_pointer for a in e.args):
            out += _overload(e, types)
    out += ["} // namespace ea", "", "#endif"]
    return {f"{api.stem}.hpp": "\n".join(out) + "\n"}

