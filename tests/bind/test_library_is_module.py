"""`ea k.ea --lib` writes `k.so` (TOOLCHAIN.md §1.2), which is also a CPython
extension module (`PyInit_k`, compiler/codegen/pymodule.py): build scripts
written for the reference compiler run unchanged, `import k` works beside it
with or without the `k.py` of `ea bind --python`, and C, C++ and Rust programs
link and load it without any Python symbol."""
from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from ea_compiler.build import python_entry, python_module_name
from ea_compiler.codegen.pymodule import module_object
from ea_compiler.options import Options

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
PYTHON = ROOT / ".venv" / "bin" / "python"
SAXPY = (ROOT / "examples" / "saxpy.ea").read_text()
CALL = ("import numpy as np, k\nx = np.arange(10, dtype=np.float32); y = np.ones(10, np.float32)\n"
        "k.saxpy(x, y, 2.0); print(k.__file__.rsplit('/', 1)[-1], y[:4].tolist())")


def run(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EA_LIBRARY_") and k != "PYTHONPATH"}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, env=dict(environ, **env))


def ok(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    done = run(cmd, cwd, **env)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "k.ea").write_text(SAXPY)
    return tmp_path


def test_reference_style_build_script(folder):
    """What the reference project's benchmark scripts do: `$EA_BINARY kernel.ea --lib`, then `./kernel.so`."""
    (folder / "kernel.ea").write_text(SAXPY)
    (folder / "bench.sh").write_text(
        'set -e\n"$EA_BINARY" kernel.ea --lib\n'
        '"$PYTHON" -c \'import ctypes, numpy as np\n'
        'lib = ctypes.CDLL("./kernel.so")\n'
        'x = np.arange(16, dtype=np.float32); y = np.ones(16, dtype=np.float32)\n'
        'p = ctypes.POINTER(ctypes.c_float)\n'
        'lib.saxpy(x.ctypes.data_as(p), y.ctypes.data_as(p), ctypes.c_float(2.0), ctypes.c_int32(16))\n'
        'print(y.tolist())\'\n')
    done = ok(["bash", "bench.sh"], folder, EA_BINARY=str(EA), PYTHON=str(PYTHON))
    assert done.stderr == "compiled kernel.ea -> kernel.so (shared library, 1 exported: saxpy)\nwrote kernel.ea.json\n"
    assert done.stdout == f"{[2.0 * i + 1 for i in range(16)]}\n"
    assert '"library": "kernel.so",' in (folder / "kernel.ea.json").read_text()


def test_lib_bind_import_in_one_folder(folder):
    done = ok(["bash", "-c", f'"{EA}" k.ea --lib && "{EA}" bind k.ea --python && "{PYTHON}" -c "$CALL"'],
              folder, CALL=CALL)
    assert done.stdout == "k.so [1.0, 3.0, 5.0, 7.0]\n"  # k.so itself is the module
    assert done.stderr == "compiled k.ea -> k.so (shared library, 1 exported: saxpy)\nwrote k.ea.json\nwrote k.py\n"


def test_import_without_the_generated_module(folder):
    ok([str(EA), "k.ea", "--lib"], folder)
    assert not (folder / "k.py").exists()
    assert ok([str(PYTHON), "-c", CALL], folder).stdout == "k.so [1.0, 3.0, 5.0, 7.0]\n"


def test_the_library_module_has_the_generated_module_s_functions(folder):
    """Same names, signatures, docstrings and checks as `k.py` (the very text it embeds)."""
    ok([str(EA), "k.ea", "--lib"], folder)
    ok([str(EA), "bind", "k.ea", "--python"], folder)
    code = ("import importlib.util as u, inspect, json, numpy as np, k\n"
            "s = u.spec_from_file_location('k_py', 'k.py'); p = u.module_from_spec(s); s.loader.exec_module(p)\n"
            "def info(m): return [(n, str(inspect.signature(getattr(m, n))), getattr(m, n).__doc__) "
            "for n in m.__all__]\n"
            "assert info(k) == info(p), (info(k), info(p))\n"
            "try: k.saxpy(np.ones(3, np.float64), np.ones(3, np.float32), 1.0)\n"
            "except TypeError as e: print(e)\n"
            "print(k.__all__, k._lib._name == p._lib._name)")
    assert ok([str(PYTHON), "-c", code], folder).stdout == (
        "x: expected float32, got float64\n['saxpy', 'saxpy_parallel'] True\n")


def test_library_under_another_name_and_names_python_cannot_import(folder):
    (folder / "out").mkdir()
    ok([str(EA), "k.ea", "--lib", "-o", "out/fast.so"], folder)  # imported as `fast`
    code = "import numpy as np, fast; y = np.ones(3, np.float32); fast.saxpy(np.ones(3, np.float32), y, 2.0); print(y)"
    assert ok([str(PYTHON), "-c", code], folder / "out").stdout == "[3. 3. 3.]\n"
    (folder / "my-kernel.ea").write_text(SAXPY)
    ok([str(EA), "my-kernel.ea", "--lib"], folder)
    symbols = ok(["nm", "-D", "--defined-only", "my-kernel.so"], folder).stdout
    assert [line.split()[-1] for line in symbols.splitlines()] == ["saxpy"]  # no PyInit_*
    assert [python_module_name(n) for n in ("k.so", "out/libk.so", "my-kernel.so", "k.dll", "1k.so")] == \
        ["k", "libk", None, None, None]
    windows = Options(target_triple="x86_64-pc-windows-gnu")
    assert python_entry('{"library": "k.dll", "exports": []}', None, "k.so", windows) is None


def test_the_loader_s_compiled_library_is_a_module_too(folder):
    code = ("import ea, numpy as np, sys; lib = ea.compile('k.ea'); sys.path.insert(0, str(lib.parent)); import k\n"
            "y = np.ones(2, np.float32); k.saxpy(np.ones(2, np.float32), y, 4.0); print(lib.name, k.__file__ == str(lib), y)")
    assert ok([str(PYTHON), "-c", code], folder).stdout == "k.so True [5. 5.]\n"


def test_an_export_named_like_the_entry_point_keeps_its_name(folder):
    (folder / "k.ea").write_text("export func PyInit_k() -> i32 { return 7 }\n")
    done = ok([str(EA), "k.ea", "--lib"], folder)
    assert done.stderr == ("warning: `import k` cannot load 'k.so': the library exports a function named PyInit_k "
                           "itself\ncompiled k.ea -> k.so (shared library, 1 exported: PyInit_k)\nwrote k.ea.json\n")
    code = "import ctypes; print(ctypes.CDLL('./k.so').PyInit_k())"
    assert ok([str(PYTHON), "-c", code], folder).stdout == "7\n"


def test_python_symbols_are_weak_and_c_links_without_them(folder):
    """gcc links k.so into a program and a program dlopen()s it with RTLD_NOW: no Python anywhere."""
    ok([str(EA), "k.ea", "--lib"], folder)
    undefined = ok(["nm", "-D", "--undefined-only", "k.so"], folder).stdout.splitlines()
    python = [line.split() for line in undefined if "Py" in line]
    assert python and all(kind == "w" for kind, _ in python), python
    (folder / "main.c").write_text(r"""#include <dlfcn.h>
#include <stdio.h>
void saxpy(const float*, float*, float, int);
int main(void) {
    float x[3] = {1, 2, 3}, y[3] = {1, 1, 1};
    saxpy(x, y, 2.0f, 3);
    void *h = dlopen("./k.so", RTLD_NOW | RTLD_LOCAL);
    typedef void (*saxpy_t)(const float*, float*, float, int);
    saxpy_t f = h ? (saxpy_t)dlsym(h, "saxpy") : 0;
    if (!f) { printf("dlopen: %s\n", dlerror()); return 1; }
    f(x, y, 1.0f, 3);
    printf("%g %g %g\n", y[0], y[1], y[2]);
    return 0;
}
""")
    ok(["gcc", "-Wall", "main.c", "-o", "main", "-L.", "-l:k.so", "-Wl,-rpath,$ORIGIN", "-Wl,-z,now", "-ldl"], folder)
    assert ok(["./main"], folder).stdout == "4 7 10\n"


@pytest.mark.skipif(not shutil.which("cmake") or not shutil.which("g++"), reason="needs cmake and g++")
def test_cmake_project_links_the_library(folder):
    """A C++ CMake project importing k.so as a shared library (and k.hpp from `ea bind --cpp`)."""
    ok([str(EA), "k.ea", "--lib"], folder)
    ok([str(EA), "bind", "k.ea", "--cpp"], folder)
    (folder / "main.cpp").write_text('#include <cstdio>\n#include <vector>\n#include "k.hpp"\n'
                                     "int main() { std::vector<float> x(9, 1.0f), y(9, 2.0f); ea::saxpy(x, y, 3.0f);"
                                     ' std::printf("%g %g\\n", y[0], y[8]); }\n')
    (folder / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(app CXX)\nset(CMAKE_CXX_STANDARD 20)\n"
        "add_library(k SHARED IMPORTED)\n"
        'set_target_properties(k PROPERTIES IMPORTED_LOCATION "${CMAKE_SOURCE_DIR}/k.so")\n'
        "add_executable(app main.cpp)\ntarget_include_directories(app PRIVATE ${CMAKE_SOURCE_DIR})\n"
        "target_link_libraries(app k)\n")
    ok(["cmake", "-S", ".", "-B", "build"], folder)
    ok(["cmake", "--build", "build"], folder)
    assert ok(["./build/app"], folder).stdout == "5 5\n"


# ---- the entry point against CPython's own headers ------------------------------------

FAKE_HOST = r"""#include <Python.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
/* The CPython functions PyInit_k calls, defined by this program (-rdynamic) so the
   library's weak references resolve to them; FREE_THREADED adds the symbol only a
   free-threaded CPython defines. */
PyObject *PyModuleDef_Init(PyModuleDef *def) { return (PyObject *)def; }
static const char *raised;
void PyErr_SetString(PyObject *type, const char *message) { raised = message; (void)type; }
PyObject *PyExc_ImportError = (PyObject *)&raised;
#ifdef FREE_THREADED
void _Py_DecRefShared(PyObject *op) { (void)op; }
#endif
int main(void) {
    void *h = dlopen("./k.so", RTLD_NOW);
    PyObject *(*init)(void) = h ? (PyObject *(*)(void))dlsym(h, "PyInit_k") : 0;
    if (!init) { printf("%s\n", dlerror()); return 1; }
    PyModuleDef *def = (PyModuleDef *)init();
    if (!def) { printf("refused: %s\n", raised); return 0; }
    printf("name=%s size=%zd methods=%p slot=%d next=%d exec=%s\n", def->m_name, def->m_size,
           (void *)def->m_methods, def->m_slots[0].slot, def->m_slots[1].slot,
           def->m_slots[0].value && !def->m_slots[1].value ? "set" : "missing");
    return 0;
}
"""


@pytest.mark.parametrize("threaded", [False, True], ids=["default-build", "free-threaded"])
def test_module_definition_matches_cpython_headers(folder, threaded):
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        pytest.skip(f"no Python.h in {include}")
    ok([str(EA), "k.ea", "--lib"], folder)
    (folder / "host.c").write_text(FAKE_HOST)
    ok(["gcc", "-rdynamic", f"-I{include}", *(["-DFREE_THREADED"] if threaded else []), "host.c", "-o", "host",
        "-ldl"], folder)
    out = ok(["./host"], folder).stdout
    if threaded:
        assert out == ("refused: k: the Ea library's extension entry point needs the default (GIL) CPython build, "
                       "not a free-threaded one; use the module `ea bind --python` writes\n")
    else:
        assert out == f"name=k size=0 methods={'(nil)'} slot=2 next=0 exec=set\n"


def test_entry_point_for_another_elf_target():
    obj = module_object("k", "x = 1\n", Options(target_triple="aarch64-unknown-linux-gnu"))
    assert obj[:4] == b"\x7fELF" and int.from_bytes(obj[18:20], "little") == 183  # EM_AARCH64
