"""PyTorch bindings (`ea bind --pytorch`, TOOLCHAIN.md §4.5): `<stem>_torch.py`.

Per export a forward-only `torch.autograd.Function` and a wrapper calling
its `apply`. Unlike the reference generator, tensors are checked, never
converted: type, device (CPU), dtype, 1-D, contiguity and the extents
(metadata `extents`: the elements each tensor needs), with errors naming
the parameter; the docstring names the tensors whose extent is not provable.
Collapsed lengths are bound to locals before `cap` expressions use them and
may be given by keyword; constants a `cap` uses are defined. A mutable
tensor argument is written in place, as the NumPy binding writes its
arrays (`out=` style), and returned; allocated outputs are 64-byte aligned.
The generated module needs only ctypes, os and torch."""
from __future__ import annotations

import keyword

from . import library
from .ctypes_table import CTYPES, INT_CHECK, INT_RANGES, conversion, limit_lines
from .meta import Api, Arg, Export
from .plan import cap_constants, cap_expr, extent_expr, prologue_lines

LANGUAGE = "PyTorch"

TORCH_DTYPES = {"i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
                "u32": "uint32", "i64": "int64", "u64": "uint64", "f16": "float16", "f32": "float32",
                "f64": "float64", "bool": "bool"}
# names the generated functions use; parameters called so get a trailing "_"
RESERVED = frozenset({"ctx", "int", "float", "bool", "isinstance", "type", "tuple", "getattr",
                      "_ct", "_op", "_os", "_torch", "_Path", "_HERE", "_lib", "_tensor", "_structs",
                      "_at_least", "_empty", "_length", "_int", "_ptr", "_result", "_load_library",
                      "_require", "_max", "_wraps"})

_RUNTIME = '''

def _tensor(t, name, dtype, flat=True):
    """The checks every tensor argument gets; errors name the parameter."""
    if not isinstance(t, _torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"{name}: expected a CPU tensor, got {t.device}")
    if dtype is not None and t.dtype != dtype:
        raise TypeError(f"{name}: expected {dtype}, got {t.dtype}")
    if flat and t.dim() != 1:
        raise ValueError(f"{name}: expected a 1-D tensor, got shape {tuple(t.shape)}")
    if not t.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor; call .contiguous()")


def _structs(t, name, struct):
    """The number of `struct` records a tensor's bytes hold."""
    size = _ct.sizeof(struct)
    if t.numel() * t.element_size() % size:
        raise ValueError(f"{name}: {t.numel() * t.element_size()} bytes is not a whole number "
                         f"of {struct.__name__} records ({size} bytes each)")
    return t.numel() * t.element_size() // size


def _at_least(count, name, need, extent, cap=None):
    """The code may touch `need` elements of the tensor (`extent`): shorter is out of bounds."""
    if count < need:
        what = f"{need} element{'' if need == 1 else 's'}" + ("" if extent == str(need) else f" ({extent})")
        if cap is not None:
            raise ValueError(f"{name}: the kernel may write {what} but its cap ({cap}) allocates {count}")
        raise ValueError(f"{name}: needs at least {what}, got {count}")


_max = max  # for extents: a parameter may be called `max`


def _empty(shape, dtype):
    """An uninitialised output tensor whose data is 64-byte aligned (a cache
    line; the widest vector), so aligned and non-temporal stores take their fast path."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = 1
    for extent in shape:
        count *= max(extent, 0)
    size = dtype.itemsize
    raw = _torch.empty(count * size + 64, dtype=_torch.uint8)
    start = -raw.data_ptr() % 64
    return raw[start:start + count * size].view(dtype).view(shape)


'''
_PTR = '''

def _ptr(t, ctype):
    return _ct.cast(t.data_ptr(), _ct.POINTER(ctype))
'''


def generate(api: Api, source: str | None = None) -> dict[str, str]:
    return {f"{api.stem}_torch.py": module_text(api, source)}


def _py(name: str) -> str:
    """A Python identifier for an Eä name (keywords and generator names get a `_`)."""
    return f"{name}_" if keyword.iskeyword(name) or name in RESERVED else name


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _lib_attr(name: str) -> str:
    return f'getattr(_lib, "{name}")' if keyword.iskeyword(name) else f"_lib.{name}"


class _Gen:
    def __init__(self, api: Api, source: str | None):
        self.api = api
        self.structs = {s.name: s for s in api.structs}
        self.constants = cap_constants(api, source)
        self.source = source

    # -- types ---------------------------------------------------------------
    def ctype(self, t: str) -> str | None:
        """The ctypes spelling, or None for a type §4.1 passes as a 32-bit int."""
        if t.startswith("*"):
            p = Arg("_", t).pointee
            inner = "_ct.c_uint16" if p == "f16" else self.ctype(p)  # f16 data as its bits
            return f"_ct.POINTER({inner or '_ct.c_int32'})"
        if t in CTYPES:
            return CTYPES[t]
        return t if t in self.structs else None

    def unknown(self, t: str) -> bool:
        base = t
        while base.startswith("*"):
            base = Arg("_", base).pointee
        return base not in CTYPES and base not in self.structs and not (base == "f16" and base != t)

    def elem_ctype(self, a: Arg) -> str:
        return self.ctype(a.type)[len("_ct.POINTER("):-1]

    def struct_dtype(self, name: str) -> str | None:
        """The dtype of a struct whose fields all share one scalar type."""
        types = {t for _, t in self.structs[name].fields}
        if len(types) == 1 and (t := types.pop()) in TORCH_DTYPES:
            return f"_torch.{TORCH_DTYPES[t]}"
        return None

    def dtype(self, a: Arg) -> str | None:
        p = a.pointee
        if p.startswith("*"):  # `**T`: a tensor of addresses (`t.data_ptr()` of each)
            return "_torch.int64"
        if p in TORCH_DTYPES:
            return f"_torch.{TORCH_DTYPES[p]}"
        return self.struct_dtype(p) if p in self.structs else None

    def doc_type(self, a: Arg) -> str:
        if a.is_pointer:
            p = a.pointee
            if p.startswith("*"):
                return f"Tensor[int64: addresses of {p}]"
            return f"Tensor[{TORCH_DTYPES.get(p, 'int32' if p not in self.structs else p)}]"
        return self.annotation(a)

    @staticmethod
    def annotation(a: Arg) -> str:
        if a.is_pointer:
            return "_torch.Tensor"
        return conversion(a.type)

    # -- module --------------------------------------------------------------
    def module(self) -> str:
        api = self.api
        names = [_py(e.name) for e in api.exports]
        out = [f'"""{api.stem} \u2014 generated by ea bind (PyTorch)"""', "import ctypes as _ct",
               "import operator as _op", "import os as _os", "from pathlib import Path as _Path", "",
               "import torch as _torch", "", f"__all__ = {names!r}", _RUNTIME + INT_CHECK + _PTR,
               library.RUNTIME + library.REQUIRE, *library.loading_lines(api, self.source),
               *library.require_lines(api, self.source)]
        for s in api.structs:
            fields = ", ".join(f'("{n}", {self.ctype(t) or "_ct.c_int32"})' for n, t in s.fields)
            out += ["", f"class {s.name}(_ct.Structure):", f"    _fields_ = [{fields}]", ""]
        for name, value in self.constants.items():
            out.append(f"{name} = {value!r}  # constant used by a cap expression")
        used: set[str] = set()
        for e in api.exports:
            cls = "_" + _camel(e.name)
            while cls in used:
                cls += "_"
            used.add(cls)
            out += ["", "", *self.export(e, cls)]
        return "\n".join(out) + "\n"

    def export(self, e: Export, cls: str) -> list[str]:
        unknown = [f"{a.name}: {a.type}" for a in e.args if self.unknown(a.type)]
        if e.ret and self.unknown(e.ret):
            unknown.append(f"return: {e.ret}")
        fn = _lib_attr(e.name)
        lines = [f"# unknown types, passed as 32-bit int: {', '.join(unknown)}"] if unknown else []
        argtypes = ", ".join(self.ctype(a.type) or "_ct.c_int32" for a in e.args)
        restype = (self.ctype(e.ret) or "_ct.c_int32") if e.ret else "None"
        lines += [f"{fn}.argtypes = [{argtypes}]", f"{fn}.restype = {restype}", "", ""]
        lengths = [a for a in e.args if a.collapsed_from is not None]
        params = ", ".join(_py(a.name) for a in e.visible + lengths)
        lines += [f"class {cls}(_torch.autograd.Function):",
                  f'    """Forward-only autograd function of `{e.name}`."""', "",
                  "    @staticmethod", f"    def forward(ctx, {params}):" if params else "    def forward(ctx):"]
        body = self.forward_body(e, fn)
        lines += ["        " + line if line else "" for line in body]
        lines += ["", "    @staticmethod", "    def backward(ctx, *grads):",
                  '        raise NotImplementedError("forward-only \u2014 Ea kernels are not differentiable")',
                  "", ""]
        sig = ", ".join([f"{_py(a.name)}: {'_torch.Tensor' if a.is_pointer else self.annotation(a)}"
                         for a in e.visible] + (["*"] + [f"{_py(a.name)}: int | None = None" for a in lengths]
                                                if lengths else []))
        returned, doc_ret = self.returned(e)
        if not returned:
            ann = "None"
        elif returned == ["_result"]:  # the scalar return: a 0-d tensor (or the struct)
            ann = e.ret if e.ret in self.structs else "_torch.Tensor"
        else:
            ann = "_torch.Tensor" if len(returned) == 1 else "tuple[_torch.Tensor, ...]"
        doc_params = ", ".join(f"{a.name}: {self.doc_type(a)}" for a in e.visible)
        lines += [f"def {_py(e.name)}({sig}) -> {ann}:",
                  f'    """{e.name}({doc_params}) -> {doc_ret}', "",
                  f"    C signature: {e.signature()}", *(f"    {note}" for note in e.length_notes()), '    """',
                  f"    return {cls}.apply({params})"]
        return lines

    def returned(self, e: Export) -> tuple[list[str], str]:
        """What forward returns (local names) and its docstring spelling."""
        if e.outputs:
            names = [_py(a.name) for a in e.outputs]
            docs = [self.doc_type(a) for a in e.outputs]
        elif mutable := [a for a in e.args if a.is_pointer and a.mutable and a.visible]:
            names = [_py(a.name) for a in mutable]
            docs = [self.doc_type(a) for a in mutable]
        elif e.ret:
            t = e.ret
            doc = t if t in self.structs else f"Tensor[{TORCH_DTYPES.get(t, 'int32')}] (0-d)"
            return ["_result"], doc
        else:
            return [], "None"
        return names, docs[0] if len(docs) == 1 else f"tuple[{', '.join(docs)}]"

    def forward_body(self, e: Export, fn: str) -> list[str]:
        lines = []
        counts: dict[str, str] = {}  # pointer name -> its element count expression
        for a in e.visible:
            v = _py(a.name)
            if a.is_pointer:
                is_struct = a.pointee in self.structs
                lines.append(f'_tensor({v}, "{a.name}", {self.dtype(a)}{", flat=False" if is_struct else ""})')
                counts[a.name] = f'_structs({v}, "{a.name}", {a.pointee})' if is_struct else f"{v}.numel()"
            elif a.type in INT_RANGES:
                lo, hi = INT_RANGES[a.type]
                lines.append(f'{v} = _int({v}, "{a.name}", {lo}, {hi})')
            elif a.type in ("f32", "f64"):
                lines.append(f"{v} = float({v})")
            elif a.type == "bool":
                lines.append(f"{v} = bool({v})")
            elif a.type in self.structs:
                lines.append(f"{v} = {v} if isinstance({v}, {a.type}) else {a.type}(*{v})")
        for a in e.outputs:
            counts[a.name] = _cap_expr(a.cap, e)

        def length(a: Arg, src: Arg) -> list[str]:
            lo, hi = INT_RANGES[a.type]
            return [f'{_py(a.name)} = _length({counts[src.name]}, "{src.name}", {hi}) if {_py(a.name)} is None '
                    f'else _int({_py(a.name)}, "{a.name}", {lo}, {hi})']

        def alloc(a: Arg) -> list[str]:
            return [f"{_py(a.name)} = {self.allocation(a, e)}"]

        def check(a: Arg, extent) -> list[str]:
            cap = f", cap={a.cap!r}" if a.auto_out else ""
            return [f'_at_least({counts[a.name]}, "{a.name}", {extent_expr(extent, _py, "_max")}, '
                    f'{extent.text()!r}{cap})']

        def limit(a: Arg, lim) -> list[str]:
            return limit_lines(a, lim, _py)

        lines += prologue_lines(e, length, alloc, check, limit)  # every name bound before a cap uses it
        written = [_py(a.name) for a in e.args if a.is_pointer and a.mutable and a.visible]
        if written and self.returned(e)[0] == written:  # autograd accepts only returned dirty tensors
            lines.append(f"ctx.mark_dirty({', '.join(written)})  # the kernel writes them in place")
        call = []
        for a in e.args:
            v = _py(a.name)
            if a.is_pointer:
                call.append(f"_ptr({v}, {self.elem_ctype(a)})")
            elif a.type in CTYPES:
                call.append(f"{CTYPES[a.type]}({v})")
            elif a.type in self.structs:
                call.append(v)
            else:
                call.append(f"_ct.c_int32(int({v}))")
        returned, _ = self.returned(e)
        head = "_result = " if returned == ["_result"] else ""
        lines.append(f"{head}{fn}({', '.join(call)})")
        if returned == ["_result"]:
            if e.ret in self.structs:
                lines.append("return _result")
            else:
                lines.append(f"return _torch.tensor(_result, dtype=_torch.{TORCH_DTYPES.get(e.ret, 'int32')})")
        elif returned:
            lines.append(f"return {', '.join(returned)}")
        return lines

    def allocation(self, a: Arg, e: Export) -> str:
        cap = _cap_expr(a.cap, e)
        p = a.pointee
        if p in self.structs:
            fields = len(self.structs[p].fields)
            if (dt := self.struct_dtype(p)) is not None:
                return f"_empty(({cap}, {fields}), {dt})"
            return f"_empty({cap} * _ct.sizeof({p}), _torch.uint8)"
        return f"_empty({cap}, _torch.{TORCH_DTYPES.get(p, 'int32')})"


def _cap_expr(cap: str, e: Export) -> str:
    """The cap text as a Python int expression: parameters renamed like the
    wrapper's, `/` truncating like Eä's integer division."""
    ints = {a.name for a in e.args if a.type in INT_RANGES}
    names = {a.name for a in e.args}
    text = cap_expr(cap, lambda name: _py(name) if name in names else name)
    if cap.strip().isdigit() or cap.strip() in ints:
        return text.strip()
    return f"int({text.replace(' / ', ' // ')})"


def module_text(api: Api, source: str | None = None) -> str:
    return _Gen(api, source).module()
