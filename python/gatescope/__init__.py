"""gatescope from Python: read traces (exact tiles, rows, pyramids, stats, compare, figures)
through the same C++ core as the CLI and the viewer, and run checkpoints on texts.

    import gatescope
    t = gatescope.open("run.h5")
    t.tile(0, 1, range(0, 512))          # exact attention of layer 0, head 1: float32 [512, 512]
    t.row(0, 1, 300).top_keys            # what token 300 reads most
    gatescope.trace("resources/models/fox", "some text", "fox.h5")   # loads LibTorch on first use

See docs/python.md.
"""

import os

from . import _core
from ._errors import Cancelled, Error, FormatError, IoError, MissingError, UsageError
from ._run import Progress, trace
from ._spans import index_list as _index_list
from ._trace import Row, Trace

__version__ = _core.version
git_revision = _core.git_revision

__all__ = [
    "open", "trace", "stats", "compare", "Trace", "Row", "Progress", "Error", "IoError",
    "FormatError", "MissingError", "UsageError", "Cancelled",
]


def open(path, cache_mb=64):
    """Opens the trace at ``path`` (read only, checked as every gatescope command checks it).
    ``cache_mb`` bounds the decoded blocks kept in memory. Raises :class:`gatescope.Error`
    (IoError for a missing file, FormatError for one that is not a valid trace) naming it."""
    return Trace(_core.open(os.fspath(path), int(cache_mb) << 20))


def _file(trace):
    return trace._f if isinstance(trace, Trace) else open(trace)._f


def stats(traces, *, attention=False, gates=True, layers=None, heads=None, bin_width=256,
          bins_per_octave=4, smooth=101, horizon_threshold=0.5, threads=0):
    """``gatescope stats TRACES --json`` as a dict: loss curves over the traces (documents of one
    model), and per trace its gate statistics and, with ``attention=True``, per-head attention
    statistics (exact; O(N^2) work). ``traces``: Trace objects or paths. Ctrl+C stops it."""
    if isinstance(traces, (Trace, str, os.PathLike)):
        traces = [traces]
    return _core.stats([_file(t) for t in traces], gates, attention,
                       _index_list(layers, "layers"), _index_list(heads, "heads"), bin_width,
                       bins_per_octave, smooth, horizon_threshold, threads)


def compare(a, b, *, attention=True, layers=None, heads=None, bin_width=256, bins_per_octave=4,
            threads=0):
    """``gatescope compare A B --json`` as a dict: the token alignment, the loss difference A - B
    by position bin, and per layer and head the gate differences and attention divergences (KL
    both ways, JS, total variation). ``a``, ``b``: Trace objects or paths. Ctrl+C stops it."""
    return _core.compare(_file(a), _file(b), attention, _index_list(layers, "layers"),
                         _index_list(heads, "heads"), bin_width, bins_per_octave, threads)
