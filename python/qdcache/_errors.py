"""The exceptions of the qdcache package: QdcacheError, and one subclass per
status code (the gRPC codes of qdcache.h's qdcache_status), so that callers
can catch what they handle:

    try:
        client.ping()
    except qdcache.Unavailable:
        ...  # no daemon: start one, or Client(spawn=True)
"""

from __future__ import annotations


class QdcacheError(Exception):
    """A call into libqdcache failed, or an item of a batch did.

    code: the gRPC status code number (3 = INVALID_ARGUMENT, 14 = UNAVAILABLE, ...)
    code_name: its name ("INVALID_ARGUMENT")
    message: what went wrong, as the daemon or library said it
    what: optional context put before the code in str() ("compile", "ping")

    Raised as the subclass of its code (InvalidArgument, Unavailable, ...);
    a code without one (there is none today) raises QdcacheError itself.
    """

    def __init__(self, code: int, code_name: str, message: str, what: str | None = None) -> None:
        self.code = code
        self.code_name = code_name
        self.message = message
        prefix = (what + ": ") if what else ""
        super().__init__("%s%s: %s" % (prefix, code_name, message))


class Cancelled(QdcacheError):
    """CANCELLED (1): the call was cancelled, usually by the caller."""


class Unknown(QdcacheError):
    """UNKNOWN (2): an error without a better code."""


class InvalidArgument(QdcacheError):
    """INVALID_ARGUMENT (3): bad input: IR that does not parse, an unknown
    target or option, an ambiguous key prefix, ..."""


class DeadlineExceeded(QdcacheError):
    """DEADLINE_EXCEEDED (4): the call's deadline (Client(timeout=...)) passed."""


class NotFound(QdcacheError):
    """NOT_FOUND (5): no such artifact, symbol or entry point."""


class AlreadyExists(QdcacheError):
    """ALREADY_EXISTS (6)."""


class PermissionDenied(QdcacheError):
    """PERMISSION_DENIED (7): the caller's role does not allow the call
    (an admin command as a plain user, a write with a read token)."""


class ResourceExhausted(QdcacheError):
    """RESOURCE_EXHAUSTED (8): a limit was reached (message size, queue,
    the store's size)."""


class FailedPrecondition(QdcacheError):
    """FAILED_PRECONDITION (9): the daemon cannot do this in its current
    state or configuration (e.g. a toolchain it lacks)."""


class Aborted(QdcacheError):
    """ABORTED (10)."""


class OutOfRange(QdcacheError):
    """OUT_OF_RANGE (11)."""


class Unimplemented(QdcacheError):
    """UNIMPLEMENTED (12): the daemon, or the libqdcache loaded (an older
    ABI), does not have this call."""


class Internal(QdcacheError):
    """INTERNAL (13): a bug in qdcached or libqdcache."""


class Unavailable(QdcacheError):
    """UNAVAILABLE (14): no daemon answers at the socket or address (the
    message says which, and how to start one)."""


class DataLoss(QdcacheError):
    """DATA_LOSS (15): stored data is corrupt."""


class Unauthenticated(QdcacheError):
    """UNAUTHENTICATED (16): TCP without a valid token or client certificate."""


_BY_CODE: dict[int, type[QdcacheError]] = {
    1: Cancelled,
    2: Unknown,
    3: InvalidArgument,
    4: DeadlineExceeded,
    5: NotFound,
    6: AlreadyExists,
    7: PermissionDenied,
    8: ResourceExhausted,
    9: FailedPrecondition,
    10: Aborted,
    11: OutOfRange,
    12: Unimplemented,
    13: Internal,
    14: Unavailable,
    15: DataLoss,
    16: Unauthenticated,
}

UNIMPLEMENTED = 12
INTERNAL = 13


def error_for(code: int, code_name: str, message: str, what: str | None = None) -> QdcacheError:
    """The exception for status `code`: an instance of its subclass
    (InvalidArgument for 3, ...), or of QdcacheError for a code without one."""
    return _BY_CODE.get(code, QdcacheError)(code, code_name, message, what)
