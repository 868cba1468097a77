"""The exceptions of rap: one class per rap::StatusCode, all subclasses of :class:`rap.Error`.

The message is the one the ``rap`` CLI prints after ``rap: <Code>:`` (it names the object, the
structure and the byte offset).
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidArgument",
    "Corrupt",
    "NotFound",
    "AccessDenied",
    "IOError",
    "Timeout",
    "Cancelled",
    "Changed",
    "NotSupported",
    "ResourceExhausted",
    "Internal",
]


class Error(Exception):
    """Base class of every error rap raises."""


class InvalidArgument(Error, ValueError):
    """A bad argument: an option, an expression, a key of the wrong type (raised before any I/O)."""


class Corrupt(Error):
    """Malformed bytes in a file or a response."""


class NotFound(Error, LookupError):
    """An object, column, table or index that does not exist."""


class AccessDenied(Error, PermissionError):
    """The store refused access (HTTP 401/403)."""


class IOError(Error, OSError):  # noqa: A001 - the rap::StatusCode name
    """A transport or file system failure."""


class Timeout(Error, TimeoutError):
    """A deadline was exceeded."""


class Cancelled(Error):
    """The operation was cancelled."""


class Changed(Error):
    """An object changed while it was being read (size or ETag)."""


class NotSupported(Error, NotImplementedError):
    """Valid input that rap does not handle (e.g. encrypted Parquet)."""


class ResourceExhausted(Error, MemoryError):
    """A configured memory or size limit would be exceeded."""


class Internal(Error):
    """A bug in rap."""
