"""Finding libqdcache.so and declaring its C ABI (client/include/qdcache/qdcache.h) to ctypes.

The library is, in order: $QDCACHE_LIBRARY (a path); the one installed with
this package (_install_layout.py, written by `cmake --install`); the system
loader's libqdcache.so.1.
"""

import ctypes
import os

from ._errors import QdcacheError

ABI_MAJOR = 1

c_size_p = ctypes.POINTER(ctypes.c_size_t)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)
c_char_pp = ctypes.POINTER(ctypes.c_char_p)


def _candidates():
    from_env = os.environ.get("QDCACHE_LIBRARY")
    if from_env:
        return [from_env]
    found = []
    try:
        from . import _install_layout  # only in an installed package

        here = os.path.dirname(os.path.abspath(__file__))
        found.append(os.path.normpath(os.path.join(here, _install_layout.PACKAGE_TO_LIBDIR, "libqdcache.so.1")))
    except ImportError:
        pass
    found.append("libqdcache.so.1")
    return found


def _load():
    errors = []
    for candidate in _candidates():
        try:
            return ctypes.CDLL(candidate)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("qdcache: cannot load libqdcache.so.1 (set QDCACHE_LIBRARY to its path): " + "; ".join(errors))


# name: (restype, argtypes). Functions returning qdcache_status get c_int.
_SIGNATURES = {
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
    "qdcache_cuda_available": (ctypes.c_int, []),
    "qdcache_cuda_device_count": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
    "qdcache_cuda_compute_capability": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    "qdcache_cuda_load": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, c_void_pp]),
    "qdcache_cuda_module_free": (None, [ctypes.c_void_p]),
    "qdcache_cuda_launch": (
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
    "qdcache_cuda_synchronize": (ctypes.c_int, [ctypes.c_int]),
    "qdcache_cuda_buffer_create": (ctypes.c_int, [ctypes.c_size_t, ctypes.c_int, c_void_pp]),
    "qdcache_cuda_buffer_free": (None, [ctypes.c_void_p]),
    "qdcache_cuda_buffer_address": (ctypes.c_uint64, [ctypes.c_void_p]),
    "qdcache_cuda_buffer_write": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "qdcache_cuda_buffer_read": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
}

lib = _load()
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

if lib.qdcache_abi_version() >> 16 != ABI_MAJOR:
    raise ImportError(
        "qdcache: libqdcache ABI %d.%d is not the %d.x this package speaks"
        % (lib.qdcache_abi_version() >> 16, lib.qdcache_abi_version() & 0xFFFF, ABI_MAJOR)
    )


def check(status, what=None):
    """Raises QdcacheError for a non-zero qdcache_status, with the library's message."""
    if status != 0:
        message = lib.qdcache_last_error().decode("utf-8", "replace")
        raise QdcacheError(status, lib.qdcache_status_name(status).decode(), message, what)


def take_string(pointer):
    """The text of a string the library allocated, then frees it."""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8", "replace")
    finally:
        lib.qdcache_string_free(pointer)


def text(value, what):
    """A str (or UTF-8 bytes) argument as bytes for a `const char*`: UTF-8
    without NUL, which would silently cut it short at the C boundary."""
    if isinstance(value, bytes):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("%s is not valid UTF-8: %r" % (what, value)) from None
    elif isinstance(value, str):
        value = value.encode("utf-8")
    else:
        raise TypeError("%s must be str, not %s" % (what, type(value).__name__))
    if b"\0" in value:
        raise ValueError("%s contains a NUL character: %r" % (what, value))
    return value


def buffer_pointer(data, what):
    """(pointer, size, keepalive) for bytes-like `data`, without a copy for
    bytes, bytearray and writable buffers; other buffers (a read-only
    memoryview of something else than bytes) are copied once; str is UTF-8."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if isinstance(data, bytes):
        return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), data
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError("%s must be bytes-like or str, not %s" % (what, type(data).__name__)) from None
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
