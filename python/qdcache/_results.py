"""Artifact and Result: what compile() and lookup() answer, read out of a
qdcache_results handle."""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from . import _lean, _lib
from ._dependencies import Dependency
from ._errors import QdcacheError, error_for
from ._lib import check, lib

# qdcache_cache_status values, by name.
_CACHE_STATUS = {1: "compiled", 2: "hit", 3: "coalesced", 4: "alias_hit", 5: "stage_hit", 6: "miss", 7: "error"}
_KIND = {1: "cubin", 2: "shared_object", 3: "hsa_code_object"}


class _Results:
    """Owns a qdcache_results handle; artifacts' payloads point into it. Or,
    for a lean-transport answer, the LookupResponse bytes from which the
    handle is made on first use (qdcache_results_parse): most callers never
    read what only the library decodes."""

    def __init__(self, handle: ctypes.c_void_p | None, response: bytes | None = None) -> None:
        self._handle = handle
        self._response = response
        self._lock = threading.Lock() if response is not None else None

    @property
    def handle(self) -> ctypes.c_void_p | None:
        if self._handle is None and self._lock is not None:
            with self._lock:  # one parse however many threads ask at once
                if self._handle is None and self._response is not None:
                    out = ctypes.c_void_p()
                    check(_lib.require("qdcache_results_parse")(self._response, len(self._response),
                                                                ctypes.byref(out)), "results")
                    self._handle, self._response = out, None
        return self._handle

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            lib.qdcache_results_free(handle)
            self._handle = None


def _dependencies(handle: ctypes.c_void_p | None, index: int) -> list[Dependency]:
    """The dependencies item `index` carries (an alias hit's, as its compile
    declared them); [] with a libqdcache older than ABI 1.5."""
    if not _lib.has("qdcache_result_dependency_count"):
        return []
    count: int = lib.qdcache_result_dependency_count(handle, index)
    dependencies = []
    for i in range(count):
        name = ctypes.c_char_p()
        digest = ctypes.c_void_p()
        size = ctypes.c_size_t()
        check(lib.qdcache_result_dependency(handle, index, i, ctypes.byref(name), ctypes.byref(digest),
                                            ctypes.byref(size)), "dependency")
        value = ctypes.string_at(digest.value, size.value) if digest.value and size.value else b""
        dependencies.append(Dependency((name.value or b"").decode("utf-8", "replace"), value))
    return dependencies


class _Item(ctypes.Structure):
    """qdcache_item (ABI 1.7)."""

    _fields_ = [
        ("cache_status", ctypes.c_int),
        ("kind", ctypes.c_int),
        ("error_code", ctypes.c_int),
        ("payload", ctypes.c_void_p),
        ("payload_size", ctypes.c_size_t),
    ]


def _items(handle: ctypes.c_void_p, count: int) -> list[tuple[int, int, int, int | None, int]]:
    """(cache status, kind, error code, payload address, payload size) of
    every item: one qdcache_results_items call, or with a libqdcache older
    than ABI 1.7 the per-item calls."""
    if _lib.has("qdcache_results_items"):
        array = (_Item * count)()
        check(lib.qdcache_results_items(handle, 0, count, array, ctypes.sizeof(_Item)), "results")
        return [(i.cache_status, i.kind, i.error_code, i.payload, i.payload_size) for i in array]
    items = []
    for index in range(count):
        kind = ctypes.c_int()
        pointer = ctypes.c_void_p()
        size = ctypes.c_size_t()
        code: int = lib.qdcache_result_error(handle, index, None)
        if code == 0:
            lib.qdcache_result_artifact(handle, index, ctypes.byref(kind), ctypes.byref(pointer), ctypes.byref(size))
        items.append((lib.qdcache_result_cache_status(handle, index), kind.value, code, pointer.value, size.value))
    return items


class _Payloads:
    """Read-only views of payloads inside one results handle, which every
    view keeps alive; no copy. One ctypes array type as long as the largest
    payload serves them all: a view is cut to its payload's size before
    anything can read it, and making an array type per size would cost more
    than the rest of a warm start's per-artifact work."""

    def __init__(self, results: _Results, largest: int) -> None:
        self._results = results
        self._array = ctypes.c_char * max(largest, 1)

    def view(self, address: int | None, size: int) -> memoryview:
        if not size or address is None:
            return memoryview(b"")
        array = self._array.from_address(address)
        setattr(array, "_owner", self._results)  # the memoryview holds the array, the array the results
        return memoryview(array).cast("B")[:size].toreadonly()


class Artifact:
    """A compiled kernel: a cubin (kind "cubin"), an ELF shared object (kind
    "shared_object") or an AMDGPU HSA code object (kind "hsa_code_object").

    payload: read-only memoryview of the bytes, not a copy (bytes(artifact)
             copies them out); valid as long as the artifact is referenced.
    key: the artifact key (hex); target: canonical target ("cuda:sm_90");
    status: how it was served ("compiled", "hit", "alias_hit", "stage_hit",
            "coalesced"); ptx: the PTX text when include_ptx was asked.
    metadata: dict with toolchain, entry points (registers, shared memory...;
              AMDGPU also sgprs, vgprs, agprs, wavefront_size, kernarg_bytes),
              timings and compile log.
    dependencies: a lookup's: the Dependency list its compile declared
              (sorted by name), for Client.lookup(check=...); [] otherwise.
    alias_conflict, miss_reason: a compile's account of its fast key's alias
              and of why it missed (None when there is nothing to say).
    Everything but kind, status and payload is read from the library on
    first use: a warm start reads many artifacts and few of their details.
    """

    def __init__(self, results: _Results, index: int, kind: int, status: str, payload: memoryview,
                 address: int | None) -> None:
        self._results = results
        self._index = index
        self.kind: str = _KIND.get(kind, "unknown")
        self.status: str = status
        self.payload: memoryview = payload
        self._address = address  # for the loaders (_launch)
        self._key: str | None = None
        self._target: str | None = None
        self._ptx: str | None | bool = False  # False: not read yet
        self._json: dict[str, Any] | None = None
        self._dependencies: list[Dependency] | None = None

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = lib.qdcache_result_key(self._results.handle, self._index).decode()
        return self._key

    @property
    def target(self) -> str:
        if self._target is None:
            self._target = lib.qdcache_result_target(self._results.handle, self._index).decode()
        return self._target

    @property
    def ptx(self) -> str | None:
        if self._ptx is False:
            ptx = ctypes.c_void_p()
            size = ctypes.c_size_t()
            check(lib.qdcache_result_ptx(self._results.handle, self._index, ctypes.byref(ptx), ctypes.byref(size)))
            self._ptx = ctypes.string_at(ptx.value, size.value).decode("utf-8", "replace") if ptx.value and size.value \
                else None
        return self._ptx if isinstance(self._ptx, str) else None

    def _result_json(self) -> dict[str, Any]:
        """The item's qdcache_result_json, read once."""
        if self._json is None:
            out = ctypes.c_void_p()
            check(lib.qdcache_result_json(self._results.handle, self._index, ctypes.byref(out)))
            self._json = _lib.json_object(_lib.take_string(out), "qdcache_result_json")
            artifact = self._json.get("artifact")
            if isinstance(artifact, dict) and "payload_size" in artifact:
                artifact["payload_size"] = self.payload.nbytes  # a lean answer's bytes hold none
        return self._json

    @property
    def metadata(self) -> dict[str, Any]:
        """The artifact's metadata (the "artifact" object of the result's
        JSON): toolchain, entries, timings, compile_log, ..."""
        metadata: dict[str, Any] = self._result_json()["artifact"]
        return metadata

    @property
    def dependencies(self) -> list[Dependency]:
        """The dependencies a lookup's alias was recorded with (its compile's
        dependencies=, sorted by name); [] for a compile's artifact, or an
        alias without them."""
        if self._dependencies is None:
            self._dependencies = _dependencies(self._results.handle, self._index)
        return self._dependencies

    @property
    def alias_conflict(self) -> dict[str, Any] | None:
        """A compile's fast-key conflict: its fast key's alias named another
        artifact and no declared dependency changed, so the fast key leaves
        out an input that did (a frontend bug). None without one, else
        {"previous_artifact_key", "changes": [{"name", "before", "after"}]
        (the key components that differ), "components_unknown", "policy"
        ("ALIAS_POLICY_REBIND", ...), "rebound" (whether the alias now names
        this artifact; False under alias_policy="strict"), "message",
        "warning" (None, or {"code", "message"} under "strict")}."""
        conflict: dict[str, Any] | None = self._result_json().get("alias_conflict")
        return conflict

    @property
    def miss_reason(self) -> dict[str, Any] | None:
        """Why a compile missed, when the daemon knows an earlier artifact of
        the same kernel (by fast key, else by entry points): None, or
        {"previous_artifact_key", "basis" ("fast_key" | "entry_points"),
        "changes": [{"name", "before", "after"}], "message"}."""
        reason: dict[str, Any] | None = self._result_json().get("miss_reason")
        return reason

    @property
    def lowered_names(self) -> dict[str, str]:
        """CUDA C++: {name expression: lowered (mangled) name}, for the
        request's name_expressions; {} otherwise."""
        return {n["expression"]: n["name"] for n in self.metadata.get("lowered_names", ())}

    def __bytes__(self) -> bytes:
        return self.payload.tobytes()

    def __len__(self) -> int:
        return self.payload.nbytes

    def __repr__(self) -> str:
        return "<qdcache.Artifact %s %s %d bytes %s key=%s...>" % (
            self.target,
            self.kind,
            len(self),
            self.status,
            self.key[:16],
        )


class Result:
    """One item of a batch: status, and either artifact or error (a
    QdcacheError subclass: InvalidArgument for IR that does not parse, ...).
    A lookup's miss has neither."""

    def __init__(self, results: _Results, index: int, cache_status: int, kind: int, code: int,
                 message: str | None, payload: memoryview, address: int | None) -> None:
        """message: the error's, when known (else read from the library);
        address: the payload's, when the library owns it."""
        self.status: str = _CACHE_STATUS.get(cache_status, "unknown")
        self.error: QdcacheError | None = None
        self.artifact: Artifact | None = None
        if code != 0:
            if message is None:
                pointer = ctypes.c_char_p()
                lib.qdcache_result_error(results.handle, index, ctypes.byref(pointer))
                message = (pointer.value or b"").decode("utf-8", "replace")
            name = _lean.CODE_NAMES[code] if 0 <= code < len(_lean.CODE_NAMES) else "UNKNOWN"
            self.error = error_for(code, name, message)
        elif self.status != "miss":
            if kind == 0:  # an answer without its artifact: this item's failure
                self.error = error_for(5, "NOT_FOUND", "item %d has no artifact (%s)" % (index, self.status))
            else:
                self.artifact = Artifact(results, index, kind, self.status, payload, address)

    @property
    def dependencies(self) -> list[Dependency]:
        """The artifact's dependencies; [] without an artifact."""
        return self.artifact.dependencies if self.artifact is not None else []

    @property
    def alias_conflict(self) -> dict[str, Any] | None:
        """The artifact's alias_conflict; None without an artifact."""
        return self.artifact.alias_conflict if self.artifact is not None else None

    @property
    def miss_reason(self) -> dict[str, Any] | None:
        """The artifact's miss_reason; None without an artifact."""
        return self.artifact.miss_reason if self.artifact is not None else None

    def __repr__(self) -> str:
        return "<qdcache.Result %s %r>" % (self.status, self.error or self.artifact)


def results_of(handle: ctypes.c_void_p) -> list[Result]:
    """One Result per item of a qdcache_results handle, which they own from now on."""
    results = _Results(handle)
    count: int = lib.qdcache_results_count(handle)
    items = _items(handle, count) if count else []
    payloads = _Payloads(results, max((item[4] for item in items), default=0))
    return [Result(results, i, status, kind, code, None, payloads.view(address, size), address if size else None)
            for i, (status, kind, code, address, size) in enumerate(items)]


def lean_results_of(answer: _lean.Answer) -> list[Result]:
    """One Result per item of a lean-transport answer, whose payload views
    they keep alive."""
    results = _Results(None, bytes(answer.response))
    return [Result(results, i, status, kind, code, message, payload, None)
            for i, ((status, kind, code, message), payload) in enumerate(zip(answer.items, answer.payloads))]
