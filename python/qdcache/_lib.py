"""Finding libqdcache.so and declaring its C ABI (client/include/qdcache/qdcache.h) to ctypes.

The library is, in order: $QDCACHE_LIBRARY (a path); the one installed with
this package (_install_layout.py, written by `cmake --install`); the system
loader's libqdcache.so.1.

ctypes is untyped: the library's functions return Any. Callers convert what
they get at the call (an int status, bytes of a `const char*`) and this
module's helpers are typed.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from ._errors import INTERNAL, UNIMPLEMENTED, QdcacheError, error_for

if TYPE_CHECKING:
    from ._types import Source

ABI_MAJOR = 1

c_size_p = ctypes.POINTER(ctypes.c_size_t)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)
c_char_pp = ctypes.POINTER(ctypes.c_char_p)


def _installed_library() -> list[str]:
    """The libqdcache.so.1 installed with this package, when it is installed
    (only then does _install_layout exist)."""
    try:
        layout = importlib.import_module("._install_layout", __package__)
    except ImportError:
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.normpath(os.path.join(here, str(layout.PACKAGE_TO_LIBDIR), "libqdcache.so.1"))]


def _candidates() -> list[str]:
    from_env = os.environ.get("QDCACHE_LIBRARY")
    if from_env:
        return [from_env]
    return _installed_library() + ["libqdcache.so.1"]


def _load() -> ctypes.CDLL:
    errors = []
    for candidate in _candidates():
        try:
            return ctypes.CDLL(candidate)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("qdcache: cannot load libqdcache.so.1 (set QDCACHE_LIBRARY to its path): " + "; ".join(errors))


# A ctypes type (c_int, POINTER(c_void_p), ...); None as a restype is void.
_CType = Any
_Signature = tuple[Optional[_CType], list[_CType]]

# A GPU launcher's functions, qdcache_<api>_<name>: the same for CUDA and
# HIP. name: (restype, argtypes).
_GPU_SIGNATURES: dict[str, _Signature] = {
    "available": (ctypes.c_int, []),
    "device_count": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
    "load": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, c_void_pp]),
    "module_free": (None, [ctypes.c_void_p]),
    "launch": (
        ctypes.c_int,
        [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_uint32,
            c_void_pp,
            ctypes.c_void_p,
        ],
    ),
    "synchronize": (ctypes.c_int, [ctypes.c_int]),
    "buffer_create": (ctypes.c_int, [ctypes.c_size_t, ctypes.c_int, c_void_pp]),
    "buffer_free": (None, [ctypes.c_void_p]),
    "buffer_address": (ctypes.c_uint64, [ctypes.c_void_p]),
    "buffer_write": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "buffer_read": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
}


def _gpu_signatures(api: str) -> dict[str, _Signature]:
    """_GPU_SIGNATURES under their names for `api` ("cuda", "hip")."""
    return {"qdcache_%s_%s" % (api, name): signature for name, signature in _GPU_SIGNATURES.items()}


# name: (restype, argtypes). Functions returning qdcache_status get c_int.
_SIGNATURES: dict[str, _Signature] = {
    "qdcache_abi_version": (ctypes.c_uint32, []),
    "qdcache_version": (ctypes.c_char_p, []),
    "qdcache_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "qdcache_last_error": (ctypes.c_char_p, []),
    "qdcache_options_create": (ctypes.c_int, [c_void_pp]),
    "qdcache_options_set": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]),
    "qdcache_options_free": (None, [ctypes.c_void_p]),
    "qdcache_connect": (ctypes.c_int, [ctypes.c_void_p, c_void_pp]),
    "qdcache_client_free": (None, [ctypes.c_void_p]),
    "qdcache_ping": (ctypes.c_int, [ctypes.c_void_p]),
    "qdcache_stats_json": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, c_void_pp]),
    "qdcache_string_free": (None, [ctypes.c_void_p]),
    "qdcache_request_create": (ctypes.c_int, [c_void_pp]),
    "qdcache_compile_option_name": (ctypes.c_char_p, [ctypes.c_size_t]),
    "qdcache_request_free": (None, [ctypes.c_void_p]),
    "qdcache_request_add_kernel": (
        ctypes.c_int,
        [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, c_size_p],
    ),
    "qdcache_request_set": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p]),
    "qdcache_request_set_fast_key": (
        ctypes.c_int,
        [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t],
    ),
    "qdcache_request_add_header": (
        ctypes.c_int,
        [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t],
    ),
    "qdcache_request_add_text": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p]),
    "qdcache_request_add_entry": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]),
    "qdcache_request_add_key_extra": (
        ctypes.c_int,
        [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p],
    ),
    "qdcache_request_count": (ctypes.c_size_t, [ctypes.c_void_p]),
    "qdcache_compile": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, c_void_pp]),
    "qdcache_lookup": (
        ctypes.c_int,
        [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_void_p),
            c_size_p,
            ctypes.c_size_t,
            ctypes.c_int,
            c_void_pp,
        ],
    ),
    "qdcache_results_count": (ctypes.c_size_t, [ctypes.c_void_p]),
    "qdcache_result_cache_status": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t]),
    "qdcache_cache_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "qdcache_result_error": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, c_char_pp]),
    "qdcache_result_artifact": (
        ctypes.c_int,
        [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int), c_void_pp, c_size_p],
    ),
    "qdcache_result_ptx": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, c_void_pp, c_size_p]),
    "qdcache_result_key": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_size_t]),
    "qdcache_result_target": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_size_t]),
    "qdcache_result_json": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, c_void_pp]),
    "qdcache_results_free": (None, [ctypes.c_void_p]),
    "qdcache_cpu_load": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, c_void_pp]),
    "qdcache_cpu_symbol": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, c_void_pp]),
    "qdcache_cpu_module_free": (None, [ctypes.c_void_p]),
    **_gpu_signatures("cuda"),
    "qdcache_cuda_compute_capability": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
}

# A qdcache_dependency_check: int (*)(void* user, const char* name, const void* digest, size_t digest_size).
dependency_check = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)

# By the ABI minor version that added them: declared only when the library
# loaded has them (an older one still loads; require() then raises
# Unimplemented).
_SIGNATURES_SINCE: dict[int, dict[str, _Signature]] = {
    4: {
        "qdcache_command_json": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, c_void_pp]),
        "qdcache_explain_json": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, c_void_pp]),
        "qdcache_daemon_version": (ctypes.c_int, [ctypes.c_void_p, c_void_pp]),
    },
    5: {
        "qdcache_request_add_dependency": (
            ctypes.c_int,
            [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t],
        ),
        "qdcache_file_sha256": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_ubyte)]),
        "qdcache_result_dependency_count": (ctypes.c_size_t, [ctypes.c_void_p, ctypes.c_size_t]),
        "qdcache_result_dependency": (
            ctypes.c_int,
            [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, c_char_pp, c_void_pp, c_size_p],
        ),
        "qdcache_dependency_file_unchanged": (
            ctypes.c_int,
            [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t],
        ),
        "qdcache_results_check_dependencies": (
            ctypes.c_int,
            [ctypes.c_void_p, dependency_check, ctypes.c_void_p, c_size_p],
        ),
    },
    6: _gpu_signatures("hip"),
    7: {
        "qdcache_results_items": (
            ctypes.c_int,
            [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t],
        ),
    },
}

# The ABI minor version each function of _SIGNATURES_SINCE came with.
_SINCE_MINOR: dict[str, int] = {name: minor for minor, signatures in _SIGNATURES_SINCE.items() for name in signatures}


def _declare(library: ctypes.CDLL) -> None:
    """Gives ctypes the signatures: every one of _SIGNATURES (a missing
    symbol fails the import), those of _SIGNATURES_SINCE the library has."""
    later = {name: signature for signatures in _SIGNATURES_SINCE.values() for name, signature in signatures.items()
             if hasattr(library, name)}
    for name, (restype, argtypes) in {**_SIGNATURES, **later}.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes


class _Library:
    """libqdcache, loaded and checked on first use (thread-safe): a warm
    start through the lean transport (_lean.py) never loads it. Attributes
    are the library's functions; ImportError when it cannot be loaded or
    speaks another ABI major version."""

    def __init__(self) -> None:
        self._cdll: ctypes.CDLL | None = None
        self._lock = threading.Lock()
        self.abi_version = 0

    def loaded(self) -> ctypes.CDLL:
        if self._cdll is None:
            with self._lock:
                if self._cdll is None:
                    library = _load()
                    _declare(library)
                    version: int = library.qdcache_abi_version()
                    if version >> 16 != ABI_MAJOR:
                        raise ImportError(
                            "qdcache: libqdcache ABI %d.%d is not the %d.x this package speaks"
                            % (version >> 16, version & 0xFFFF, ABI_MAJOR)
                        )
                    self.abi_version = version
                    self._cdll = library
        return self._cdll

    def __getattr__(self, name: str) -> Any:  # what is not an attribute of this object: the library's
        return getattr(self.loaded(), name)


lib: Any = _Library()


def abi() -> int:
    """The loaded library's ABI version, MAJOR << 16 | MINOR (loads it)."""
    lib.loaded()
    version: int = lib.abi_version
    return version


def __getattr__(name: str) -> Any:
    if name == "abi_version":  # the module attribute of earlier releases
        return abi()
    raise AttributeError(name)


def has(name: str) -> bool:
    """Whether the library loaded has `name` of _SIGNATURES_SINCE."""
    return name in _SINCE_MINOR and hasattr(lib, name)


def _unimplemented(what: str, minor: int) -> QdcacheError:
    """Unimplemented: the library loaded lacks `what`, of ABI 1.`minor`."""
    return error_for(
        UNIMPLEMENTED,
        "UNIMPLEMENTED",
        "the libqdcache loaded (ABI %d.%d) lacks %s, which came with ABI %d.%d; "
        "install the libqdcache of this package's release (or point QDCACHE_LIBRARY at it)"
        % (abi() >> 16, abi() & 0xFFFF, what, ABI_MAJOR, minor),
    )


def require_abi(minor: int, what: str) -> None:
    """Raises Unimplemented when the library loaded predates ABI 1.`minor`,
    which brought `what` (a request option, ...)."""
    if abi() & 0xFFFF < minor:
        raise _unimplemented(what, minor)


def require(name: str) -> Callable[..., Any]:
    """The C function `name` of _SIGNATURES, or of _SIGNATURES_SINCE, which
    raises Unimplemented when the library loaded predates it."""
    if name in _SINCE_MINOR and not hasattr(lib, name):
        raise _unimplemented(name, _SINCE_MINOR[name])
    function: Callable[..., Any] = getattr(lib, name)
    return function


def check(status: int, what: str | None = None) -> None:
    """Raises the QdcacheError subclass of a non-zero qdcache_status
    (InvalidArgument, Unavailable, ...), with the library's message unchanged."""
    if status != 0:
        message = lib.qdcache_last_error().decode("utf-8", "replace")
        raise error_for(status, lib.qdcache_status_name(status).decode(), message, what)


def take_string(pointer: ctypes.c_void_p) -> str:
    """The text of a string the library allocated, then frees it."""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8", "replace") if pointer.value else ""
    finally:
        lib.qdcache_string_free(pointer)


def json_object(text: str, what: str) -> dict[str, Any]:
    """The JSON object the library wrote for `what`; Internal if it is not
    an object (the library's contract broken)."""
    import json  # here: most processes never parse JSON, and importing it costs

    value = json.loads(text)
    if not isinstance(value, dict):
        raise error_for(INTERNAL, "INTERNAL", "libqdcache answered %s with JSON that is not an object" % what)
    return value




def buffer_pointer(data: Source, what: str) -> tuple[ctypes.c_void_p, int, object]:
    """(pointer, size, keepalive) for bytes-like `data`, without a copy for
    bytes, bytearray and writable buffers; other buffers (a read-only
    memoryview of something else than bytes) are copied once; str is UTF-8.
    The pointer is valid while `keepalive` is referenced."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if isinstance(data, bytes):
        return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), data
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError("%s must be bytes-like or str, not %s" % (what, type(data).__name__)) from None
    return _view_pointer(view, what)


def _view_pointer(view: memoryview, what: str) -> tuple[ctypes.c_void_p, int, object]:
    """buffer_pointer() of a memoryview."""
    if not view.contiguous:
        view = memoryview(view.tobytes())
    view = view.cast("B")
    if isinstance(view.obj, bytes) and view.nbytes == len(view.obj):
        return buffer_pointer(view.obj, what)
    if view.readonly:
        copy = view.tobytes()
        return ctypes.cast(ctypes.c_char_p(copy), ctypes.c_void_p), len(copy), copy
    if view.nbytes == 0:
        return ctypes.c_void_p(None), 0, view
    array = (ctypes.c_char * view.nbytes).from_buffer(view)
    return ctypes.cast(array, ctypes.c_void_p), view.nbytes, (view, array)
