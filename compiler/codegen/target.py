"""LLVM initialisation and the target machine for a set of Options
(TOOLCHAIN.md §1.3)."""
from __future__ import annotations

import functools

import llvmlite.binding as llvm

from ..cpu_levels import AVX512_FLAG, native_override
from ..options import Options

# Kernels must not call libc; the outliner makes listings hard to read.
_PROCESS_OPTIONS = ("-disable-loop-idiom-memset", "-disable-loop-idiom-memcpy",
                    "-enable-machine-outliner=never")


@functools.cache
def init() -> None:
    """Initialise LLVM once per process (targets, printers, options)."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    for opt in _PROCESS_OPTIONS:
        llvm.set_option("ea", opt)


def _host() -> tuple[str, str]:
    """What `native` means: the CPU `EA_HOST_CPU` names (its features implied
    by the name), else the host CPU's name and features."""
    named = native_override()
    return (named, "") if named is not None else _real_host()


@functools.cache
def _real_host() -> tuple[str, str]:
    """The host CPU's name and features: asked once (LLVM takes ~1 ms each time)."""
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def triple(options: Options) -> str:
    return options.target_triple or llvm.get_process_triple()


def cpu_and_features(options: Options) -> tuple[str, str]:
    """CPU name and feature string: `--target`, else generic when
    cross-compiling, else the host CPU and its features; flags appended."""
    init()
    features: list[str] = []
    if options.target_cpu and options.target_cpu != "native":
        cpu = options.target_cpu
    elif options.target_triple and options.target_triple != llvm.get_process_triple():
        cpu = "generic"
    else:
        cpu, host_features = _host()
        features.append(host_features)
    if options.is_arm:
        features.append("+neon")
    features.append(flag_features(options))
    return cpu, ",".join(f for f in features if f)


# The features worth naming in a one-line description, in display order.
_NAMED = (("avx2", "AVX2"), ("fma", "FMA"), ("avx512f", "AVX-512F"), ("avx512bw", "AVX-512BW"),
          ("avx512vl", "AVX-512VL"), ("avx512vnni", "AVX512-VNNI"), ("avxvnni", "AVX-VNNI"),
          ("avx512fp16", "AVX512-FP16"), ("neon", "NEON"), ("fullfp16", "FP16"), ("dotprod", "DotProd"),
          ("i8mm", "I8MM"))


def describe(options: Options) -> str:
    """What code is generated for, for people: `znver4 (x86_64-unknown-linux-gnu): AVX2, FMA, AVX-512F`.
    For a named CPU only the features the flags add are listed (the CPU implies the rest)."""
    cpu, features = cpu_and_features(options)
    enabled = {f[1:] for f in features.split(",") if f.startswith("+")}
    named = [label for name, label in _NAMED if name in enabled]
    return f"{cpu} ({triple(options)})" + (": " + ", ".join(named) if named else "")


def flag_features(options: Options) -> str:
    """The features the flags add (TOOLCHAIN.md §1.1's "extra feature string")."""
    features = []
    if options.avx512:
        features.append(",".join("+" + f for f in AVX512_FLAG))
    if options.is_arm:
        if options.fp16:
            features.append("+fullfp16")
        if options.dotprod:
            features.append("+dotprod")
        if options.i8mm:
            features.append("+i8mm")
    return ",".join(features)


@functools.lru_cache(maxsize=16)
def _machine(tr: str, cpu: str, features: str, opt: int) -> llvm.TargetMachine:
    target = llvm.Target.from_triple(tr)
    return target.create_target_machine(cpu=cpu, features=features, opt=opt, reloc="pic",
                                        codemodel="default")


def new_target_machine(options: Options) -> llvm.TargetMachine:
    """An uncached machine, for owners that free it (MCJIT engines)."""
    init()
    cpu, features = cpu_and_features(options)
    return llvm.Target.from_triple(triple(options)).create_target_machine(
        cpu=cpu, features=features, opt=options.opt_level, reloc="pic", codemodel="default")


def target_machine(options: Options) -> llvm.TargetMachine:
    init()
    cpu, features = cpu_and_features(options)
    return _machine(triple(options), cpu, features, options.opt_level)


def host_cpu_name() -> str:
    init()
    return _host()[0]
