"""The exceptions gatescope raises: one class per kind of failure the C++ core reports.

Every one is a :class:`gatescope.Error` carrying the core's ``kind`` (``"io"``, ``"format"``,
``"version"``, ``"missing"``, ``"shape"``, ``"unsupported"``, ``"usage"``, ``"cancelled"``,
``"internal"``), the ``file`` and the ``object`` inside it (dataset, tensor, option) at fault;
``str(e)`` is the core's ``FILE: OBJECT: MESSAGE``, as the CLI prints it.
"""


class Error(Exception):
    """A failure reported by gatescope's core."""

    def __init__(self, message, kind="internal", file="", object=""):
        super().__init__(message)
        self.kind = kind
        self.file = file
        self.object = object


class IoError(Error, OSError):
    """A file cannot be opened, read or written (absent, unreadable, disk full)."""


class FormatError(Error):
    """The bytes are not what the format says (not HDF5, truncated, corrupt)."""


class MissingError(Error, LookupError):
    """A dataset, factor, map or tensor the call needs is absent."""


class UsageError(Error, ValueError):
    """An argument is out of range or malformed."""


class Cancelled(Error):
    """The work was stopped before it finished."""


_CLASSES = {
    "io": IoError,
    "format": FormatError,
    "missing": MissingError,
    "usage": UsageError,
    "cancelled": Cancelled,
}


def _make(kind, message, file, object):
    """Called by the C++ modules to turn a core error into an exception (python/src/py_support.h)."""
    return _CLASSES.get(kind, Error)(message, kind, file, object)
