"""The ctypes half of _results: reading a qdcache_results handle through
libqdcache's C ABI. Imported on first use, so that a lean warm start never
loads ctypes."""

from __future__ import annotations

import ctypes
from typing import Any

from . import _lib
from ._dependencies import Dependency
from ._lib import check, lib
from ._results import Result, _Results


def parse(response: bytes) -> ctypes.c_void_p:
    """A qdcache_results handle of a LookupResponse's bytes (qdcache_results_parse)."""
    out = ctypes.c_void_p()
    check(_lib.require("qdcache_results_parse")(response, len(response), ctypes.byref(out)), "results")
    return out


def free(handle: ctypes.c_void_p) -> None:
    lib.qdcache_results_free(handle)


def key(handle: ctypes.c_void_p | None, index: int) -> str:
    return str(lib.qdcache_result_key(handle, index).decode())


def target(handle: ctypes.c_void_p | None, index: int) -> str:
    return str(lib.qdcache_result_target(handle, index).decode())


def ptx(handle: ctypes.c_void_p | None, index: int) -> str | None:
    """Item `index`'s PTX text; None without one."""
    pointer = ctypes.c_void_p()
    size = ctypes.c_size_t()
    check(lib.qdcache_result_ptx(handle, index, ctypes.byref(pointer), ctypes.byref(size)))
    if not pointer.value or not size.value:
        return None
    return ctypes.string_at(pointer.value, size.value).decode("utf-8", "replace")


def result_json(handle: ctypes.c_void_p | None, index: int) -> dict[str, Any]:
    """Item `index`'s qdcache_result_json, parsed."""
    out = ctypes.c_void_p()
    check(lib.qdcache_result_json(handle, index, ctypes.byref(out)))
    return _lib.json_object(_lib.take_string(out), "qdcache_result_json")


def error_message(handle: ctypes.c_void_p | None, index: int) -> str:
    pointer = ctypes.c_char_p()
    lib.qdcache_result_error(handle, index, ctypes.byref(pointer))
    return (pointer.value or b"").decode("utf-8", "replace")


def dependencies(handle: ctypes.c_void_p | None, index: int) -> list[Dependency]:
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


def results_of(handle: ctypes.c_void_p) -> list[Result]:
    """One Result per item of a qdcache_results handle, which they own from now on."""
    results = _Results(handle, free=free)
    count: int = lib.qdcache_results_count(handle)
    items = _items(handle, count) if count else []
    payloads = _Payloads(results, max((item[4] for item in items), default=0))
    return [Result(results, i, status, kind, code, None, payloads.view(address, size), address if size else None)
            for i, (status, kind, code, address, size) in enumerate(items)]


