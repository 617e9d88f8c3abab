"""Shared fixtures of the Python module's tests: the real CLI (GATESCOPE_CLI), the repository
(GATESCOPE_SOURCE_DIR), and small traces of every bundled sample model made by that CLI once per
build (GATESCOPE_TEST_DATA, atomic renames, so parallel ctest processes share them). Expected
values come from the CLI's output and from h5py reads of the files, never from the module."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

CLI = os.environ.get("GATESCOPE_CLI", "")
SOURCE = pathlib.Path(os.environ.get("GATESCOPE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
DATA_ROOT = pathlib.Path(os.environ.get("GATESCOPE_TEST_DATA", "/tmp/gatescope-python-tests"))
TEXT = SOURCE / "resources" / "samples" / "forgetting.txt"
ARCHS = ["fox", "transformer", "gated_fwa", "power", "gsa", "wall"]
N = 300  # not a multiple of the 256-cell tile


def run_cli(*args, check=True):
    """The CLI's CompletedProcess (text)."""
    assert CLI, "GATESCOPE_CLI names the gatescope binary"
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"gatescope {' '.join(map(str, args))}: {r.returncode}\n{r.stderr}")
    return r


def cli_json(*args):
    return json.loads(run_cli(*args).stdout)


def data_dir():
    """The traces of this CLI binary: a rebuilt CLI (another trace writer) makes new ones, and
    the folders of earlier binaries go."""
    stat = os.stat(CLI)
    folder = DATA_ROOT / f"cli-{stat.st_mtime_ns}-{stat.st_size}"
    if not folder.exists():
        for old in DATA_ROOT.glob("cli-*"):
            shutil.rmtree(old, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_trace(name, model, *extra):
    """A trace of the sample text by the CLI, made once per CLI binary."""
    folder = data_dir()
    out = folder / f"{name}.h5"
    if not out.exists():
        tmp = folder / f"{name}-{os.getpid()}.h5"
        run_cli("trace", "--model", SOURCE / "resources" / "models" / model, "--input", TEXT,
                "--out", tmp, *extra)
        os.replace(tmp, out)
    return str(out)


@pytest.fixture(scope="session")
def traces():
    """Architecture -> a 300-token trace of its bundled sample model."""
    return {arch: make_trace(f"{arch}-{N}", arch, "--range", f"0:{N}") for arch in ARCHS}


@pytest.fixture(scope="session")
def fox_full():
    """The bundled FoX on the whole sample text (1418 tokens)."""
    return make_trace("fox-full", "fox")


@pytest.fixture(scope="session")
def transformer_full():
    return make_trace("transformer-full", "transformer")
