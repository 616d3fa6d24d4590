"""`ea bind --cpp`: `<stem>.hpp`, the raw `extern "C"` prototypes plus inline
`std::span` overloads (TOOLCHAIN.md §4.4; needs C++20).

Beyond the reference output: the header includes everything it uses
(`<vector>`, `<tuple>`, `<stdexcept>`, `<string>`), defines the structs the
prototypes use (a struct held by value first), qualifies the call
(`::ea::f`, so a parameter named like the function cannot hide it), binds every collapsed length to a local of its own name before
a `cap` uses it, and throws `std::invalid_argument` (naming the parameter)
when a span the kernel indexes by its loop variable (metadata `min_lengths`)
is shorter than the kernel's bound. Compiled below C++20 it stops with an
`#error` naming `-std=c++20`. `bool` outputs are
returned as `std::vector<uint8_t>` (`std::vector<bool>` has no `data()`)."""
from __future__ import annotations

from ..outputs.c_types import C_SCALARS
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
             f"{'[[nodiscard]] ' if ret != 'void' else ''}inline {ret} {ident(e.name)}({params}) {{"]
    def length(a: Arg, src: Arg) -> list[str]:
        c = types.c(a.type)
        return [f"const {c} {ident(a.name)} = static_cast<{c}>({ident(src.name)}.size());"]

    def alloc(a: Arg) -> list[str]:
        return [f"{types.vector(a)} {ident(a.name)}({_size(cap_expr(a.cap, ident))});"]

    def check(a: Arg, bound: Arg) -> list[str]:
        n = ident(bound.name)
        return [f"if (std::cmp_less({ident(a.name)}.size(), {n})) {{",
                f'    throw std::invalid_argument("{a.name}: expected at least " + std::to_string({n}) + '
                f'" elements ({bound.name} = " + std::to_string({n}) + "), got " + '
                f'std::to_string({ident(a.name)}.size()));',
                "}"]

    body = prologue_lines(e, length, alloc, check)
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
    headers = ("cstddef", "cstdint", "span", "stdexcept", "string", "tuple", "utility", "vector")
    out += [f"#include <{h}>" for h in headers]
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
    for e in api.exports:
        if any(a.is_pointer for a in e.args):
            out += _overload(e, types)
    out += ["} // namespace ea", "", "#endif"]
    return {f"{api.stem}.hpp": "\n".join(out) + "\n"}

