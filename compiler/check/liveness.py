"""Which items are compiled for the target (LANGUAGE.md §3.6): the one place
that reads `#[cfg]`.

`#[cfg(x86_64)]` / `#[cfg(aarch64)]` before a function (`func`, exported or
not) keeps it only when compiling for that architecture. The attribute is
parsed but ignored on kernels, structs, consts and static_asserts: they are
compiled for every target, and a warning (`cfg-ignored`) says so.

Every stage asks `Liveness` (through `Analysis.is_live` and
`Analysis.live_functions`): the checker (which variant a call reaches, which
target a function is checked for, which same-named functions collide), the
lints, codegen, inspect, the loader, `ea tune` and the language server and
TUI. The header and the `.ea.json` metadata are the exception the toolchain
spec makes: they list every item, both variants of a function included
(TOOLCHAIN.md §1.2, §2).

The rule applies to the tree as written (`Analysis.ast`: `Func`, `Kernel`)
and to the desugared one (a function made from a kernel has `origin` set).
"""
from __future__ import annotations

import dataclasses

from ..diagnostics import DiagnosticSink, Suggestion
from ..options import Options
from ..syntax import ast as A

_ARCH_TRIPLE = {"aarch64": "aarch64-unknown-linux-gnu", "x86_64": "x86_64-unknown-linux-gnu"}
_KIND = {A.Kernel: "kernel", A.StructDecl: "struct", A.ConstDecl: "const", A.StaticAssert: "static_assert"}


def _restriction(item) -> str | None:
    """The one architecture `item` is compiled for, or None for every one."""
    if isinstance(item, A.Func) and item.origin is None and item.cfg is not None:
        return item.cfg.target
    return None


class Liveness:
    """The decision for one target (`options`)."""

    def __init__(self, options: Options):
        self.options = options
        self.arch = options.arch  # "x86_64" or "aarch64"

    def is_live(self, item) -> bool:
        """`item` is compiled for the target (and is in its object code, if it is a function)."""
        return self.compiled_for(item, self.arch)

    @staticmethod
    def compiled_for(item, arch: str) -> bool:
        """`item` is compiled when the target's architecture is `arch`."""
        return _restriction(item) in (None, arch)

    def arch_of(self, item) -> str:
        """The architecture `item` is checked for: its `#[cfg]`'s, or the target's."""
        return _restriction(item) or self.arch

    def options_of(self, item) -> Options:
        """The options `item` is checked with: the target's, or, for a
        function of the other architecture, a generic CPU of that one."""
        arch = self.arch_of(item)
        if arch == self.arch:
            return self.options
        return dataclasses.replace(self.options, target_triple=_ARCH_TRIPLE[arch], target_cpu="generic")

    @staticmethod
    def may_share_name(a, b) -> bool:
        """Two functions may have one name only when no target compiles both
        (opposite `#[cfg]`s)."""
        ra, rb = _restriction(a), _restriction(b)
        return ra is not None and rb is not None and ra != rb

    @staticmethod
    def warn_ignored(program: A.Program, sink: DiagnosticSink) -> None:
        """`cfg-ignored` on every `#[cfg]` that has no effect (the reference
        compiler accepts them silently, so this is a warning, not an error)."""
        for item in program.items:
            written = item.origin if isinstance(item, A.Func) else item  # a kernel, as written
            if written is None or written.cfg is None or type(written) not in _KIND:
                continue
            cfg, what = written.cfg, _KIND[type(written)]
            attribute = f"#[cfg({cfg.target})]"
            sink.warning("type", "cfg-ignored",
                         f"'{attribute}' is ignored on a {what}: only a function can be limited to one "
                         f"architecture, so this {what} is kept for every target", cfg.span,
                         suggestions=[Suggestion(cfg.span.to(written.span.at_start()), "", "remove the attribute")])
