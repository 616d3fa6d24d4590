"""`ea bind --cmake` (TOOLCHAIN.md §4.6) built and run with the real CMake: a C
project, a source in a subdirectory, `ea` off PATH (EaCompiler.cmake falls
back to the `ea` that generated it; a missing EA_COMPILER is a configure
error naming it), and the C++20 project of `--cpp --cmake` with its starter
main file."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"
EA = BIN / "ea"
EXAMPLES = ROOT / "examples"


def ea(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    proc = subprocess.run([str(EA), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"ea {' '.join(args)} failed:\n{proc.stderr}"
    return proc


MAIN_C = """\
#include <stdio.h>
#include "k.h"

int main(void) {
    float x[19], y[19];
    for (int i = 0; i < 19; i++) { x[i] = (float)i; y[i] = 0.25f * (float)i - 1.0f; }
    saxpy(x, y, 1.5f, 19);
    for (int i = 0; i < 19; i++) printf("%.2f\\n", y[i]);
    return 0;
}
"""

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                 reason="cmake and a C compiler are needed for the CMake binding test")


@needs_cmake
def test_cmake_project_builds_and_runs(tmp_path):
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path / "k.ea")
    (tmp_path / "main.c").write_text(MAIN_C)
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    proc = ea("bind", "k.ea", "--cmake", cwd=tmp_path, path=path)  # no .ea.json needed
    assert proc.stderr.splitlines() == ["wrote CMakeLists.txt", "wrote EaCompiler.cmake"]
    lists = (tmp_path / "CMakeLists.txt").read_text()
    for line in ("cmake_minimum_required(VERSION 3.16)", "project(k C)", "include(EaCompiler.cmake)",
                 "add_ea_kernel(k k.ea)", "add_executable(app main.c)", "target_link_libraries(app k m)"):
        assert line in lists.splitlines(), line
    helper = (tmp_path / "EaCompiler.cmake").read_text()
    assert f'find_program(EA_COMPILER ea HINTS "{BIN}")' in helper and "function(add_ea_kernel target source)" in helper

    def build() -> list[str]:
        env = dict(os.environ, PATH=path)
        for cmd in (["cmake", "-S", ".", "-B", "build"], ["cmake", "--build", "build"]):
            done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout}\n{done.stderr}"
        run = subprocess.run([str(tmp_path / "build" / "app")], capture_output=True, text=True, timeout=30)
        assert run.returncode == 0
        return run.stdout.split()

    assert build() == [f"{1.5 * i + 0.25 * i - 1.0:.2f}" for i in range(19)]
    assert (tmp_path / "build" / "k.h").is_file() and (tmp_path / "build" / "k.o").is_file()

    # the custom command depends on the source: an edited kernel is recompiled
    edited = (EXAMPLES / "saxpy.ea").read_text().replace("fma(a, x[i], y[i])", "fma(a, x[i], y[i]) - 1.0")
    edited = edited.replace("store(y, i, fma(va, load(x, i), load(y, i)))",
                            "store(y, i, fma(va, load(x, i), load(y, i)) .- splat(1.0))")
    assert edited.count("1.0") == 2
    (tmp_path / "k.ea").write_text(edited)
    os.utime(tmp_path / "k.ea", (os.path.getmtime(tmp_path / "build" / "k.o") + 5,) * 2)
    assert build() == [f"{1.5 * i + 0.25 * i - 2.0:.2f}" for i in range(19)]


@needs_cmake
def test_cmake_source_in_a_subdirectory(tmp_path):
    """`ea bind kernels/k.ea --cmake` names the source as seen from the generated CMakeLists.txt."""
    (tmp_path / "kernels").mkdir()
    shutil.copy(EXAMPLES / "dot.ea", tmp_path / "kernels" / "dot.ea")
    ea("bind", "kernels/dot.ea", "--cmake", cwd=tmp_path)
    lists = (tmp_path / "CMakeLists.txt").read_text().splitlines()
    assert "add_ea_kernel(dot kernels/dot.ea)" in lists and "project(dot C)" in lists
    (tmp_path / "main.c").write_text('#include <stdio.h>\n#include "dot.h"\nint main(void) {\n'
                                     "    float a[40], b[40];\n"
                                     "    for (int i = 0; i < 40; i++) { a[i] = 1.0f; b[i] = (float)i; }\n"
                                     '    printf("%.1f\\n", dot(a, b, 40));\n    return 0;\n}\n')
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for cmd in (["cmake", "-S", ".", "-B", "build"], ["cmake", "--build", "build"]):
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout}\n{done.stderr}"
    run = subprocess.run([str(tmp_path / "build" / "app")], capture_output=True, text=True, timeout=30)
    assert run.stdout.strip() == f"{sum(range(40)):.1f}"


@needs_cmake
def test_cmake_finds_the_generating_ea_off_path_and_names_EA_COMPILER_when_missing(tmp_path):
    """Without `ea` on PATH, EaCompiler.cmake uses the `ea` that generated it;
    an EA_COMPILER that does not exist is a configure error naming it."""
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path / "k.ea")
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    ea("bind", "k.ea", "--cmake", cwd=tmp_path)
    cmake_dir = str(Path(shutil.which("cmake")).parent)
    env = dict(os.environ, PATH=os.pathsep.join(p for p in (cmake_dir, "/usr/bin", "/bin")
                                                if not (Path(p) / "ea").exists()))
    for cmd in (["cmake", "-S", ".", "-B", "build"], ["cmake", "--build", "build"]):
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    assert f"EA_COMPILER:FILEPATH={EA}" in (tmp_path / "build" / "CMakeCache.txt").read_text()
    done = subprocess.run(["cmake", "-S", ".", "-B", "build2", "-DEA_COMPILER=/nonexistent/ea"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "EA_COMPILER: the Ea compiler `ea` was not found" in done.stderr


@needs_cmake
def test_cmake_with_cpp_is_a_cxx20_project_with_a_starter_main(tmp_path):
    """`ea bind k.ea --cpp --cmake`: project(k C CXX), main.cpp written once."""
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path / "k.ea")
    ea("k.ea", "--lib", cwd=tmp_path)
    proc = ea("bind", "k.ea", "--cpp", "--cmake", cwd=tmp_path)
    assert proc.stderr.splitlines() == ["wrote k.hpp", "wrote CMakeLists.txt", "wrote EaCompiler.cmake",
                                        "wrote main.cpp"]
    lists = (tmp_path / "CMakeLists.txt").read_text().splitlines()
    assert "project(k C CXX)" in lists and "add_executable(app main.cpp)" in lists
    (tmp_path / "main.cpp").write_text("#include <cstdio>\n#include <vector>\n#include \"k.hpp\"\n"
                                       "int main() {\n    std::vector<float> x(19, 2.0f), y(19, 1.0f);\n"
                                       "    ea::saxpy(x, y, 1.5f);\n    std::printf(\"%.2f\\n\", y[18]);\n}\n")
    again = ea("bind", "k.ea", "--cpp", "--cmake", cwd=tmp_path)
    assert "wrote main.cpp" not in again.stderr  # the user's main is never overwritten
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for cmd in (["cmake", "-S", ".", "-B", "build"], ["cmake", "--build", "build"]):
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout}\n{done.stderr}"
    run = subprocess.run([str(tmp_path / "build" / "app")], capture_output=True, text=True, timeout=30)
    assert run.stdout == "4.00\n"
