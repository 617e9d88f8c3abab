"""gatescope.Trace: one trace file, read lazily through gatescope's C++ core."""

import dataclasses
import functools

import numpy as np

from ._errors import Error
from ._spans import span


@dataclasses.dataclass
class Row:
    """What one query token reads (:meth:`Trace.row`). Arrays have one entry per key
    ``0..query``; keys the layer does not allow (outside a window, in an earlier packed document)
    have attention 0, logit -inf and NaN content and forget."""

    layer: int
    head: int
    query: int
    attention: np.ndarray  #: float32, the exact attention weights
    logit: np.ndarray | None  #: float32 score before normalization; None for GSA
    content: np.ndarray | None  #: float64 score without any gate (scale q.k for softmax families)
    forget: np.ndarray | None  #: float64 what the decay adds (logit = content + forget); None ungated
    top_keys: np.ndarray  #: int64 keys of the largest weights, strongest first
    top_weights: np.ndarray  #: float32 their weights


class Trace:
    """An open trace. Create with :func:`gatescope.open`. Everything is read on first use and
    kept (per-token arrays, metadata); tiles and rows are computed on every call (the factors of
    the last few heads stay in memory). Methods may be called from several threads: each
    releases the GIL while it reads or computes. The file stays open until the object is closed
    (:meth:`close`, or ``with gatescope.open(...) as t``) or collected."""

    def __init__(self, file):
        self._file = file
        self._name = (file.path, file.model_type)

    # -- what the file is ----------------------------------------------------------------------
    @property
    def path(self):
        return self._f.path

    @property
    def n_tokens(self):
        return self._f.n_tokens

    def __len__(self):
        return self.n_tokens

    @property
    def model_type(self):
        return self._f.model_type

    @functools.cached_property
    def metadata(self):
        """``gatescope info --json`` without its manifest: path, format_version, model_type,
        n_tokens, compression, per_token and per layer its heads, factors and pyramids."""
        return self._f.summary()

    @functools.cached_property
    def manifest(self):
        """The provenance manifest (checkpoint, tokenizer, input, device, dtypes, build)."""
        return self._f.manifest()

    @property
    def layers(self):
        """Per recorded layer, its metadata dict (``index``, ``score_kind``, ``heads``, ...)."""
        return self.metadata.get("layers", [])

    def layer(self, index):
        """The metadata of layer ``index``; KeyError when it was not recorded."""
        for info in self.layers:
            if info["index"] == index:
                return info
        raise KeyError(f"layer {index} is not in {self.path}")

    def heads(self, layer):
        return self.layer(layer)["heads"]

    # -- per-token arrays ------------------------------------------------------------------------
    @functools.cached_property
    def _tokens(self):
        return self._f.tokens()

    @functools.cached_property
    def _per_token(self):
        return self._f.per_token()

    @property
    def token_ids(self):
        """int32 [N]."""
        return self._tokens["ids"]

    @property
    def token_text(self):
        """The decoded text of each token (list of str)."""
        return self._tokens["text"]

    @property
    def byte_offsets(self):
        """int64 [N, 2]: each token's [start, end) bytes in ``source_text.encode()``."""
        return self._tokens["byte_offsets"]

    @property
    def source_text(self):
        return self._tokens["source_text"]

    @property
    def loss(self):
        """float32 [N]: position i's cross entropy (nats) predicting token i + 1; NaN at the end."""
        return self._per_token["loss"]

    @property
    def rank(self):
        """int32 [N]: the rank of the target token among the logits (0 = top); -1 where none."""
        return self._per_token["target_rank"]

    @property
    def entropy(self):
        """float32 [N]: entropy (nats) of the predicted distribution."""
        return self._per_token["entropy"]

    @property
    def top_ids(self):
        """int32 [N, K]: the K most likely next tokens at each position, most likely first
        (K = 5; [N, 0] for traces written before they were stored)."""
        return self._per_token["top_ids"]

    @property
    def top_logprobs(self):
        """float32 [N, K]: the log-probabilities (nats) of ``top_ids``."""
        return self._per_token["top_logprobs"]

    def top_predictions(self, position):
        """[(token text, probability), ...] of the next-token predictions at ``position``, most
        likely first; the id as text where the trace has no tokenizer text for it."""
        vocab = self._per_token["vocab"]
        ids = self.top_ids[position]
        probs = np.exp(self.top_logprobs[position].astype(np.float64))
        return [(vocab.get(int(i), str(int(i))), float(p)) for i, p in zip(ids, probs)]

    def gates(self, layer, head=None, rows=None):
        """Log retention of ``layer``'s gates: float32 [H, N, C], or [rows, C] for one head."""
        if head is None:
            if rows is not None:
                raise ValueError("rows needs a head")
            return self._f.gates(layer)
        begin, end = span(rows, self.n_tokens, "rows")
        return self._f.gates(layer, head, begin, end)

    def factor(self, layer, name, head, rows=None):
        """Rows of a stored factor (``q``, ``k``, ``lse``, ``log_decay_cumsum``, ...) of one
        stored head (a kv head for [n_kv_heads, N, D] factors): [rows, D] or [rows]."""
        begin, end = span(rows, self.n_tokens, "rows")
        return self._f.factor(layer, name, head, begin, end)

    # -- maps ----------------------------------------------------------------------------------
    def tile(self, layer, head, rows, cols=None, map="attention", level=None, pool="max"):
        """A rectangle of a head's map as float32 [rows, cols].

        ``rows`` (queries) and ``cols`` (keys, default: the same as rows) are token ranges
        (``range``, ``slice``, ``(begin, end)``). ``map`` is ``"attention"``, ``"decay"`` or
        ``"product"`` (attention x decay). With ``level=None`` the cells are exact, one per token
        pair, recomputed from the stored factors as the viewer does (0 where the key is not
        allowed). With ``level=L`` they are the stored pyramid cells of 2^L x 2^L tokens
        (``pool`` ``"max"`` or ``"mean"``) covering the ranges rounded outward to whole cells.
        """
        r0, r1 = span(rows, self.n_tokens, "rows")
        c0, c1 = span(rows if cols is None else cols, self.n_tokens, "cols")
        return self._f.tile(layer, head, r0, r1, c0, c1, map, -1 if level is None else level, pool)

    def row(self, layer, head, query, top_k=10):
        """What token ``query`` reads in (layer, head): a :class:`Row`."""
        if query < 0:
            query += self.n_tokens
        r = self._f.row(layer, head, query, top_k)
        return Row(layer=layer, head=head, **r)

    # -- analyses and figures ------------------------------------------------------------------
    def stats(self, **options):
        """``gatescope stats --json`` of this trace as a dict; see :func:`gatescope.stats`."""
        from . import stats

        return stats([self], **options)

    def compare(self, other, **options):
        """``gatescope compare --json`` of this trace (A) against ``other`` (B); see
        :func:`gatescope.compare`."""
        from . import compare

        return compare(self, other, **options)

    def export(self, out, figure="map", *, map="attention", layer=0, head=0, range=None,
               compare=None, colormap="viridis", dpi=150, width=0, height=0):
        """``gatescope export``: writes a figure (``map``, ``grid``, ``retention``, ``loss`` or
        ``compare`` against the trace ``compare``) to ``out`` (.png, .svg or .pdf) and returns
        its title. Same painter and bytes as the CLI; loads Qt (offscreen) on first use."""
        try:
            from . import _figures
        except ImportError as e:
            raise Error("this build has no figure export (configured with GATESCOPE_GUI=OFF)",
                        "unsupported") from e
        begin, end = (0, -1) if range is None else span(range, self.n_tokens, "range")
        other = compare.path if isinstance(compare, Trace) else (compare or "")
        return _figures.export({
            "trace": self.path, "figure": figure, "map": map, "layer": layer, "head": head,
            "begin": begin, "end": end, "compare": str(other), "colormap": colormap, "dpi": dpi,
            "width": float(width), "height": float(height), "out": str(out)})

    # -- lifetime ------------------------------------------------------------------------------
    @property
    def _f(self):
        if self._file is None:
            raise ValueError("the trace is closed")
        return self._file

    def close(self):
        """Releases the file (arrays already returned stay valid)."""
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._file is None else f"{self.n_tokens} tokens"
        return f"<gatescope.Trace {self._name[0]} ({self._name[1]}, {state})>"
