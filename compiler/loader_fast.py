"""Fast calls for `load()`: for each export whose arguments are 1-D NumPy
arrays of a numeric dtype, collapsed lengths and int/float scalars, an entry
point that LLVM emits as a CPython METH_FASTCALL|METH_KEYWORDS function
(`PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
PyObject *kwnames)`), JIT-compiled beside the kernels and wrapped with
`PyCFunction_NewEx`; no C compiler is involved.

The entry point checks what the generated binding checks, reading the
ndarray's public struct (`PyArrayObject_fields`): the exact type ndarray,
the dtype (the canonical descriptor of its element type), one dimension,
the C-contiguous, aligned and (for arrays the kernel writes) writeable
flags, integer ranges, the extents (`extents`: each polynomial computed
in i64, an overflow taking the slow path) and the index limits. Arguments
may be positional or named. Whenever a check does not pass, a keyword
names no parameter or the argument count differs (a keyword-only length
given explicitly, for one), it calls the generated binding's function
(through `self`) with the same arguments: that function raises the error,
with the same type and message as without the fast path, or runs the call
when only the fast path's stricter test failed (an ndarray subclass, an
equal but not canonical dtype, an unaligned array, a NumPy scalar). Calls
on large arrays release the GIL, as ctypes does.

Structs, auto-allocated outputs, bool scalars and the `_parallel` variants
keep the binding's ctypes path."""
from __future__ import annotations

import ctypes
import hashlib
import inspect
import os
import re
import types

import numpy as np

from .bind.ctypes_table import INT_RANGES
from .bind.meta import NUMPY_DTYPES, Export
from .bind.python import py

# NumPy's PyArrayObject_fields (stable across NumPy 1.x and 2.x), checked on import by _layout_ok
_TYPE, _DATA, _NDIM, _DIMS, _DESCR, _FLAGS = 8, 16, 24, 32, 56, 64
_C_CONTIGUOUS, _ALIGNED, _WRITEABLE = 0x1, 0x100, 0x400
_METH_FASTCALL_KEYWORDS = 0x80 | 0x2
RELEASE_GIL_AT = 16384  # elements of the first array: below, releasing costs more than it frees

# Eä scalar types as the C ABI passes them (also bench/native_repeat.py's calls)
IR_SCALARS = {"f32": "float", "f64": "double", "i8": "i8", "u8": "i8", "i16": "i16", "u16": "i16",
              "i32": "i32", "u32": "i32", "i64": "i64", "u64": "i64"}
_RANGES = {t: INT_RANGES[t] for t in ("i8", "u8", "i16", "u16", "i32", "u32")}  # narrower than i64
_API = ("PyObject_Vectorcall", "PyFloat_AsDouble", "PyFloat_FromDouble", "PyLong_AsLongLong",
        "PyLong_AsUnsignedLongLong", "PyLong_FromLongLong", "PyLong_FromUnsignedLongLong", "PyErr_Occurred",
        "PyErr_Clear", "Py_IncRef", "PyEval_SaveThread", "PyEval_RestoreThread", "PyTuple_Size",
        "PyTuple_GetItem", "PyUnicode_CompareWithASCIIString")


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p), ("ml_flags", ctypes.c_int),
                ("ml_doc", ctypes.c_char_p)]


_new_function = ctypes.pythonapi.PyCFunction_NewEx
_new_function.restype = ctypes.py_object
_new_function.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def _address(name: str) -> int:
    return ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value


def _layout_ok() -> bool:
    """The offsets above describe this process's CPython and NumPy (a
    free-threaded CPython, for one, has a larger object header)."""
    a = np.arange(3, dtype=np.float32)
    b = a[::2]
    b.flags.writeable = False

    def at(obj, offset, kind=ctypes.c_void_p):
        return kind.from_address(id(obj) + offset).value

    return (at(a, _TYPE) == id(np.ndarray) and at(a, _DATA) == a.ctypes.data and at(a, _NDIM, ctypes.c_int) == 1
            and ctypes.c_int64.from_address(at(a, _DIMS)).value == 3 and at(a, _DESCR) == id(a.dtype)
            and at(a, _FLAGS, ctypes.c_int) & 0x501 == 0x501 and at(b, _FLAGS, ctypes.c_int) & 0x401 == 0
            and ctypes.c_int64.from_address(at(b, _DIMS)).value == 2)


LAYOUT_OK = _layout_ok()


def eligible(e: Export) -> bool:
    """Whether `e` gets an entry point: every argument an array of a numeric
    dtype (not allocated by the wrapper), a collapsed length or an int/float scalar."""
    if e.ret is not None and e.ret not in IR_SCALARS:
        return False
    for a in e.args:
        if a.is_pointer and (a.auto_out or a.pointee not in NUMPY_DTYPES):
            return False
        if not a.is_pointer and a.type not in IR_SCALARS:
            return False
    return True


TABLE = "__ea_fastcall_table"
_SLOT = re.compile(r"<<(ptr|i64) ([^>]+)>>")


def _slot(key: str, kind: str = "ptr") -> str:
    """A process-specific address (`api:Name`, `kernel:name`, `object:ndarray`,
    `dtype:float32`) as a placeholder: `with_table` turns it into a load from
    the table the loader fills, so the compiled entry points can be cached."""
    return f"<<{kind} {key}>>"


def with_table(lines: list[str]) -> tuple[str, list[str]]:
    """(IR text, table keys): each placeholder read from `@__ea_fastcall_table`
    by a load inserted before the instruction using it."""
    keys: list[str] = []
    out: list[str] = []
    n = 0
    for line in lines:
        for kind, key in _SLOT.findall(line):
            if key not in keys:
                keys.append(key)
            n += 1
            out.append(f"  %s{n} = load {kind}, ptr getelementptr (i64, ptr @{TABLE}, i64 {keys.index(key)})")
            line = line.replace(f"<<{kind} {key}>>", f"%s{n}", 1)
        out.append(line)
    out.append(f"@{TABLE} = global [{len(keys)} x i64] zeroinitializer")
    return "\n".join(out) + "\n", keys


def resolve(key: str, engine) -> int:
    """The address a table key stands for in this process."""
    kind, name = key.split(":", 1)
    if kind == "api":
        return _address(name)
    if kind == "kernel":
        return engine.get_function_address(name)
    if kind == "dtype":
        return id(np.dtype(name))  # NumPy's builtin descriptors live as long as NumPy
    return id({"ndarray": np.ndarray, "float": float, "int": int, "None": None}[name])


def abi_extension(t: str) -> str:
    """The C ABI's attribute for an 8- or 16-bit argument: the caller extends it."""
    return "" if t.startswith("*") or IR_SCALARS[t] not in ("i8", "i16") else \
        (" signext" if t[0] == "i" else " zeroext")


class _Emitter:
    """The IR of one entry point: straight-line checks, each branching to the
    `slow` block (the binding's function) when it does not pass."""

    def __init__(self, e: Export):
        self.e, self.lines, self.n = e, [], 0
        self.names: list[str] = []  # keyword names looked up, as IR constants
        self.api = {name: _slot(f"api:{name}") for name in _API}

    def tmp(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append(f"  {line}")

    def check(self, cond: str) -> None:
        """Continue when `cond` (an i1) holds, else take the slow path."""
        self.n += 1
        label = f"ok{self.n}"
        self.emit(f"br i1 {cond}, label %{label}, label %slow")
        self.lines.append(f"{label}:")

    def load(self, base: str, offset: int, kind: str) -> str:
        at, value = self.tmp(), self.tmp()
        self.emit(f"{at} = getelementptr i8, ptr {base}, i64 {offset}")
        self.emit(f"{value} = load {kind}, ptr {at}")
        return value

    def call(self, name: str, ret: str, args: str) -> str:
        value = self.tmp()
        self.emit(f"{value} = call {ret} {self.api[name]}({args})")
        return value

    def array(self, obj: str, pointee: str, writes: bool) -> tuple[str, str]:
        """(data pointer, element count) of an ndarray that passes the binding's checks."""
        kind = self.load(obj, _TYPE, "i64")
        same = self.tmp()
        self.emit(f"{same} = icmp eq i64 {kind}, {_slot('object:ndarray', 'i64')}")
        self.check(same)
        descr, ndim, flags = self.load(obj, _DESCR, "i64"), self.load(obj, _NDIM, "i32"), self.load(obj, _FLAGS, "i32")
        mask = _C_CONTIGUOUS | _ALIGNED | (_WRITEABLE if writes else 0)
        ok1, ok2, masked, ok3, ok = (self.tmp() for _ in range(5))
        self.emit(f"{ok1} = icmp eq i64 {descr}, {_slot('dtype:' + NUMPY_DTYPES[pointee], 'i64')}")
        self.emit(f"{ok2} = icmp eq i32 {ndim}, 1")
        self.emit(f"{masked} = and i32 {flags}, {mask}")
        self.emit(f"{ok3} = icmp eq i32 {masked}, {mask}")
        self.emit(f"{ok} = and i1 {ok1}, {ok2}")
        both = self.tmp()
        self.emit(f"{both} = and i1 {ok}, {ok3}")
        self.check(both)
        dims = self.load(obj, _DIMS, "ptr")
        return self.load(obj, _DATA, "ptr"), self.load(dims, 0, "i64")

    def scalar(self, obj: str, t: str) -> str:
        """The value of an exact float (f32/f64) or int in the type's range."""
        kind = self.load(obj, _TYPE, "i64")
        same = self.tmp()
        self.emit(f"{same} = icmp eq i64 {kind}, {_slot('object:float' if t[0] == 'f' else 'object:int', 'i64')}")
        self.check(same)
        if t[0] == "f":
            value = self.call("PyFloat_AsDouble", "double", f"ptr {obj}")
            if t == "f32":
                narrow = self.tmp()
                self.emit(f"{narrow} = fptrunc double {value} to float")
                return narrow
            return value
        reader = "PyLong_AsUnsignedLongLong" if t == "u64" else "PyLong_AsLongLong"
        value = self.call(reader, "i64", f"ptr {obj}")
        failed, error, raised, fine = self.tmp(), self.tmp(), self.tmp(), self.tmp()
        self.emit(f"{failed} = icmp eq i64 {value}, -1")
        self.emit(f"{error} = call ptr {self.api['PyErr_Occurred']}()")
        self.emit(f"{raised} = icmp ne ptr {error}, null")
        self.emit(f"{fine} = and i1 {failed}, {raised}")
        self.n += 1
        clear, go = f"clear{self.n}", f"go{self.n}"
        self.emit(f"br i1 {fine}, label %{clear}, label %{go}")
        self.lines += [f"{clear}:", f"  call void {self.api['PyErr_Clear']}()", "  br label %slow", f"{go}:"]
        if t in _RANGES:
            lo, hi = _RANGES[t]
            low, high, inside, narrow = self.tmp(), self.tmp(), self.tmp(), self.tmp()
            self.emit(f"{low} = icmp sge i64 {value}, {lo}")
            self.emit(f"{high} = icmp sle i64 {value}, {hi}")
            self.emit(f"{inside} = and i1 {low}, {high}")
            self.check(inside)
            self.emit(f"{narrow} = trunc i64 {value} to {IR_SCALARS[t]}")
            return narrow
        return value

    def length(self, size: str, t: str) -> str:
        """A collapsed length: the array's element count, if it fits the type."""
        if t not in _RANGES:
            return size
        fits, narrow = self.tmp(), self.tmp()
        self.emit(f"{fits} = icmp sle i64 {size}, {_RANGES[t][1]}")
        self.check(fits)
        self.emit(f"{narrow} = trunc i64 {size} to i32")
        return narrow

    def function(self, symbol: str) -> list[str]:
        e = self.e
        visible = e.visible
        self.lines = [f"define ptr @{symbol}(ptr %self, ptr %args, i64 %nargs, ptr %kwnames) {{", "entry:"]
        self.argument_count()
        values: dict[str, tuple[str, str]] = {}  # name -> (IR type, value)
        sizes: dict[str, str] = {}
        for i, a in enumerate(visible):
            obj = self.argument(i, py(a.name))
            if a.is_pointer:
                data, sizes[a.name] = self.array(obj, a.pointee, a.mutable)
                values[a.name] = ("ptr", data)
            else:
                values[a.name] = (IR_SCALARS[a.type], self.scalar(obj, a.type))
        for a in e.args:
            if a.collapsed_from is not None:
                values[a.name] = (IR_SCALARS[a.type], self.length(sizes[a.collapsed_from], a.type))
        wide: dict[str, str] = {}
        for name, extent in e.extents.items():
            for poly in extent.alternatives:  # size >= each of them (and so their maximum)
                need, enough = self.polynomial(poly, values, wide), self.tmp()
                self.emit(f"{enough} = icmp sge i64 {sizes[name]}, {need}")
                self.check(enough)
        # Each limit once (pointers share them): in its type (outputs/bounds/limits.py), past it the binding raises.
        for lim in dict.fromkeys(lim for found in e.index_limits.values() for lim in found):
            value, kept = self.polynomial(lim.index, values, wide), self.tmp()
            if lim.below:
                self.emit(f"{kept} = icmp sge i64 {value}, {max(lim.most, -(1 << 63))}")
            else:
                self.emit(f"{kept} = icmp sle i64 {value}, {min(lim.most, (1 << 63) - 1)}")
            self.check(kept)
        self.release(sizes[next(a.name for a in e.args if a.is_pointer)] if sizes else None)
        ret = IR_SCALARS[e.ret] if e.ret else "void"
        call_args = ", ".join(f"{values[a.name][0]}{abi_extension(a.type)} {values[a.name][1]}" for a in e.args)
        result = self.tmp() if e.ret else None
        self.emit(f"{result + ' = ' if result else ''}call {ret} {_slot('kernel:' + e.name)}({call_args})")
        self.reacquire()
        self.emit(f"ret ptr {self.box(result)}")
        self.lines += ["slow:", f"  %r = call ptr {self.api['PyObject_Vectorcall']}"
                                "(ptr %self, ptr %args, i64 %nargs, ptr %kwnames)", "  ret ptr %r", "}"]
        for k, name in enumerate(self.names):
            data = name.encode() + b"\0"
            self.lines.append(f"@__ea_name_{e.name}_{k} = private constant [{len(data)} x i8] c\"{name}\\00\"")
        return self.lines

    def polynomial(self, poly, values: dict[str, tuple[str, str]], wide: dict[str, str]) -> str:
        """The value of `poly` in i64; an overflow takes the slow path (where
        Python's integers are exact)."""
        total = None
        for monomial, coef in poly.ordered():
            term = str(coef)
            for name in monomial:
                term = self.overflowing("smul", term, self.wide(name, values, wide)) if term != "1" \
                    else self.wide(name, values, wide)
            total = term if total is None else self.overflowing("sadd", total, term)
        return total if total is not None else "0"

    def wide(self, name: str, values: dict[str, tuple[str, str]], cache: dict[str, str]) -> str:
        """An integer argument as an i64 (a u64 above the i64 range takes the slow path)."""
        if name not in cache:
            kind, value = values[name]
            t = next(a.type for a in self.e.args if a.name == name)
            if kind == "i64":
                if t == "u64":
                    fits = self.tmp()
                    self.emit(f"{fits} = icmp sge i64 {value}, 0")
                    self.check(fits)
                cache[name] = value
            else:
                cache[name] = self.tmp()
                self.emit(f"{cache[name]} = {'sext' if t[0] == 'i' else 'zext'} {kind} {value} to i64")
        return cache[name]

    def overflowing(self, op: str, a: str, b: str) -> str:
        pair, flag, fine, result = self.tmp(), self.tmp(), self.tmp(), self.tmp()
        self.emit(f"{pair} = call {{i64, i1}} @llvm.{op}.with.overflow.i64(i64 {a}, i64 {b})")
        self.emit(f"{flag} = extractvalue {{i64, i1}} {pair}, 1")
        self.emit(f"{fine} = xor i1 {flag}, true")
        self.check(fine)
        self.emit(f"{result} = extractvalue {{i64, i1}} {pair}, 0")
        return result

    def argument_count(self) -> None:
        """Positional and keyword arguments together are as many as the
        visible parameters (so a keyword-only length given takes the slow path)."""
        self.emit("%named = icmp ne ptr %kwnames, null")
        self.emit("br i1 %named, label %keywords, label %positional")
        self.lines += ["keywords:", f"  %kwcount = call i64 {self.api['PyTuple_Size']}(ptr %kwnames)",
                       "  br label %positional", "positional:",
                       "  %nkw = phi i64 [ %kwcount, %keywords ], [ 0, %entry ]"]
        total, same = self.tmp(), self.tmp()
        self.emit(f"{total} = add i64 %nargs, %nkw")
        self.emit(f"{same} = icmp eq i64 {total}, {len(self.e.visible)}")
        self.check(same)

    def argument(self, i: int, name: str) -> str:
        """The object passed for visible parameter `i`: positional, or the
        keyword `name`; each keyword then names a distinct parameter at or
        after `nargs`, as the counts are equal (a keyword naming a positional
        parameter or no parameter leaves one unfound: the slow path)."""
        self.n += 1
        pos, kw, join = f"pos{self.n}", f"kw{self.n}", f"arg{self.n}"
        self.emit(f"%p{self.n} = icmp slt i64 {i}, %nargs")
        self.emit(f"br i1 %p{self.n}, label %{pos}, label %{kw}")
        self.lines.append(f"{pos}:")
        given = self.load("%args", 8 * i, "ptr")
        self.emit(f"br label %{join}")
        self.lines.append(f"{kw}:")
        found, ok = self.tmp(), self.tmp()
        self.names.append(name)
        self.emit(f"{found} = call ptr @__ea_keyword(ptr %args, i64 %nargs, ptr %kwnames, i64 %nkw, "
                  f"ptr @__ea_name_{self.e.name}_{len(self.names) - 1})")
        self.emit(f"{ok} = icmp ne ptr {found}, null")
        self.emit(f"br i1 {ok}, label %{join}, label %slow")
        obj = self.tmp()
        self.lines += [f"{join}:", f"  {obj} = phi ptr [ {given}, %{pos} ], [ {found}, %{kw} ]"]
        return obj

    def release(self, size: str | None) -> None:
        """Release the GIL around the kernel when the first array is large."""
        self.big = None
        if size is None:
            return
        self.big = self.tmp()
        self.emit(f"{self.big} = icmp sge i64 {size}, {RELEASE_GIL_AT}")
        self.emit(f"br i1 {self.big}, label %unlock, label %run")
        self.lines += ["unlock:", f"  %state = call ptr {self.api['PyEval_SaveThread']}()", "  br label %run",
                       "run:", "  %saved = phi ptr [ %state, %unlock ], [ null, %" + self.previous() + " ]"]

    def previous(self) -> str:
        """The label of the block before `unlock` (the last one opened)."""
        return next(line[:-1] for line in reversed(self.lines) if line.endswith(":") and line != "unlock:")

    def reacquire(self) -> None:
        if self.big is None:
            return
        self.emit(f"br i1 {self.big}, label %lock, label %done")
        self.lines += ["lock:", f"  call void {self.api['PyEval_RestoreThread']}(ptr %saved)",
                       "  br label %done", "done:"]

    def box(self, result: str | None) -> str:
        """The Python object returned: None, a float or an int (a new reference)."""
        e = self.e
        if result is None:
            self.emit(f"call void {self.api['Py_IncRef']}(ptr {_slot('object:None')})")
            return _slot('object:None')
        if e.ret[0] == "f":
            wide = result
            if e.ret == "f32":
                wide = self.tmp()
                self.emit(f"{wide} = fpext float {result} to double")
            return self.call("PyFloat_FromDouble", "ptr", f"double {wide}")
        wide = result
        if IR_SCALARS[e.ret] != "i64":
            wide = self.tmp()
            self.emit(f"{wide} = {'sext' if e.ret[0] == 'i' else 'zext'} {IR_SCALARS[e.ret]} {result} to i64")
        maker = "PyLong_FromLongLong" if e.ret[0] == "i" else "PyLong_FromUnsignedLongLong"
        return self.call(maker, "ptr", f"i64 {wide}")


def keyword_helper_ir() -> str:
    """`@__ea_keyword(args, nargs, kwnames, nkw, name)`: the object passed as
    keyword `name` (an ASCII C string), or null."""
    api = {name: _slot(f"api:{name}") for name in ("PyTuple_GetItem", "PyUnicode_CompareWithASCIIString")}
    return "\n".join([
        "define private ptr @__ea_keyword(ptr %args, i64 %nargs, ptr %kwnames, i64 %nkw, ptr %name) {",
        "entry:", "  br label %loop",
        "loop:", "  %j = phi i64 [ 0, %entry ], [ %next, %other ]",
        "  %more = icmp slt i64 %j, %nkw", "  br i1 %more, label %test, label %none",
        "test:", f"  %key = call ptr {api['PyTuple_GetItem']}(ptr %kwnames, i64 %j)",
        f"  %cmp = call i32 {api['PyUnicode_CompareWithASCIIString']}(ptr %key, ptr %name)",
        "  %equal = icmp eq i32 %cmp, 0", "  br i1 %equal, label %found, label %other",
        "found:", "  %at = add i64 %nargs, %j", "  %slot = getelementptr ptr, ptr %args, i64 %at",
        "  %value = load ptr, ptr %slot", "  ret ptr %value",
        "other:", "  %next = add i64 %j, 1", "  br label %loop",
        "none:", "  ret ptr null", "}", ""])


def module_ir(exports: list[Export]) -> tuple[str, list[str]]:
    """(IR text, table keys) of the entry points of `exports`, each named
    `__ea_fastcall_<name>`; the text has no process-specific address."""
    lines = keyword_helper_ir().split("\n") + [
        "declare {i64, i1} @llvm.smul.with.overflow.i64(i64, i64)",
        "declare {i64, i1} @llvm.sadd.with.overflow.i64(i64, i64)", ""]
    for e in exports:
        lines += _Emitter(e).function(f"__ea_fastcall_{e.name}")
    return with_table(lines)


def _text_signature(slow) -> str:
    """`name(x, y, a, *, n=None)`, which `inspect.signature` reads from a builtin's doc."""
    params = []
    star = False
    for p in inspect.signature(slow).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        params.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"{slow.__name__}({', '.join(params)})"


def make_function(address: int, slow, keepalive, module: str):
    """A builtin function calling the entry point at `address`, with the
    binding's function `slow` as the path every failed check takes, its
    signature and its docstring."""
    doc = f"{_text_signature(slow)}\n--\n\n{slow.__doc__ or ''}"
    method = _MethodDef(slow.__name__.encode(), address, _METH_FASTCALL_KEYWORDS, doc.encode())
    # `self` is a module (so the repr reads "built-in function") that calls `slow`
    # and keeps the definition and the JIT code alive as long as the function
    binding = type(slow.__name__, (types.ModuleType,), {"__call__": staticmethod(slow)})(module)
    binding.binding, binding.keepalive = slow, (method, keepalive)
    return _new_function(ctypes.addressof(method), binding, module)


def fast_functions(api, entry, engine, namespace: dict, lock, machine) -> dict:
    """Builtin functions for the eligible exports of `api`, by Python name,
    added to `engine` (whose kernels are finalized) as an object file cached
    in the cache folder `entry` (named by a hash of its IR) and built with
    the target machine `machine()` returns: the loader gives an -O0 one, as
    -O3 instruction selection took ~40 ms for a few entry points (the code
    is a chain of loads and compares either way)."""
    import llvmlite.binding as llvm
    if not LAYOUT_OK:
        return {}
    chosen = [e for e in api.exports if eligible(e)]
    if not chosen:
        return {}
    text, keys = module_ir(chosen)
    cached = entry / f"fastcall-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}.o"
    with lock:
        if cached.exists():
            code = cached.read_bytes()
        else:
            code = machine().emit_object(llvm.parse_assembly(text))
            partial = cached.with_name(f".{cached.name}.{os.getpid()}")
            try:
                partial.write_bytes(code)
                os.replace(partial, cached)  # atomic: processes loading at once see all of it or nothing
            except OSError:  # a read-only cache folder: compiled again by the next process
                partial.unlink(missing_ok=True)
        engine.add_object_file(llvm.ObjectFileRef.from_data(code))
        engine.finalize_object()
        table = (ctypes.c_uint64 * len(keys)).from_address(engine.get_global_value_address(TABLE))
        table[:] = [resolve(key, engine) for key in keys]
        addresses = [engine.get_function_address(f"__ea_fastcall_{e.name}") for e in chosen]
    return {py(e.name): make_function(address, namespace[py(e.name)], engine, namespace["__name__"])
            for e, address in zip(chosen, addresses)}
