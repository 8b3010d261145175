"""Client, Artifact and Result: compiling and looking up kernels through qdcached."""

import contextlib
import ctypes
import json
import threading

from . import _lib
from ._errors import QdcacheError
from ._lib import check, lib, text

# qdcache_cache_status values, by name.
_CACHE_STATUS = {1: "compiled", 2: "hit", 3: "coalesced", 4: "alias_hit", 5: "stage_hit", 6: "miss", 7: "error"}
_KIND = {1: "cubin", 2: "shared_object"}

def _option_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    raise TypeError("option values are bool or int, not %s" % type(value).__name__)


def _compile_option_names():
    """The compile options the library knows, from its catalogue."""
    names = set()
    while True:
        name = lib.qdcache_compile_option_name(len(names))
        if name is None:
            return names
        names.add(name.decode())


# Names compile(options=...) takes: the catalogue's, also with "-" for "_",
# and "opt" for opt_level.
_OPTION_NAMES = _compile_option_names()


class _Results:
    """Owns a qdcache_results handle; artifacts' payloads point into it."""

    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        if self.handle:
            lib.qdcache_results_free(self.handle)
            self.handle = None


class Artifact:
    """A compiled kernel: a cubin (kind "cubin") or an ELF shared object
    (kind "shared_object").

    payload: read-only memoryview of the bytes, not a copy (bytes(artifact)
             copies them out); valid as long as the artifact is referenced.
    key: the artifact key (hex); target: canonical target ("cuda:sm_90");
    status: how it was served ("compiled", "hit", "alias_hit", "stage_hit",
            "coalesced"); ptx: the PTX text when include_ptx was asked.
    metadata: dict with toolchain, entry points (registers, shared memory...),
              timings and compile log.
    """

    def __init__(self, results, index):
        self._results = results
        self._index = index
        handle = results.handle
        kind = ctypes.c_int()
        pointer = ctypes.c_void_p()
        size = ctypes.c_size_t()
        check(lib.qdcache_result_artifact(handle, index, ctypes.byref(kind), ctypes.byref(pointer), ctypes.byref(size)))
        self.kind = _KIND.get(kind.value, "unknown")
        self.status = _CACHE_STATUS.get(lib.qdcache_result_cache_status(handle, index), "unknown")
        self.key = lib.qdcache_result_key(handle, index).decode()
        self.target = lib.qdcache_result_target(handle, index).decode()
        if size.value:
            array = (ctypes.c_char * size.value).from_address(pointer.value)
            array._owner = results  # the memoryview keeps the results handle alive
            self.payload = memoryview(array).cast("B").toreadonly()
        else:
            self.payload = memoryview(b"")
        ptx = ctypes.c_void_p()
        ptx_size = ctypes.c_size_t()
        check(lib.qdcache_result_ptx(handle, index, ctypes.byref(ptx), ctypes.byref(ptx_size)))
        self.ptx = ctypes.string_at(ptx.value, ptx_size.value).decode("utf-8", "replace") if ptx_size.value else None
        self._metadata = None

    @property
    def metadata(self):
        if self._metadata is None:
            out = ctypes.c_void_p()
            check(lib.qdcache_result_json(self._results.handle, self._index, ctypes.byref(out)))
            self._metadata = json.loads(_lib.take_string(out))["artifact"]
        return self._metadata

    @property
    def lowered_names(self):
        """CUDA C++: {name expression: lowered (mangled) name}, for the
        request's name_expressions; {} otherwise."""
        return {n["expression"]: n["name"] for n in self.metadata.get("lowered_names", ())}

    def __bytes__(self):
        return self.payload.tobytes()

    def __len__(self):
        return self.payload.nbytes

    def __repr__(self):
        return "<qdcache.Artifact %s %s %d bytes %s key=%s...>" % (
            self.target,
            self.kind,
            len(self),
            self.status,
            self.key[:16],
        )


class Result:
    """One item of a batch: status, and either artifact or error (a QdcacheError)."""

    def __init__(self, results, index):
        handle = results.handle
        self.status = _CACHE_STATUS.get(lib.qdcache_result_cache_status(handle, index), "unknown")
        message = ctypes.c_char_p()
        code = lib.qdcache_result_error(handle, index, ctypes.byref(message))
        self.error = None
        self.artifact = None
        if code != 0:
            self.error = QdcacheError(code, lib.qdcache_status_name(code).decode(), message.value.decode("utf-8", "replace"))
        elif self.status != "miss":
            try:
                self.artifact = Artifact(results, index)
            except QdcacheError as e:  # an answer without its artifact: this item's failure
                self.error = e

    def __repr__(self):
        return "<qdcache.Result %s %r>" % (self.status, self.error or self.artifact)


def _results(handle):
    results = _Results(handle)
    count = lib.qdcache_results_count(handle)
    return [Result(results, i) for i in range(count)]


class Client:
    """A connection to qdcached. Thread-safe: share one per process.

    Over the unix socket by default (socket=None: the per-user daemon's,
    $XDG_RUNTIME_DIR/qdcached.sock), or TCP with address="host:port" (with
    token= and tls_ca=/tls_cert=/tls_key=). spawn=True starts a per-user
    daemon when none listens at the socket (default: $QDCACHE_AUTOSPAWN).
    timeout: per-call deadline, e.g. "30s". Other keywords are the C ABI's
    options (qdcache.h) with "_" for "-": daemon, spawn_idle_exit,
    client_name, max_message_bytes, tls_server_name; spawn_args: a list of
    flags for a spawned daemon.
    """

    def __init__(self, socket=None, address=None, spawn=None, spawn_args=(), **options):
        self._handle = None
        # close() may come while other threads are inside calls (ctypes lets
        # go of the GIL): the handle is freed by whoever leaves it last.
        self._lock = threading.Lock()
        self._calls = 0
        self._closing = False
        if isinstance(spawn_args, (str, bytes)):
            raise TypeError("spawn_args is a list of flags, not one string")
        handle = ctypes.c_void_p()
        check(lib.qdcache_options_create(ctypes.byref(handle)))
        try:
            settings = [("client-name", "qdcache-python")]
            if socket is not None:
                settings.append(("socket", str(socket)))
            if address is not None:
                settings.append(("address", address))
            if spawn is not None:
                settings.append(("spawn", "1" if spawn else "0"))
            settings += [("spawn-arg", str(arg)) for arg in spawn_args]
            for name, value in options.items():
                settings.append((name.replace("_", "-"), str(value)))
            for name, value in settings:
                check(lib.qdcache_options_set(handle, text(name, "option"), text(value, name)), "option " + name)
            client = ctypes.c_void_p()
            check(lib.qdcache_connect(handle, ctypes.byref(client)), "connect")
            self._handle = client
        finally:
            lib.qdcache_options_free(handle)

    def close(self):
        """Closes the connection. Calls other threads have in progress finish
        first; later calls raise ValueError."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed early
            return
        with lock:
            self._closing = True
            handle = self._handle if self._calls == 0 else None
            if handle is not None:
                self._handle = None
        if handle is not None:
            lib.qdcache_client_free(handle)

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextlib.contextmanager
    def _client(self):
        """The handle, held open for the duration of one call."""
        with self._lock:
            if self._closing or not self._handle:
                raise ValueError("the client is closed")
            self._calls += 1
            handle = self._handle
        try:
            yield handle
        finally:
            with self._lock:
                self._calls -= 1
                last = self._closing and self._calls == 0 and self._handle
                if last:
                    self._handle = None
            if last:
                lib.qdcache_client_free(handle)

    def ping(self):
        """Returns when the daemon answers its health check; raises QdcacheError otherwise."""
        with self._client() as client:
            check(lib.qdcache_ping(client), "ping")

    def stats(self, reset=False):
        """The daemon's counters as a dict (the Stats message of the protocol).
        reset=True zeroes them after reading (admin)."""
        out = ctypes.c_void_p()
        with self._client() as client:
            check(lib.qdcache_stats_json(client, 1 if reset else 0, ctypes.byref(out)), "stats")
        return json.loads(_lib.take_string(out))

    def compile(self, ir, target, options=None, fast_key=None, namespace=None, entries=None, key_extras=None,
                no_store=False, recache=False, include_ptx=False, kind=None, headers=None, name_expressions=None,
                defines=None, undefines=None):
        """Compiles one kernel through the cache and returns its Artifact;
        raises QdcacheError when it fails (bad IR, unknown target, ...).

        ir: the kernel's source: LLVM IR, textual (str or bytes) or bitcode
            (bytes-like; bytes, bytearray and writable memoryviews are read in
            place, not copied), or what `kind` names.
        target: "cuda:sm_90", "cpu:x86-64", "cpu:x86-64+avx2,+fma".
        kind: "llvm" (None: the default), "ptx" (PTX text), "nvvm" (NVVM
              IR for libNVVM) or "cuda" (CUDA C++ for NVRTC); the last three
              for CUDA targets.
        headers: CUDA C++: {name: content (str or bytes)} of every header the
                 source includes as "name" (the daemon reads no file; <...>
                 is the CUDA toolkit's own).
        name_expressions: CUDA C++: expressions ("scale<float>") whose
                 lowered names come back in Artifact.lowered_names.
        defines / undefines: CUDA C++: "NAME" or "NAME=VALUE" macros (-D),
                 and "NAME"s (-U).
        options: {name: bool or int} of the protocol's compile options, by the
                 names of docs/protocol.md ("opt_level": 0..3, "fast_math",
                 "fmad", "debug", "lineinfo", "max_registers",
                 "link_libdevice", ...); an unknown name or a value out of
                 range raises QdcacheError (INVALID_ARGUMENT) naming it.
        fast_key + namespace: record an alias for lookup() (bytes or str).
        entries: the kernel names to launch (checked to exist).
        key_extras: {name: value} of client-side inputs folded into the key.
        """
        [result] = self.compile_many([dict(ir=ir, target=target, options=options, fast_key=fast_key,
                                           namespace=namespace, entries=entries, key_extras=key_extras,
                                           no_store=no_store, recache=recache, kind=kind, headers=headers,
                                           name_expressions=name_expressions, defines=defines,
                                           undefines=undefines)],
                                     include_ptx=include_ptx)
        if result.error is not None:
            raise result.error
        return result.artifact

    def compile_many(self, kernels, include_ptx=False):
        """Compiles a batch in one call: `kernels` is a list of dicts of
        compile()'s keyword arguments. Returns one Result per kernel, in order
        (an item's failure is in its Result, not raised)."""
        request = ctypes.c_void_p()
        check(lib.qdcache_request_create(ctypes.byref(request)))
        try:
            for kernel in kernels:
                self._add_kernel(request, **kernel)
            if include_ptx:
                check(lib.qdcache_request_set(request, 0, b"include-ptx", b"1"))
            out = ctypes.c_void_p()
            with self._client() as client:
                check(lib.qdcache_compile(client, request, ctypes.byref(out)), "compile")
            return _results(out)
        finally:
            lib.qdcache_request_free(request)

    @staticmethod
    def _add_kernel(request, ir, target, options=None, fast_key=None, namespace=None, entries=None, key_extras=None,
                    no_store=False, recache=False, kind=None, headers=None, name_expressions=None, defines=None,
                    undefines=None):
        pointer, size, keep = _lib.buffer_pointer(ir, "ir")
        index = ctypes.c_size_t()
        check(lib.qdcache_request_add_kernel(request, pointer, size, text(target, "target"), ctypes.byref(index)))
        del keep  # the request holds its own copy now
        i = index.value
        settings = []
        for name, value in (options or {}).items():
            if name.replace("-", "_") not in _OPTION_NAMES and name != "opt":
                raise ValueError("unknown compile option %r (known: %s)" % (name, ", ".join(sorted(_OPTION_NAMES))))
            settings.append((name, _option_text(value)))
        if kind is not None:
            settings.append(("kind", kind))
        if namespace is not None:
            settings.append(("namespace", namespace))
        if no_store:
            settings.append(("no-store", "1"))
        if recache:
            settings.append(("recache", "1"))
        for name, value in settings:
            check(lib.qdcache_request_set(request, i, text(name, "option"), text(value, name)), "option " + name)
        if fast_key is not None:
            key, key_size, keep = _lib.buffer_pointer(fast_key, "fast_key")
            check(lib.qdcache_request_set_fast_key(request, i, key, key_size))
        for entry in entries or ():
            check(lib.qdcache_request_add_entry(request, i, text(entry, "entry")))
        for name, value in (key_extras or {}).items():
            check(lib.qdcache_request_add_key_extra(request, i, text(name, "key_extras name"), text(value, name)))
        for name, content in (headers or {}).items():
            data, data_size, _header_alive = _lib.buffer_pointer(content, "header " + str(name))
            check(lib.qdcache_request_add_header(request, i, text(name, "header name"), data, data_size))
        for what, values in (("name-expression", name_expressions), ("define", defines), ("undefine", undefines)):
            if isinstance(values, (str, bytes)):
                raise TypeError("%s: a list of strings, not one string" % what.replace("-", "_") + "s")
            for value in values or ():
                check(lib.qdcache_request_add_text(request, i, what.encode(), text(value, what)))

    def lookup(self, fast_keys, namespace, target, include_ptx=False):
        """Artifacts by fast key alone, no IR sent: one Artifact, or None for a
        miss, per key (bytes or str), in order. Raises QdcacheError if the
        call or an item fails."""
        keys = [_lib.buffer_pointer(key, "fast key") for key in fast_keys]
        count = len(keys)
        pointers = (ctypes.c_void_p * max(count, 1))(*[k[0] for k in keys])
        sizes = (ctypes.c_size_t * max(count, 1))(*[k[1] for k in keys])
        out = ctypes.c_void_p()
        with self._client() as client:
            check(lib.qdcache_lookup(client, text(namespace, "namespace"), text(target, "target"), pointers, sizes,
                                     count, 1 if include_ptx else 0, ctypes.byref(out)), "lookup")
        artifacts = []
        for result in _results(out):
            if result.error is not None:
                raise result.error
            artifacts.append(result.artifact)
        return artifacts


