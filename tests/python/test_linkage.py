"""The reading side links no LibTorch (and no Qt): `import gatescope` must work where only the
core's libraries are; LibTorch comes with gatescope._engine, Qt with gatescope._figures."""

import os
import pathlib
import subprocess
import sys

import pytest

import gatescope

PACKAGE = pathlib.Path(gatescope.__file__).parent


def linked(name):
    (module,) = PACKAGE.glob(f"{name}*.so")
    return subprocess.run(["ldd", module], capture_output=True, text=True, check=True).stdout


def test_core_links_no_torch_and_no_qt():
    for name in ("_core", "libgatescope_pycore"):
        libs = linked(name).lower()
        assert "torch" not in libs and "libc10" not in libs, libs
        assert "qt6" not in libs, libs
        assert "not found" not in libs, libs


def test_figures_link_qt_but_no_torch():
    libs = linked("_figures").lower()
    assert "qt6gui" in libs and "torch" not in libs


def test_engine_is_the_one_with_torch():
    assert "libtorch" in linked("_engine")


def test_import_loads_neither_torch_nor_qt():
    code = ("import gatescope, sys; maps = open('/proc/self/maps').read(); "
            "print('torch' in maps, 'Qt6' in maps)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["False", "False"]


def test_the_installed_package_imports_and_reads(tmp_path, traces):
    cmake, build = os.environ.get("CMAKE_COMMAND"), os.environ.get("GATESCOPE_BUILD_DIR")
    if not cmake or not build:
        pytest.skip("CMAKE_COMMAND and GATESCOPE_BUILD_DIR name the build (ctest sets them)")
    subprocess.run([cmake, "--install", build, "--component", "python", "--prefix", tmp_path],
                   capture_output=True, check=True)
    (site,) = tmp_path.glob("lib/python3*/*-packages")
    code = ("import gatescope, sys; t = gatescope.open(sys.argv[1]); "
            "print(gatescope.__file__, t.tile(0, 0, range(0, 8)).shape)")
    env = {**os.environ, "PYTHONPATH": str(site)}
    r = subprocess.run([sys.executable, "-c", code, traces["fox"]], capture_output=True,
                       text=True, env=env, check=True)
    assert r.stdout.startswith(str(site)) and "(8, 8)" in r.stdout
