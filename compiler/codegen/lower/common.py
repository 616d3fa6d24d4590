"""Helpers the intrinsic lowerings share: LLVM intrinsic declarations with
mangled names, and argument emission at the checked types."""
from __future__ import annotations

from typing import NoReturn

from llvmlite import ir

from ...typesys import model as T
from ..errors import CodegenError
from ..features import INTRINSIC_GROUP_FEATURE, cpu_label, x86_features


def mangle(t: ir.Type) -> str:
    """LLVM's overload suffix: float -> f32, <8 x float> -> v8f32, i32 -> i32."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{mangle(t.element)}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.PointerType):
        return "p0"
    raise TypeError(f"cannot mangle {t}")


def declare(em, name: str, ret: ir.Type, args: list[ir.Type], varargs: bool = False) -> ir.Function:
    """A function declaration in the module, created once."""
    module = em.module
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, args, var_arg=varargs), name=name)
    elif not fn.is_declaration:  # an exported user function has taken the C library's name
        call = em.calls[-1] if em.calls else None
        raise CodegenError(f"this needs the C library's '{name}', but the exported function '{name}' "
                           f"replaces it in this file; rename that function", call.span if call else None,
                           user=True)
    return fn


def call_intrinsic(em, base: str, overloads: list[ir.Type], ret: ir.Type, args: list[ir.Value],
                   fastmath: tuple[str, ...] = ()) -> ir.Value:
    """Call `<base>.<mangled overloads>` (e.g. llvm.fma.v8f32) with `args`."""
    if base.startswith("llvm.x86."):
        if em.options.is_arm:
            cannot_lower(em, "it needs an x86 instruction")
        require_x86(em, INTRINSIC_GROUP_FEATURE.get(base.split(".")[2], "sse2"))
    elif base.startswith("llvm.aarch64.") and not em.options.is_arm:
        cannot_lower(em, "it needs an AArch64 instruction")
    name = base + "".join("." + mangle(t) for t in overloads)
    fn = declare(em, name, ret, [a.type for a in args])
    return em.builder.call(fn, args, fastmath=fastmath)


def require_x86(em, feature: str) -> None:
    """Refuse, with the call's location, an instruction the CPU lacks."""
    options = em.options
    if feature in x86_features(options):
        return
    call = em.calls[-1] if em.calls else None
    name = call.name if call is not None else "this operation"
    raise CodegenError(f"{name} needs the {feature.upper()} instruction set, which {cpu_label(options)} "
                       f"does not have; choose a newer --target (e.g. --target=x86-64-v3) or another "
                       f"intrinsic", call.span if call is not None else None, user=True)


def cannot_lower(em, why: str) -> NoReturn:
    """Refuse, at the call, an intrinsic this target has no form of. The target
    rules admit only what has one, so this is the safety net LLVM is not:
    selecting another architecture's intrinsic aborts the process."""
    call = em.calls[-1] if em.calls else None
    name = call.name if call is not None else "this operation"
    arch = "AArch64" if em.options.is_arm else "x86-64"
    raise CodegenError(f"{name} cannot be compiled for {arch} here: {why}",
                       call.span if call is not None else None, user=True)


def elem_of(t: T.Type) -> T.Scalar:
    return t.elem if isinstance(t, T.Vector) else t


def const_int(value: int, bits: int = 32) -> ir.Constant:
    return ir.Constant(ir.IntType(bits), value)


def immediate(em, node) -> int:
    """An immediate operand's value: the checker has already proved it a
    compile-time integer in range (INTRINSICS.md §0.1), so evaluate it the
    same way, with the module's constants."""
    from ...check.consteval import evaluate
    return int(evaluate(node, em.module_emitter.const_values))


def splat_const(lt: ir.VectorType, value) -> ir.Constant:
    """A constant vector with every lane equal to `value`."""
    return ir.Constant(lt, [value] * lt.count)


def shuffle(em, a: ir.Value, b: ir.Value | None, indices: list[int]) -> ir.Value:
    """shufflevector with a constant mask; `b=None` means an undefined second operand."""
    second = b if b is not None else ir.Constant(a.type, ir.Undefined)
    mask = ir.Constant(ir.VectorType(ir.IntType(32), len(indices)), indices)
    return em.builder.shuffle_vector(a, second, mask)


def is_arm(em) -> bool:
    """The target is AArch64."""
    return em.options.is_arm


def element_address(em, ptr_node, index_node, elem: T.Type) -> ir.Value:
    """&p[i] in elements of p's pointee."""
    ptr = em.expr(ptr_node)
    return em.gep(ptr, [em.index64(index_node)], em.types(elem))
