"""gatescope.trace(): a checkpoint on a text or token ids, written as a trace by engine's trace
job (LibTorch, loaded on first call)."""

import collections
import os
import tempfile

import numpy as np

from ._spans import index_list

Progress = collections.namedtuple("Progress", "fraction stage tokens")
Progress.__doc__ = """A trace job's progress: fraction of the job in [0, 1], the stage
("loading", "layer 3/4", "pyramids", "writing"), tokens in the run."""


def _input_file(source, folder):
    """(path, kind) of what the job reads: a file as given, or the text or ids written to
    ``folder``."""
    if isinstance(source, os.PathLike):
        return os.fspath(source), "auto"
    if isinstance(source, str):
        path = os.path.join(folder, "input.txt")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(source)
        return path, "text"
    if isinstance(source, (bytes, bytearray)):
        path = os.path.join(folder, "input.txt")
        with open(path, "wb") as f:
            f.write(source)
        return path, "text"
    ids = np.asarray(source)
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError("token ids must be a non-empty 1-D sequence of integers")
    path = os.path.join(folder, "input.npy")
    np.save(path, ids.astype(np.int64, copy=False))
    return path, "npy"


def trace(model, input, out, *, device="cpu", dtype="float32", threads=0, layers=None,
          heads=None, range=None, documents=None, input_kind=None, tensor=None, factors=True,
          values=False, pyramids=True, pyramid_side=1024, compression="deflate",
          factors_f16=False, progress=None):
    """``gatescope trace``: runs the checkpoint folder ``model`` on ``input`` and writes the trace
    ``out``. Returns the outcome (what ``gatescope trace --json`` prints) as a dict.

    ``input``: a str (text, tokenized with the checkpoint's tokenizer), bytes (text), a sequence
    or 1-D array of token ids (used as given), or a ``pathlib.Path`` to a file as the CLI takes it
    (``input_kind``: auto, text, ids, npy, safetensors; ``tensor`` for safetensors). Texts and ids
    are written to a temporary file first, whose name the manifest then records (with the SHA-256
    of its bytes). ``device``: "cpu", "cuda" or "cuda:N"; ``dtype``: "float32" or "bfloat16".
    ``layers``, ``heads``: what to record and build pyramids for (None: all). ``range``: the
    tokens to keep (``slice(0, 4096)``, ``(a, b)``). ``documents``: the CLI's --documents syntax.

    ``progress(p)`` is called on this thread with a :class:`Progress`. The job runs on a thread
    of its own without the GIL; Ctrl+C (KeyboardInterrupt), or an exception raised by
    ``progress``, cancels it and propagates, and no file is left at ``out``.
    """
    from . import _engine  # LibTorch: only now

    begin, end = 0, -1
    if range is not None:
        if isinstance(range, slice):
            begin, end = range.start or 0, -1 if range.stop is None else range.stop
        else:
            begin, end = range
            end = -1 if end is None else end
    callback = None if progress is None else (lambda f, s, t: progress(Progress(f, s, t)))
    with tempfile.TemporaryDirectory(prefix="gatescope-input-") as folder:
        path, kind = _input_file(input, folder)
        options = {
            "model_dir": os.fspath(model), "input": path, "input_kind": input_kind or kind,
            "tensor": tensor or "", "begin": int(begin), "end": int(end), "out": os.fspath(out),
            "device": device, "dtype": dtype, "threads": int(threads),
            "layers": index_list(layers, "layers"), "heads": index_list(heads, "heads"),
            "store_factors": bool(factors), "store_values": bool(values),
            "pyramids": bool(pyramids), "pyramid_side": int(pyramid_side),
            "compression": compression, "factors_f16": bool(factors_f16),
            "documents": documents or "",
        }
        return _engine.run_trace(options, callback)
