"""The lean transport (docs/protocol.md, "Lean transport"): Client.lookup
over the daemon's unix socket without libqdcache, gRPC or a copy of the
payloads. Standard library only; imported with the package, so a warm start
(import, Client, lookup) loads no shared library at all.

A request is a qdcache.v1.LookupRequest, encoded here; of the answer only
what a Result needs at once is decoded here (each item's status, artifact
kind and error); the rest (keys, metadata, dependencies) is read on demand
by libqdcache from the same bytes (qdcache_results_parse). Payloads are
views into one buffer: the sealed memfd the daemon passes for large answers
(mapped, not read), or the answer's own bytes.

Anything this client cannot do or cannot know (a target spelling it does
not parse, a daemon that does not speak it) raises Fallback: the caller
takes the libqdcache path, which answers the same way, errors included.
"""

from __future__ import annotations

import _socket as socket  # the C module: socket.py pulls in selectors, array, ... (~5 ms)
import fcntl
import mmap
import os
import time
from _thread import allocate_lock

from ._errors import QdcacheError, error_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    import struct
else:
    import _struct as struct  # the C module struct.py re-exports, without the wrapper's import

HELLO = b"QDCLEAN1"
_LOOKUP = 1
_WITH_FD = 1
_PROTOCOL_VERSION_1 = 1
_HEADER = struct.Struct("<IB3x")  # request: body length, method
_REPLY = struct.Struct("<IBB2x")  # reply: body length, status code, flags
_SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_WRITE
_ALIGNMENT = 64  # payloads' offsets in a blob are multiples of it

CODE_NAMES = ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
              "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
              "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class Fallback(Exception):
    """The lean path cannot answer this; libqdcache's can."""


class _Stale(Exception):
    """The connection was closed before the request could be sent: nothing
    reached the daemon, so the request may go out again."""


# After a daemon did not take the lean hello, how long libqdcache's path
# serves before the lean transport is tried again.
_RETRY_SECONDS = 60.0


# ---- protobuf encoding (the few fields a LookupRequest has) ----

def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited field."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _names(text: str) -> bool:
    return bool(text) and all(c in _NAME_CHARS for c in text)


def _sm_name(sm: str) -> bool:
    """sm_90, sm_90a, sm_100f: common/target.cc's IsCudaSmName."""
    digits = sm[3:-1] if sm[-1:].isascii() and sm[-1:].islower() else sm[3:]
    return sm.startswith("sm_") and digits.isascii() and digits.isdigit()


def target_message(spec: str) -> bytes:
    """The serialized qdcache.v1.Target of a target spelling, split as
    common/target.cc splits it (the daemon validates and normalizes);
    Fallback for anything else, whose error libqdcache words."""
    family, _, rest = spec.partition(":")
    if family == "cuda" and _sm_name(rest):
        return _field(1, _field(1, rest.encode()))
    if family == "cpu":
        end = min((i for i in (rest.find("+"), rest.find(",")) if i >= 0), default=len(rest))
        name, features, tokens = rest[:end], rest[end:], []
        i = 0
        while i < len(features):
            if features[i] == ",":
                i += 1
                continue
            if features[i] not in "+-":
                raise Fallback
            j = i + 1
            while j < len(features) and features[j] not in "+,":
                j += 1
            if not _names(features[i + 1:j]):
                raise Fallback
            tokens.append(features[i:j])
            i = j
        if _names(name) and name != "native":
            return _field(2, _field(1, name.encode()) + b"".join(_field(2, t.encode()) for t in tokens))
    if family == "amdgpu":
        processor, *settings = rest.split(":")
        if _names(processor) and all(len(f) > 1 and _names(f[:-1]) and f[-1] in "+-" for f in settings):
            return _field(3, _field(1, processor.encode()) + b"".join(_field(2, f.encode()) for f in settings))
    raise Fallback


_REQUEST_HEADER = _field(1, b"\x08" + _varint(_PROTOCOL_VERSION_1) + _field(2, b"qdcache-python"))

# A query's namespace and target fields, by (namespace, target): a program
# asks under few of them, and encoding the target is most of a one-key
# request's cost. Bounded: cleared when full.
_SPACES: dict[tuple[bytes, str], bytes] = {}
_MAX_KEPT = 256  # entries of each of these encodings kept


def _space(namespace: bytes, target: str) -> bytes:
    space = _SPACES.get((namespace, target))
    if space is None:
        space = _field(2, namespace) + _field(3, target_message(target))  # Fallback: nothing kept
        if len(_SPACES) >= _MAX_KEPT:
            _SPACES.clear()
        _SPACES[(namespace, target)] = space
    return space


# A query's tag and length, then its key's tag and length, by the key's
# length and the length of the query's namespace and target fields.
_QUERY_TAGS: dict[tuple[int, int], bytes] = {}


def _query_tag(key_length: int, space_length: int) -> bytes:
    tag = _QUERY_TAGS.get((key_length, space_length))
    if tag is None:
        tag = (b"\x12" + _varint(1 + len(_varint(key_length)) + key_length + space_length) + b"\x0a" +
               _varint(key_length))
        if len(_QUERY_TAGS) >= _MAX_KEPT:
            _QUERY_TAGS.clear()
        _QUERY_TAGS[(key_length, space_length)] = tag
    return tag


def lookup_request(keys: list[bytes], namespace: bytes, target: str, include_ptx: bool) -> bytes:
    """A serialized qdcache.v1.LookupRequest."""
    header = _REQUEST_HEADER
    space = _space(namespace, target)
    # A query is its fields' tags and lengths, the key, then `space`: keys of
    # one length share those bytes, so the queries are joins, not a
    # function call per key.
    lengths = list(map(len, keys))
    distinct = set(lengths)
    if len(distinct) == 1:  # a framework's digests
        one = _query_tag(lengths[0], len(space))
        queries = one + (space + one).join(keys) + space
    elif not keys:
        queries = b""
    else:
        tags = {n: _query_tag(n, len(space)) for n in distinct}
        parts: list[bytes] = [space] * (3 * len(keys))
        parts[0::3] = map(tags.__getitem__, lengths)
        parts[1::3] = keys
        queries = b"".join(parts)
    return header + queries + (b"\x18\x01" if include_ptx else b"")


# ---- protobuf decoding (what a Result needs at once) ----

def _read_varint(data: memoryview | bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _skip(data: memoryview | bytes, i: int, wire: int) -> int:
    if wire == 0:
        return _read_varint(data, i)[1]
    if wire == 1:
        return i + 8
    if wire == 2:
        length, i = _read_varint(data, i)
        return i + length
    if wire == 5:
        return i + 4
    raise ValueError("protobuf wire type %d" % wire)


Item = tuple[int, int, int, str]  # cache status, artifact kind, error code, error message


def _result(data: memoryview | bytes, i: int, end: int) -> Item:
    """One CompileResult's status, artifact kind and error."""
    status = kind = code = 0
    message = ""
    while i < end:
        tag, i = _read_varint(data, i)
        number, wire = tag >> 3, tag & 7
        if number == 1 and wire == 0:
            status, i = _read_varint(data, i)
        elif number in (2, 3) and wire == 2:
            length, i = _read_varint(data, i)
            j, stop = i, i + length
            while j < stop:
                inner, j = _read_varint(data, j)
                if number == 2 and inner == 0x08:
                    kind, j = _read_varint(data, j)
                    break  # the artifact's first field; the rest is read on demand
                if number == 3 and inner == 0x08:
                    code, j = _read_varint(data, j)
                elif number == 3 and inner == 0x12:
                    n, j = _read_varint(data, j)
                    message = bytes(data[j:j + n]).decode("utf-8", "replace")
                    j += n
                else:
                    j = _skip(data, j, inner & 7)
            i = stop
        else:
            i = _skip(data, i, wire)
    return status, kind, code, message


def lookup_items(data: bytes) -> list[Item]:
    """Every result of a serialized LookupResponse, in order."""
    items: list[Item] = []
    append = items.append
    i, end = 0, len(data)
    while i < end:
        tag = data[i]
        if tag != 0x0A:
            tag, i = _read_varint(data, i)
            i = _skip(data, i, tag & 7)
            continue
        length = data[i + 1]
        if length < 0x80:
            i += 2
        elif data[i + 2] < 0x80:  # a result of 128 bytes to 16 KiB
            length = (length & 0x7F) | data[i + 2] << 7
            i += 3
        else:
            length, i = _read_varint(data, i + 1)
        stop = i + length
        # A hit's usual start: its status, then its artifact whose first
        # field is the kind (fields serialize in number order).
        if stop - i > 5 and data[i] == 0x08 and data[i + 1] < 0x80 and data[i + 2] == 0x12 and data[i + 3] >= 2:
            j = i + 3  # the artifact's length, 2 bytes or more
            while j < stop and data[j] & 0x80:
                j += 1
            if j + 2 < stop and data[j + 1] == 0x08 and data[j + 2] < 0x80:
                append((data[i + 1], data[j + 2], 0, ""))
                i = stop
                continue
        append(_result(data, i, stop))
        i = stop
    return items


# ---- the connection ----

class Answer:
    """A Lookup's answer: the LookupResponse bytes (payloads left out), its
    items, and each one's payload as a view into one buffer."""

    def __init__(self, response: bytes, items: list[Item], payloads: list[memoryview]) -> None:
        self.response = response
        self.items = items
        self.payloads = payloads


def _recv_exact(sock: socket.socket, size: int) -> memoryview:
    view = memoryview(bytearray(size))
    _recv_into(sock, view)
    return view


def _recv_into(sock: socket.socket, view: memoryview) -> None:
    got = 0
    while got < len(view):
        n = sock.recv_into(view[got:])
        if n == 0:
            raise ConnectionError("the daemon closed the connection")
        got += n


class _Room:
    """An answer's body read into memory whose address is known, placed so
    that an inline blob starting `phase` bytes past a 64-byte boundary lands
    on one, with room after it to move a blob that does not: payloads keep
    the alignment their offsets promise (as in a memfd) without a buffer of
    their own."""

    __slots__ = ("buffer", "address", "start", "size", "seen")

    def __init__(self, size: int, phase: int) -> None:
        import array  # a shared library (~1 ms), loaded on the first inline answer only
        self.buffer = array.array("B", b"\0") * (size + 2 * _ALIGNMENT)  # one zeroed allocation, not two
        self.address = self.buffer.buffer_info()[0]
        self.start = -(self.address + phase) % _ALIGNMENT
        self.size = size
        self.seen = phase  # where tail() found the blob, mod 64 (until then, where it was expected)

    def body(self) -> memoryview:
        return memoryview(self.buffer)[self.start:self.start + self.size]

    def tail(self, at: int) -> memoryview:
        """The body from `at` on, read-only, at a 64-byte boundary: moved
        forward (at most 63 bytes) unless it lies on one."""
        self.seen = at % _ALIGNMENT
        view = memoryview(self.buffer)
        begin, end = self.start + at, self.start + self.size
        shift = -(self.address + begin) % _ALIGNMENT
        if shift:
            view[begin + shift:end + shift] = bytes(view[begin:end])
        return view[begin + shift:end + shift].toreadonly()


class _Connection:
    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.phase = 0  # where the last inline blob began in its body, mod 64
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
            self.sock.sendall(HELLO)
            if bytes(_recv_exact(self.sock, len(HELLO))) != HELLO:
                raise ConnectionError("the daemon does not speak the lean transport")
        except BaseException:
            self.sock.close()
            raise

    def lookup(self, body: bytes) -> Answer:
        try:
            self.sock.sendall(_HEADER.pack(len(body), _LOOKUP) + body)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise _Stale from e
        header, fds, _, _ = self.sock.recvmsg(_REPLY.size, socket.CMSG_SPACE(4), socket.MSG_CMSG_CLOEXEC)
        passed = None
        for level, kind, data in fds:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                for fd in struct.unpack("%di" % (len(data) // 4), data[:len(data) - len(data) % 4]):
                    if passed is None:
                        passed = fd
                    else:
                        os.close(fd)
        try:
            if not header:
                raise ConnectionError("the daemon closed the connection")
            if len(header) < _REPLY.size:
                header += bytes(_recv_exact(self.sock, _REPLY.size - len(header)))
            size, code, flags = _REPLY.unpack(header)
            room = _Room(size, self.phase) if code == 0 and not flags & _WITH_FD else None
            if room is None:
                body_view = _recv_exact(self.sock, size)
            else:
                body_view = room.body()
                _recv_into(self.sock, body_view)
            if code != 0:
                # Worded as libqdcache words a call's failure: the endpoint first.
                message = "unix:%s: %s" % (self.path, bytes(body_view).decode("utf-8", "replace"))
                name = CODE_NAMES[code] if code < len(CODE_NAMES) else "UNKNOWN"
                raise error_for(code, name, message, "lookup")
            answer = _answer(body_view, passed if flags & _WITH_FD else None, room)
            if room is not None:
                self.phase = room.seen
            return answer
        finally:
            if passed is not None:
                os.close(passed)

    def close(self) -> None:
        self.sock.close()


def _answer(body: memoryview, blob_fd: int | None, room: _Room | None) -> Answer:
    """The answer in `body`: its blob is the passed memfd's contents
    (`room` None), or what follows the table in `body`, read into `room`."""
    (proto_size,) = struct.unpack_from("<I", body, 0)
    response = bytes(body[4:4 + proto_size])  # indexed faster than a view; kept by the results
    items = lookup_items(response)
    table_at = 4 + proto_size
    table = struct.unpack_from("<%dQ" % (2 * len(items)), body, table_at)
    if room is not None:
        # An inline blob starts wherever the table ends (unpacking the table
        # checked that it lies in the body): put on a 64-byte boundary where
        # it was read, as in a memfd.
        blob = room.tail(table_at + 16 * len(items))
    elif blob_fd is None:
        raise ConnectionError("the daemon's answer lacks the memfd its header announces")
    else:
        if fcntl.fcntl(blob_fd, fcntl.F_GET_SEALS) & _SEALS != _SEALS:
            raise ConnectionError("the daemon passed a memfd that is not sealed")
        size = os.fstat(blob_fd).st_size
        blob = (memoryview(mmap.mmap(blob_fd, size, mmap.MAP_SHARED, mmap.PROT_READ)).toreadonly() if size
                else memoryview(b""))
    offsets, sizes = table[0::2], table[1::2]
    if items and max(map(int.__add__, offsets, sizes)) > len(blob):
        raise ConnectionError("a payload lies outside the answer")
    payloads = [blob[offset:offset + size] for offset, size in zip(offsets, sizes)]
    return Answer(response, items, payloads)


class Channel:
    """Lean connections to one socket, reused one request at a time each;
    thread-safe. `enabled` is False for a while (_RETRY_SECONDS) once a
    daemon there did not take the lean hello (an older daemon, or one at its
    connection limit): libqdcache's path serves meanwhile."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._lock = allocate_lock()
        self._idle: list[_Connection] = []
        self._closed = False
        self._retry_at = 0.0

    @property
    def enabled(self) -> bool:
        return time.monotonic() >= self._retry_at

    def lookup(self, body: bytes) -> Answer:
        """The daemon's answer; a QdcacheError for the daemon's refusal of the
        call, or when the connection fails after the request went out (it is
        not sent twice); Fallback when the lean transport cannot carry it."""
        with self._lock:
            connection = self._idle.pop() if self._idle else None
        if connection is not None:
            try:
                return self._exchange(connection, body)
            except _Stale:
                pass  # the daemon closed an idle connection (restart, shutdown): a new one
        try:
            connection = _Connection(self.path, self.timeout)
        except OSError as e:
            if isinstance(e, ConnectionError) and not isinstance(e, ConnectionRefusedError):
                self._retry_at = time.monotonic() + _RETRY_SECONDS
            raise Fallback from e
        try:
            return self._exchange(connection, body)
        except _Stale as e:
            raise error_for(14, "UNAVAILABLE", "unix:%s: the daemon closed the connection" % self.path,
                            "lookup") from e

    def _exchange(self, connection: _Connection, body: bytes) -> Answer:
        try:
            answer = connection.lookup(body)
        except QdcacheError as e:
            # The daemon's answer. After these two it may have closed the connection.
            if e.code in (3, 8):
                connection.close()
            else:
                self._put_back(connection)
            raise
        except _Stale:
            connection.close()
            raise
        except TimeoutError as e:
            connection.close()
            raise error_for(4, "DEADLINE_EXCEEDED", "unix:%s: no answer within %.0f s" % (self.path, self.timeout),
                            "lookup") from e
        except (OSError, ValueError, struct.error, IndexError) as e:
            connection.close()
            raise error_for(14, "UNAVAILABLE", "unix:%s: %s" % (self.path, e), "lookup") from e
        except BaseException:
            connection.close()
            raise
        self._put_back(connection)
        return answer

    def _put_back(self, connection: _Connection) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
