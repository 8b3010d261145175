"""Client: a connection to qdcached, and its calls: compile, lookup,
explain, and the introspection and admin commands of the CLI."""

from __future__ import annotations

import os
import stat
from _thread import allocate_lock

from . import _lean
from ._errors import error_for
from ._results import Artifact, Result, lean_artifacts_of
from ._text import fast_key_bytes, fast_keys_bytes, text

# Importing this module loads neither ctypes nor libqdcache (nor typing):
# Client.lookup over the lean transport needs neither, and a warm start
# pays for every module it imports. What calls libqdcache imports
# _lib (ctypes) where it does.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

    from ._dependencies import Dependency
    from ._request import KernelSpec
    from ._types import FastKey, Source, Text


# A lean-transport call's socket timeout: libqdcache's default deadline.
_LEAN_TIMEOUT_SECONDS = 300.0


def _settings(socket: str | os.PathLike[str] | None, address: str | None, spawn: bool | None,
              spawn_args: Iterable[object], options: Mapping[str, object]) -> list[tuple[str, str]]:
    """The (name, value) pairs of qdcache_options_set for Client()'s arguments."""
    if isinstance(spawn_args, (str, bytes)):
        raise TypeError("spawn_args is a list of flags, not one string")
    settings = [("client-name", "qdcache-python")]
    if socket is not None:
        settings.append(("socket", os.fspath(socket)))
    if address is not None:
        settings.append(("address", address))
    if spawn is not None:
        settings.append(("spawn", "1" if spawn else "0"))
    settings += [("spawn-arg", str(arg)) for arg in spawn_args]
    settings += [(name.replace("_", "-"), str(value)) for name, value in options.items()]
    return settings


def _lean_socket(socket: str | os.PathLike[str] | None, address: str | None, spawn: bool | None,
                 options: Mapping[str, object]) -> str | None:
    """The unix socket Client.lookup may reach over the lean transport
    without libqdcache: one named by socket= or $QDCACHE_SOCKET, with no
    spawning and no other option to honour. None: libqdcache does all (and
    resolves the endpoint). $QDCACHE_LEAN=0 turns the lean transport off."""
    if os.environ.get("QDCACHE_LEAN", "1") == "0" or address is not None or options:
        return None
    if spawn or (spawn is None and os.environ.get("QDCACHE_AUTOSPAWN", "0") not in ("", "0")):
        return None
    if socket is not None:
        path: str | None = os.fspath(socket)
    elif "QDCACHE_ADDR" in os.environ:
        return None
    else:
        path = os.environ.get("QDCACHE_SOCKET") or None
    return path if path is None or _private_dir_trusted(path) else None


def _private_dir_trusted(path: str) -> bool:
    """False for a socket under the shared /tmp fallback directory
    (/tmp/qdcached-<uid>/) unless that is a directory of this user's that no
    one else may enter: anyone could have made it first and put a daemon of
    theirs there. libqdcache then answers with its own refusal (as
    common/paths.cc's CheckPrivateDir words it)."""
    private = "/tmp/qdcached-%d/" % os.getuid()
    if not path.startswith(private):
        return True
    try:
        st = os.lstat(private[:-1])
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077 == 0


def _connect(settings: list[tuple[str, str]]) -> ctypes.c_void_p:
    """A qdcache_client handle made with these options."""
    import ctypes

    from ._lib import check, lib

    handle = ctypes.c_void_p()
    check(lib.qdcache_options_create(ctypes.byref(handle)))
    try:
        for name, value in settings:
            check(lib.qdcache_options_set(handle, text(name, "option"), text(value, name)), "option " + name)
        client = ctypes.c_void_p()
        check(lib.qdcache_connect(handle, ctypes.byref(client)), "connect")
        return client
    finally:
        lib.qdcache_options_free(handle)


class Client:
    """A connection to qdcached. Thread-safe: share one per process.

    Where, when neither socket= nor address= is given: $QDCACHE_ADDR or
    $QDCACHE_SOCKET (both set raises InvalidArgument), else the per-user
    daemon's socket ($XDG_RUNTIME_DIR/qdcached.sock), else the system
    service's (/run/qdcached/qdcached.sock) when only that one exists. TCP
    with address="host:port" takes token= and tls_ca=/tls_cert=/tls_key=
    (default: $QDCACHE_TOKEN, $QDCACHE_TLS_CA, ...). spawn=True starts a per-user
    daemon when none listens at the socket (default: $QDCACHE_AUTOSPAWN).
    timeout: per-call deadline, e.g. "30s". Other keywords are the C ABI's
    options (qdcache.h) with "_" for "-": daemon, spawn_idle_exit,
    client_name, max_message_bytes, tls_server_name; spawn_args: a list of
    flags for a spawned daemon.

    Every call raises a QdcacheError subclass when it fails: Unavailable
    when no daemon answers (its message names the socket and how to start
    one), InvalidArgument for bad input, PermissionDenied for an admin
    command without the role, ... ValueError once the client is closed.
    """

    def __init__(self, socket: str | os.PathLike[str] | None = None, address: str | None = None,
                 spawn: bool | None = None, spawn_args: Iterable[object] = (), **options: object) -> None:
        self._handle: ctypes.c_void_p | None = None
        # qdcache_client_free, bound with the handle: a client collected while
        # the interpreter shuts down cannot import it then.
        self._free: Callable[[ctypes.c_void_p], object] | None = None
        # close() may come while other threads are inside calls (ctypes lets
        # go of the GIL): the handle is freed by whoever leaves it last.
        self._lock = allocate_lock()
        self._calls = 0
        self._closing = False
        self._settings = _settings(socket, address, spawn, spawn_args, options)
        lean = _lean_socket(socket, address, spawn, options)
        # With a lean socket, libqdcache's handle is made on the first call
        # that needs it: a warm start's lookups never do.
        self._lean = _lean.Channel(lean, _LEAN_TIMEOUT_SECONDS) if lean is not None else None
        if self._lean is None:
            self._connect()

    def close(self) -> None:
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
        if handle is not None and self._free is not None:
            self._free(handle)
        lean = getattr(self, "_lean", None)
        if lean is not None:
            lean.close()

    __del__ = close

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connect(self) -> ctypes.c_void_p:
        from ._lib import lib

        handle = self._handle = _connect(self._settings)
        self._free = lib.qdcache_client_free
        return handle

    def _client(self) -> _HeldHandle:
        """The handle, held open for the duration of one call (a with block)."""
        return _HeldHandle(self)

    def _hold(self) -> ctypes.c_void_p:
        with self._lock:
            if self._closing:
                raise ValueError("the client is closed")
            handle = self._handle or self._connect()
            self._calls += 1
            return handle

    def _release(self, handle: ctypes.c_void_p) -> None:
        with self._lock:
            self._calls -= 1
            last = self._closing and self._calls == 0 and self._handle is not None
            if last:
                self._handle = None
        if last and self._free is not None:
            self._free(handle)

    def _string_call(self, what: str, function: Callable[..., Any], *args: object) -> str:
        """function(client, *args, &out) for a C function that answers a
        string (freed here); raises for its status."""
        import ctypes

        from ._lib import check, take_string

        out = ctypes.c_void_p()
        with self._client() as client:
            check(function(client, *args, ctypes.byref(out)), what)
        return take_string(out)

    def _json_call(self, what: str, function: Callable[..., Any], *args: object) -> dict[str, Any]:
        """_string_call() of a C function that answers a JSON object, parsed."""
        from ._lib import json_object

        return json_object(self._string_call(what, function, *args), what)

    def _command(self, command: str, args: Mapping[str, object] | None = None) -> dict[str, Any]:
        """What `qdcache <command> --json` prints, as a dict, through
        qdcache_command_json; args: the command's arguments (None values are
        left out). Unimplemented with a libqdcache older than ABI 1.4."""
        import json  # here: a warm start never needs it

        from ._lib import require

        given = {name: value for name, value in (args or {}).items() if value is not None}
        args_json = json.dumps(given).encode() if given else None
        return self._json_call(command, require("qdcache_command_json"), command.encode(), args_json)

    def ping(self) -> str:
        """The daemon's version ("0.1.0") once it answers its health check;
        raises Unavailable when no daemon answers."""
        from ._lib import check, has, lib, require

        if not has("qdcache_daemon_version"):  # a libqdcache older than ABI 1.4
            with self._client() as client:
                check(lib.qdcache_ping(client), "ping")
            return str(self.stats()["version"])
        return self._string_call("ping", require("qdcache_daemon_version"))

    def stats(self, reset: bool = False) -> dict[str, Any]:
        """The daemon's counters as a dict (the Stats message of the
        protocol, as `qdcache stats --json` prints it): "hits", "misses",
        "requests", "version", ..., and "levels": {"alias" | "artifact" |
        "stage" | "remote": {"hits", "misses", "hit_rate" (a float, or
        None while there is nothing to divide), "enabled"}};
        "alias_conflicts" (compiles whose fast key's alias named another
        artifact) and "alias_stale" (compiles that rebound an alias whose
        dependencies had changed). reset=True zeroes them after reading
        (admin)."""
        from ._lib import lib

        return self._json_call("stats", lib.qdcache_stats_json, 1 if reset else 0)

    def ls(self, limit: int = 0, target: str | None = None, namespace: str | None = None,
           aliases: bool = False) -> dict[str, Any]:
        """Stored artifacts, most recently used first, as `qdcache ls --json`:
        {"entries": [{"artifact_key", "kind", "target", "size" (the
        payload), "stored_bytes" (what counts against the cap), "created",
        "last_access", "compile_seconds"}]}. limit: at most this many (0:
        all); target: only that target's; namespace: only the artifacts your
        aliases in it name. aliases=True lists your fast-key aliases instead:
        {"aliases": [{"namespace", "target", "fast_key" (hex), "artifact_key"}]}."""
        return self._command("ls", {"limit": limit, "target": target, "namespace": namespace, "aliases": aliases})

    def inspect(self, key: str, include_ptx: bool = False) -> dict[str, Any]:
        """One stored artifact's metadata, as `qdcache inspect --json`. key:
        its artifact key (64 hex digits) or a unique prefix of one, of 4 hex
        digits or more (an ambiguous prefix raises InvalidArgument listing the
        candidates; one that matches nothing, NotFound)."""
        return self._command("inspect", {"key": key, "include_ptx": include_ptx})

    def evict(self, older_than: str, dry_run: bool = False) -> dict[str, Any]:
        """Evicts the entries not used for `older_than` ("30s", "12h", "7d",
        "2w"), as `qdcache evict --json`; dry_run=True only counts them."""
        return self._command("evict", {"older_than": older_than, "dry_run": dry_run})

    def trim(self, max_size: str, dry_run: bool = False) -> dict[str, Any]:
        """Evicts least recently used entries until the store holds at most
        `max_size` ("512M", "10G"), as `qdcache trim --json`; dry_run=True
        only counts them."""
        return self._command("trim", {"max_size": max_size, "dry_run": dry_run})

    def clear(self, dry_run: bool = False) -> dict[str, Any]:
        """Evicts every entry (admin), as `qdcache clear --json`; dry_run=True
        only counts them."""
        return self._command("clear", {"dry_run": dry_run})

    def verify(self) -> dict[str, Any]:
        """Checks every stored entry and drops the bad ones, as `qdcache
        verify --json`: {"checked", "dropped", "dropped_keys"}."""
        return self._command("verify")

    def targets(self) -> dict[str, Any]:
        """The targets the daemon compiles for, and its CPU's features and
        processors, as `qdcache targets --json`."""
        return self._command("targets")

    def shutdown(self) -> None:
        """Asks the daemon to drain and stop (admin, or the owner of a
        per-user daemon). Returns once it has accepted; the process exits
        after the calls in progress finish."""
        self._command("shutdown")

    def explain(self, ir: Source, target: str, other: Source | Mapping[str, Any] | None = None,
                **kernel: Any) -> dict[str, Any]:
        """What goes into the artifact key of `ir` for `target`, as `qdcache
        explain --json`: {"explanations": [{"artifact_key", "components":
        {name: value}, "error"?}], "differing": [names]}. Nothing is
        compiled or stored.

        kernel: compile()'s other keyword arguments (options, kind, headers,
                key_extras, ...).
        other: a second kernel to compare with ("differing" names the
               components that differ): its source, with the same arguments;
               or a dict of the compile() arguments in which it differs from
               the first, e.g. {"options": {"fast_math": True}}.
        """
        from collections.abc import Mapping

        first = dict(kernel, ir=ir, target=target)
        kernels = [first]
        if other is not None:
            kernels.append({**first, **(other if isinstance(other, Mapping) else {"ir": other})})
        from ._lib import require
        from ._request import request_of

        explain = require("qdcache_explain_json")
        with request_of(kernels) as request:
            return self._json_call("explain", explain, request)

    def compile(self, ir: Source, target: str, options: Mapping[str, bool | int] | None = None,
                fast_key: FastKey | None = None, namespace: str | None = None, entries: Iterable[str] | None = None,
                key_extras: Mapping[str, Text] | None = None, no_store: bool = False, recache: bool = False,
                include_ptx: bool = False, kind: str | None = None, headers: Mapping[str, Source] | None = None,
                name_expressions: Iterable[str] | None = None, defines: Iterable[str] | None = None,
                undefines: Iterable[str] | None = None,
                dependencies: Iterable[Dependency | tuple[str, bytes]] | None = None,
                alias_policy: str | None = None) -> Artifact:
        """Compiles one kernel through the cache and returns its Artifact;
        raises the QdcacheError subclass of the failure (InvalidArgument for
        bad IR or an unknown target, ...).

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
                 "link_libdevice", ...); an unknown name is a ValueError, a
                 value out of range an InvalidArgument naming it.
        fast_key + namespace: record an alias for lookup(). fast_key: bytes
                 (bytes-like), used as-is; or a str, which is HEX as `qdcache
                 compile --fast-key` and the warm manifest spell it
                 ("c0ffee01" is 4 bytes); a str that is not hex digits is a
                 ValueError (pass s.encode() for a string's raw bytes).
        dependencies: with a fast key: what the frontend read to make `ir`,
                 (name, digest) pairs (qdcache.file_dependencies(paths) for
                 files), kept with the alias so that lookup(check=...) can
                 tell when it went stale. Not part of the artifact key.
        alias_policy: when the fast key's alias names another artifact and
                 no declared dependency changed (a fast-key conflict: the
                 fast key misses an input; see Artifact.alias_conflict):
                 "rebind" (the default: the alias moves to this artifact),
                 "strict" (it stays) or "off" (it moves, unreported);
                 anything else is a ValueError. The daemon may enforce a
                 stricter one.
        entries: the kernel names to launch (checked to exist).
        key_extras: {name: value} of client-side inputs folded into the key.
        """
        from ._request import KernelSpec

        [result] = self.compile_many([KernelSpec(
            ir=ir, target=target, options=options, fast_key=fast_key, namespace=namespace, entries=entries,
            key_extras=key_extras, no_store=no_store, recache=recache, kind=kind, headers=headers,
            name_expressions=name_expressions, defines=defines, undefines=undefines, dependencies=dependencies,
            alias_policy=alias_policy)], include_ptx=include_ptx)
        if result.error is not None:
            raise result.error
        assert result.artifact is not None  # a compile's item without error has its artifact
        return result.artifact

    def compile_many(self, kernels: Iterable[KernelSpec], include_ptx: bool = False) -> list[Result]:
        """Compiles a batch in one call: `kernels` is a list of dicts of
        compile()'s keyword arguments. Returns one Result per kernel, in order
        (an item's failure is in its Result, not raised)."""
        import ctypes

        from ._lib import check, lib
        from ._request import request_of
        from ._results_native import results_of

        with request_of(kernels, include_ptx) as request:
            out = ctypes.c_void_p()
            with self._client() as client:
                check(lib.qdcache_compile(client, request, ctypes.byref(out)), "compile")
        return results_of(out)

    def lookup(self, fast_keys: Iterable[FastKey], namespace: str, target: str, include_ptx: bool = False,
               check: Callable[[Sequence[Dependency]], bool] | None = None) -> list[Artifact | None]:
        """Artifacts by fast key alone, no IR sent: one Artifact, or None for a
        miss, per key, in order. A key is bytes (used as-is) or a str of hex
        digits, as in compile(). Raises the QdcacheError subclass if the call
        or an item fails.

        check: called with the dependencies of each hit that has some (those
               its compile declared); a hit for which it returns False is a
               miss (None). qdcache.files_unchanged checks file_dependencies().
               It runs here, after the one call to the daemon. Compile such a
               kernel again with the same fast key and its fresh
               dependencies: that rebinds the alias (the daemon counts it in
               stats()["alias_stale"], not as a conflict).
        """
        if isinstance(fast_keys, (str, bytes)):
            raise TypeError("fast_keys is a list of keys, not one key")
        fast_keys = list(fast_keys)  # read twice when the lean transport falls back
        if self._lean is not None and self._lean.enabled:
            found = self._lean_lookup(fast_keys, namespace, target, include_ptx)
            if found is not None:
                if check is not None:
                    _require_dependencies()
                    return [_unless_stale(artifact, check) for artifact in found]
                return found
        import ctypes

        from . import _lib
        from ._results_native import results_of

        keys = [_lib.buffer_pointer(fast_key_bytes(key), "fast key") for key in fast_keys]
        count = len(keys)
        pointers = (ctypes.c_void_p * max(count, 1))(*[k[0] for k in keys])
        sizes = (ctypes.c_size_t * max(count, 1))(*[k[1] for k in keys])
        if check is not None:
            _require_dependencies()
        out = ctypes.c_void_p()
        with self._client() as client:
            _lib.check(_lib.lib.qdcache_lookup(client, text(namespace, "namespace"), text(target, "target"), pointers,
                                          sizes, count, 1 if include_ptx else 0, ctypes.byref(out)), "lookup")
        found = [_artifact_or_miss(result) for result in results_of(out)]
        if check is None:
            return found
        return [_unless_stale(artifact, check) for artifact in found]

    def _lean_lookup(self, fast_keys: Iterable[FastKey], namespace: Text, target: Text,
                     include_ptx: bool) -> list[Artifact | None] | None:
        """lookup() over the lean transport; None when it cannot carry this
        call (the caller then makes it through libqdcache, which answers it
        the same way, errors included)."""
        assert self._lean is not None
        keys = fast_keys_bytes(list(fast_keys))  # TypeError for a non-key
        namespace_text, target_text = text(namespace, "namespace"), text(target, "target")
        with self._lock:
            if self._closing:
                raise ValueError("the client is closed")
        try:
            body = _lean.lookup_request(keys, namespace_text, target_text.decode(), include_ptx)
            answer = self._lean.lookup(body)
        except _lean.Fallback:
            return None
        if len(answer.items) != len(keys):
            raise error_for(13, "INTERNAL", "unix:%s: the daemon answered %d of %d fast keys"
                            % (self._lean.path, len(answer.items), len(keys)), "lookup")
        return lean_artifacts_of(answer)

    def explain_key(self, key: str, other: str | None = None) -> dict[str, Any]:
        """What went into a stored artifact's key, from the key alone, as
        `qdcache explain --key KEY [--key OTHER] --json`; with `other`, which
        components the two differ in. Keys: 64 hex digits or a unique prefix
        (as inspect()). Answers {"artifacts": [{"artifact_key", "stored",
        "components_known", "components": {name: value}, "target"?,
        "toolchain"?, "created"?}], "differences": [{"name", "before",
        "after"}]}; "components_known" is False for an artifact stored by an
        older daemon."""
        return self._command("explain", {"key": key, "other": other})

    def explain_alias(self, fast_key: FastKey, namespace: str, target: str) -> dict[str, Any]:
        """A fast key's alias, as `qdcache explain --fast-key ... --json`:
        explain_key()'s answer for the artifact it names, and "alias":
        {"found", "artifact_key" (None when not found), "dependencies":
        [{"name", "digest" (hex)}], "conflicts": [{"time",
        "previous_artifact_key", "artifact_key", "differing": [names],
        "policy", "rebound"}]} (the daemon's recent fast-key conflicts of
        this alias). fast_key: as in compile()."""
        fast_key_hex = bytes(fast_key_bytes(fast_key)).hex()
        return self._command("explain", {"fast_key": fast_key_hex, "namespace": namespace, "target": target})


def _require_dependencies() -> None:
    """Raises Unimplemented with a libqdcache older than ABI 1.5, where every
    hit would pass lookup(check=...) unchecked."""
    from ._lib import require

    require("qdcache_result_dependency_count")


def _artifact_or_miss(result: Result) -> Artifact | None:
    """A lookup item's artifact, None for a miss; raises its error."""
    if result.error is not None:
        raise result.error
    return result.artifact


class _HeldHandle:
    """Client._client(): `with` it for the handle, held open for one call."""

    def __init__(self, client: Client) -> None:
        self._owner = client

    def __enter__(self) -> ctypes.c_void_p:
        self._handle = self._owner._hold()
        return self._handle

    def __exit__(self, *exc: object) -> None:
        self._owner._release(self._handle)


def _unless_stale(artifact: Artifact | None, check: Callable[[Sequence[Dependency]], bool]) -> Artifact | None:
    """A lookup's hit, or None (a miss) when `check` says its dependencies changed."""
    if artifact is None or not artifact.dependencies or check(artifact.dependencies):
        return artifact
    return None
