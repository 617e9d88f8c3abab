"""The example of docs/python.md, run as written (from a folder that sees the repository's
resources/), so the documentation cannot drift from the module."""

import os
import re
import runpy

from conftest import SOURCE


def test_the_documented_example_runs(tmp_path, capsys):
    doc = (SOURCE / "docs" / "python.md").read_text()
    code = re.search(r"## Example.*?```python\n(.*?)```", doc, re.S).group(1)
    (tmp_path / "resources").symlink_to(SOURCE / "resources")
    (tmp_path / "example.py").write_text(code)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        runpy.run_path("example.py", run_name="__main__")
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "100% done" in out and "rows sum to 1: True" in out
    assert (tmp_path / "fox.h5").exists() and (tmp_path / "fox-map.svg").exists()
