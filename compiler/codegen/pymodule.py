"""The CPython entry point linked into a shared library (`ea k.ea --lib`),
so that `import k` beside `k.so` works: `k.so` is also an extension module.

`PyInit_<name>` uses multi-phase initialisation (PEP 489): it returns a
static `PyModuleDef` whose one `Py_mod_exec` slot compiles and runs the
Python binding `ea bind --python` generates (embedded as a constant, the
library opened through the module's `__file__`, which the importer sets
before the slot runs) in the new module's namespace, with `__builtins__` as
`exec` gives, so the module has the same functions as the generated `k.py`.

Every CPython symbol is declared `extern_weak`: in a Python process they
resolve to the interpreter's; a C, C++ or Rust program linking or loading
the library needs none of them (they stay null there, and nothing but
CPython's importer calls `PyInit_<name>`). The `PyModuleDef` layout is the
default CPython build's (3.5 and later); a free-threaded CPython, whose
object header is larger, is told so with an ImportError instead.

Only for ELF (Linux) targets: COFF and Mach-O have no weak undefined symbols
that behave this way."""
from __future__ import annotations

import re

import llvmlite.binding as llvm

from ..options import Options
from .target import init, triple

# Weak declarations: name -> IR signature (return type, parameter types).
_API = {
    "PyModuleDef_Init": ("ptr", "ptr"),
    "PyModule_GetDict": ("ptr", "ptr"),
    "PyEval_GetBuiltins": ("ptr", ""),
    "PyDict_SetItemString": ("i32", "ptr, ptr, ptr"),
    "Py_CompileString": ("ptr", "ptr, ptr, i32"),
    "PyEval_EvalCode": ("ptr", "ptr, ptr, ptr"),
    "Py_DecRef": ("void", "ptr"),
    "PyErr_SetString": ("void", "ptr, ptr"),
    # defined only by free-threaded builds (Py_DECREF calls it there)
    "_Py_DecRefShared": ("void", "ptr"),
}
_PY_FILE_INPUT = 257
_PY_MOD_EXEC = 2
_ESCAPE = re.compile(r'[^\x20-\x7e]|["\\]')
_IMMORTAL = 0xFFFFFFFF  # a static object's refcount: immortal from 3.12 on, merely large before


def supported(options: Options) -> bool:
    """Whether libraries for this target get the entry point (ELF only)."""
    return "linux" in triple(options)


def _bytes(text: str) -> tuple[str, int]:
    """An IR `c"..."` literal of `text` in UTF-8 with its NUL, and its length."""
    data = text.encode("utf-8") + b"\0"
    body = _ESCAPE.sub(lambda m: f"\\{ord(m.group()):02X}", data.decode("latin-1"))
    return f'c"{body}"', len(data)


def module_ir(name: str, binding: str, tr: str) -> str:
    """LLVM IR of `PyInit_<name>` running the Python text `binding`."""
    if not (name.isascii() and name.isidentifier()):
        raise ValueError(f"not a Python module name: {name!r}")
    lines = [f'target triple = "{tr}"', ""]
    for symbol, (ret, params) in _API.items():
        lines.append(f"declare extern_weak {ret} @{symbol}({params})")
    lines.append("@PyExc_ImportError = extern_weak global ptr")
    constants = {"name": name, "source": binding, "filename": f"<ea binding {name}>", "builtins": "__builtins__",
                 "threaded": f"{name}: the Ea library's extension entry point needs the default (GIL) CPython "
                             "build, not a free-threaded one; use the module `ea bind --python` writes"}
    for key, text in constants.items():
        literal, size = _bytes(text)
        lines.append(f"@ea.py.{key} = private unnamed_addr constant [{size} x i8] {literal}")
    lines += [
        f"@ea.py.slots = private global [2 x {{ i32, ptr }}] "
        f"[{{ i32, ptr }} {{ i32 {_PY_MOD_EXEC}, ptr @ea.py.exec }}, {{ i32, ptr }} zeroinitializer]",
        # PyModuleDef: m_base {ob_refcnt, ob_type, m_init, m_index, m_copy}, m_name, m_doc,
        # m_size, m_methods, m_slots, m_traverse, m_clear, m_free
        "@ea.py.def = private global { i64, ptr, ptr, i64, ptr, ptr, ptr, i64, ptr, ptr, ptr, ptr, ptr } "
        f"{{ i64 {_IMMORTAL}, ptr null, ptr null, i64 0, ptr null, ptr @ea.py.name, ptr null, i64 0, "
        "ptr null, ptr @ea.py.slots, ptr null, ptr null, ptr null }",
        "",
        f"define ptr @PyInit_{name}() {{",
        "  %threaded = icmp ne ptr @_Py_DecRefShared, null",
        "  br i1 %threaded, label %refuse, label %init",
        "init:",
        "  %def = call ptr @PyModuleDef_Init(ptr @ea.py.def)",
        "  ret ptr %def",
        "refuse:",
        "  %exc = load ptr, ptr @PyExc_ImportError",
        "  call void @PyErr_SetString(ptr %exc, ptr @ea.py.threaded)",
        "  ret ptr null",
        "}",
        "",
        "define private i32 @ea.py.exec(ptr %module) {",
        "  %dict = call ptr @PyModule_GetDict(ptr %module)",
        # as exec() does: the functions the binding defines look their builtins up there
        "  %builtins = call ptr @PyEval_GetBuiltins()",
        "  %set = call i32 @PyDict_SetItemString(ptr %dict, ptr @ea.py.builtins, ptr %builtins)",
        "  %not_set = icmp ne i32 %set, 0",
        "  br i1 %not_set, label %error, label %compile",
        "compile:",
        f"  %code = call ptr @Py_CompileString(ptr @ea.py.source, ptr @ea.py.filename, i32 {_PY_FILE_INPUT})",
        "  %no_code = icmp eq ptr %code, null",
        "  br i1 %no_code, label %error, label %run",
        "run:",
        "  %result = call ptr @PyEval_EvalCode(ptr %code, ptr %dict, ptr %dict)",
        "  call void @Py_DecRef(ptr %code)",
        "  %raised = icmp eq ptr %result, null",
        "  br i1 %raised, label %error, label %done",
        "done:",
        "  call void @Py_DecRef(ptr %result)",
        "  ret i32 0",
        "error:",
        "  ret i32 -1",
        "}",
    ]
    return "\n".join(lines) + "\n"


def module_object(name: str, binding: str, options: Options) -> bytes:
    """Object code of `module_ir` for the target of `options`: a generic CPU
    (it must run wherever the library does) and no optimisation (it runs once
    per import; -O2 instruction selection took ~10 ms of `ea k.ea --lib`)."""
    from . import LLVM_LOCK
    init()
    tr = triple(options)
    with LLVM_LOCK:
        module = llvm.parse_assembly(module_ir(name, binding, tr))
        module.verify()
        machine = llvm.Target.from_triple(tr).create_target_machine(
            cpu="generic", features="", opt=0, reloc="pic", codemodel="default")
        return machine.emit_object(module)
