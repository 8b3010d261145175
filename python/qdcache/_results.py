"""Artifact and Result: what compile() and lookup() answer, read out of a
qdcache_results handle."""

from __future__ import annotations

import ctypes
from typing import Any

from . import _lib
from ._dependencies import Dependency
from ._errors import QdcacheError, error_for
from ._lib import check, lib

# qdcache_cache_status values, by name.
_CACHE_STATUS = {1: "compiled", 2: "hit", 3: "coalesced", 4: "alias_hit", 5: "stage_hit", 6: "miss", 7: "error"}
_KIND = {1: "cubin", 2: "shared_object", 3: "hsa_code_object"}


class _Results:
    """Owns a qdcache_results handle; artifacts' payloads point into it."""

    def __init__(self, handle: ctypes.c_void_p) -> None:
        self.handle: ctypes.c_void_p | None = handle

    def __del__(self) -> None:
        if self.handle:
            lib.qdcache_results_free(self.handle)
            self.handle = None


def _cache_status(handle: ctypes.c_void_p | None, index: int) -> str:
    """How item `index` was served: "compiled", "hit", ..., "miss", "error"."""
    return _CACHE_STATUS.get(lib.qdcache_result_cache_status(handle, index), "unknown")


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


def _payload_view(results: _Results, address: int | None, size: int) -> memoryview:
    """A read-only view of `size` bytes at `address` inside the results,
    which the view keeps alive; no copy."""
    if not size or address is None:
        return memoryview(b"")
    array = (ctypes.c_char * size).from_address(address)
    setattr(array, "_owner", results)  # the memoryview holds the array, the array the results
    return memoryview(array).cast("B").toreadonly()


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
    """

    def __init__(self, results: _Results, index: int) -> None:
        self._results = results
        self._index = index
        handle = results.handle
        kind = ctypes.c_int()
        pointer = ctypes.c_void_p()
        size = ctypes.c_size_t()
        check(lib.qdcache_result_artifact(handle, index, ctypes.byref(kind), ctypes.byref(pointer), ctypes.byref(size)))
        self.kind: str = _KIND.get(kind.value, "unknown")
        self.status: str = _cache_status(handle, index)
        self.key: str = lib.qdcache_result_key(handle, index).decode()
        self.target: str = lib.qdcache_result_target(handle, index).decode()
        self._address = pointer.value if size.value else None  # for the loaders (_launch)
        self.payload: memoryview = _payload_view(results, pointer.value, size.value)
        ptx = ctypes.c_void_p()
        ptx_size = ctypes.c_size_t()
        check(lib.qdcache_result_ptx(handle, index, ctypes.byref(ptx), ctypes.byref(ptx_size)))
        self.ptx: str | None = (
            ctypes.string_at(ptx.value, ptx_size.value).decode("utf-8", "replace") if ptx.value and ptx_size.value
            else None
        )
        # Read on first use: most callers want neither, and a warm start
        # reads many artifacts.
        self._json: dict[str, Any] | None = None
        self._dependencies: list[Dependency] | None = None

    def _result_json(self) -> dict[str, Any]:
        """The item's qdcache_result_json, read once."""
        if self._json is None:
            out = ctypes.c_void_p()
            check(lib.qdcache_result_json(self._results.handle, self._index, ctypes.byref(out)))
            self._json = _lib.json_object(_lib.take_string(out), "qdcache_result_json")
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

    def __init__(self, results: _Results, index: int) -> None:
        handle = results.handle
        self.status: str = _cache_status(handle, index)
        self.error: QdcacheError | None = None
        self.artifact: Artifact | None = None
        message = ctypes.c_char_p()
        code: int = lib.qdcache_result_error(handle, index, ctypes.byref(message))
        if code != 0:
            text = (message.value or b"").decode("utf-8", "replace")
            self.error = error_for(code, lib.qdcache_status_name(code).decode(), text)
        elif self.status != "miss":
            try:
                self.artifact = Artifact(results, index)
            except QdcacheError as e:  # an answer without its artifact: this item's failure
                self.error = e

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
    return [Result(results, i) for i in range(count)]
