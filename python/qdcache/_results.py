"""Artifact and Result: what compile() and lookup() answer, read out of a
qdcache_results handle or a lean-transport answer.

Importing this loads neither ctypes nor libqdcache: a lean warm start
reads kind, status and payload, which it has; the rest is read through
the library (_results_native) on first use."""

from __future__ import annotations

from _thread import allocate_lock

from . import _lean
from ._errors import QdcacheError, error_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Callable
    from typing import Any

    from ._dependencies import Dependency

# qdcache_cache_status values, by name.
_CACHE_STATUS = {1: "compiled", 2: "hit", 3: "coalesced", 4: "alias_hit", 5: "stage_hit", 6: "miss", 7: "error"}
_KIND = {1: "cubin", 2: "shared_object", 3: "hsa_code_object"}


class _Results:
    """Owns a qdcache_results handle; artifacts' payloads point into it. Or,
    for a lean-transport answer, the LookupResponse bytes from which the
    handle is made on first use (qdcache_results_parse): most callers never
    read what only the library decodes."""

    def __init__(self, handle: ctypes.c_void_p | None, response: bytes | None = None,
                 free: Callable[[ctypes.c_void_p], None] | None = None) -> None:
        """handle and free (qdcache_results_free), or response."""
        self._handle = handle
        self._free = free
        self._response = response
        self._lock = allocate_lock() if response is not None else None

    @property
    def handle(self) -> ctypes.c_void_p | None:
        if self._handle is None and self._lock is not None:
            with self._lock:  # one parse however many threads ask at once
                if self._handle is None and self._response is not None:
                    from . import _results_native

                    self._handle, self._response = _results_native.parse(self._response), None
                    self._free = _results_native.free
        return self._handle

    def __del__(self) -> None:
        handle, free = getattr(self, "_handle", None), getattr(self, "_free", None)
        if handle and free is not None:
            self._handle = None
            free(handle)


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
            from . import _results_native

            self._key = _results_native.key(self._results.handle, self._index)
        return self._key

    @property
    def target(self) -> str:
        if self._target is None:
            from . import _results_native

            self._target = _results_native.target(self._results.handle, self._index)
        return self._target

    @property
    def ptx(self) -> str | None:
        if self._ptx is False:
            from . import _results_native

            self._ptx = _results_native.ptx(self._results.handle, self._index)
        return self._ptx if isinstance(self._ptx, str) else None

    def _result_json(self) -> dict[str, Any]:
        """The item's qdcache_result_json, read once."""
        if self._json is None:
            from . import _results_native

            self._json = _results_native.result_json(self._results.handle, self._index)
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
            from . import _results_native

            self._dependencies = _results_native.dependencies(self._results.handle, self._index)
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
                from . import _results_native

                message = _results_native.error_message(results.handle, index)
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


def lean_artifacts_of(answer: _lean.Answer) -> list[Artifact | None]:
    """lookup()'s answer from a lean-transport answer: an Artifact per hit,
    None per miss; raises the first failed item's error (as its Result's)."""
    results = _Results(None, answer.response)
    found: list[Artifact | None] = []
    append = found.append
    for i, ((cache_status, kind, code, message), payload) in enumerate(zip(answer.items, answer.payloads)):
        if code == 0 and kind != 0 and cache_status != 6:
            append(Artifact(results, i, kind, _CACHE_STATUS.get(cache_status, "unknown"), payload, None))
        elif code == 0 and cache_status == 6:
            append(None)
        else:
            result = Result(results, i, cache_status, kind, code, message, payload, None)
            if result.error is not None:
                raise result.error
            append(result.artifact)
    return found
