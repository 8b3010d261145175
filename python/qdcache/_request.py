"""Building a qdcache_request from compile()'s keyword arguments, and the
spelling of a fast key."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from . import _lib
from ._dependencies import Dependency
from ._lib import check, lib
from ._text import fast_key_bytes, text

if TYPE_CHECKING:
    from ._types import FastKey, Source, Text


class _KernelSource(TypedDict):
    ir: Source
    target: str


class KernelSpec(_KernelSource, total=False):
    """One kernel of Client.compile_many(): compile()'s keyword arguments
    (ir and target required; include_ptx is the batch's)."""

    options: Mapping[str, bool | int] | None
    fast_key: FastKey | None
    namespace: str | None
    entries: Iterable[str] | None
    key_extras: Mapping[str, Text] | None
    no_store: bool
    recache: bool
    kind: str | None
    headers: Mapping[str, Source] | None
    name_expressions: Iterable[str] | None
    defines: Iterable[str] | None
    undefines: Iterable[str] | None
    dependencies: Iterable[Dependency | tuple[str, bytes]] | None
    alias_policy: str | None


_option_names: set[str] = set()


def _compile_option_names() -> set[str]:
    """The compile options the library knows, from its catalogue (read on
    first use: importing the package loads no library). Names
    compile(options=...) takes are these, also with "-" for "_", and "opt"
    for opt_level."""
    if not _option_names:
        names: set[str] = set()
        while True:
            name: bytes | None = lib.qdcache_compile_option_name(len(names))
            if name is None:
                break
            names.add(name.decode())
        _option_names.update(names)
    return _option_names


# What a fast-key conflict does (the alias names another artifact), as
# qdcache_request_set's alias-policy spells it.
_ALIAS_POLICIES = ("rebind", "strict", "off")



def _option_text(value: bool | int) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    raise TypeError("option values are bool or int, not %s" % type(value).__name__)


def _settings(options: Mapping[str, bool | int] | None, kind: str | None, namespace: str | None, no_store: bool,
              recache: bool, alias_policy: str | None) -> list[tuple[str, str]]:
    """The (name, value) pairs of qdcache_request_set for one kernel;
    ValueError for an option name the catalogue lacks, or an alias policy
    other than "rebind", "strict" or "off"."""
    settings = []
    for name, value in (options or {}).items():
        known = _compile_option_names()
        if name.replace("-", "_") not in known and name != "opt":
            raise ValueError("unknown compile option %r (known: %s)" % (name, ", ".join(sorted(known))))
        settings.append((name, _option_text(value)))
    if kind is not None:
        settings.append(("kind", kind))
    if namespace is not None:
        settings.append(("namespace", namespace))
    if no_store:
        settings.append(("no-store", "1"))
    if recache:
        settings.append(("recache", "1"))
    if alias_policy is not None:
        if alias_policy not in _ALIAS_POLICIES:
            raise ValueError("alias_policy is 'rebind', 'strict' or 'off', not %r" % (alias_policy,))
        _lib.require_abi(5, "the alias-policy option")
        settings.append(("alias-policy", alias_policy))
    return settings


def _append_source(request: ctypes.c_void_p, ir: Source, target: str) -> int:
    """qdcache_request_add_kernel: the new kernel's index."""
    pointer, size, keep = _lib.buffer_pointer(ir, "ir")
    index = ctypes.c_size_t()
    check(lib.qdcache_request_add_kernel(request, pointer, size, text(target, "target"), ctypes.byref(index)))
    del keep  # the request holds its own copy now
    return index.value


def _set_fast_key(request: ctypes.c_void_p, i: int, fast_key: FastKey) -> None:
    key, key_size, _key_alive = _lib.buffer_pointer(fast_key_bytes(fast_key), "fast_key")
    check(lib.qdcache_request_set_fast_key(request, i, key, key_size))


def _add_key_extras(request: ctypes.c_void_p, i: int, key_extras: Mapping[str, Text]) -> None:
    for name, value in key_extras.items():
        check(lib.qdcache_request_add_key_extra(request, i, text(name, "key_extras name"), text(value, name)))


def _add_headers(request: ctypes.c_void_p, i: int, headers: Mapping[str, Source]) -> None:
    for name, content in headers.items():
        data, data_size, _header_alive = _lib.buffer_pointer(content, "header " + str(name))
        check(lib.qdcache_request_add_header(request, i, text(name, "header name"), data, data_size))


def _add_dependencies(request: ctypes.c_void_p, i: int,
                      dependencies: Iterable[Dependency | tuple[str, bytes]] | None) -> None:
    """qdcache_request_add_dependency of each (name, digest) pair."""
    if dependencies is None:
        return
    if isinstance(dependencies, (str, bytes, Dependency)):
        raise TypeError("dependencies: a list of (name, digest) pairs, not one")
    add = _lib.require("qdcache_request_add_dependency")
    for name, digest in dependencies:
        if isinstance(digest, str):
            raise TypeError("the digest of dependency %r is str: pass the raw digest as bytes" % name)
        data, data_size, _digest_alive = _lib.buffer_pointer(digest, "digest of " + str(name))
        check(add(request, i, text(name, "dependency name"), data, data_size), "dependency " + str(name))


def _add_texts(request: ctypes.c_void_p, i: int, what: str, values: Iterable[str] | None) -> None:
    """qdcache_request_add_text of each value ("name-expression", "define", "undefine")."""
    if isinstance(values, (str, bytes)):
        raise TypeError("%ss: a list of strings, not one string" % what.replace("-", "_"))
    for value in values or ():
        check(lib.qdcache_request_add_text(request, i, what.encode(), text(value, what)))


def _add_kernel(request: ctypes.c_void_p, ir: Source, target: str, options: Mapping[str, bool | int] | None = None,
                fast_key: FastKey | None = None, namespace: str | None = None, entries: Iterable[str] | None = None,
                key_extras: Mapping[str, Text] | None = None, no_store: bool = False, recache: bool = False,
                kind: str | None = None, headers: Mapping[str, Source] | None = None,
                name_expressions: Iterable[str] | None = None, defines: Iterable[str] | None = None,
                undefines: Iterable[str] | None = None,
                dependencies: Iterable[Dependency | tuple[str, bytes]] | None = None,
                alias_policy: str | None = None) -> None:
    """Appends one kernel, given as compile()'s keyword arguments, to `request`."""
    i = _append_source(request, ir, target)
    for name, value in _settings(options, kind, namespace, no_store, recache, alias_policy):
        check(lib.qdcache_request_set(request, i, text(name, "option"), text(value, name)), "option " + name)
    if fast_key is not None:
        _set_fast_key(request, i, fast_key)
    for entry in entries or ():
        check(lib.qdcache_request_add_entry(request, i, text(entry, "entry")))
    _add_key_extras(request, i, key_extras or {})
    _add_headers(request, i, headers or {})
    _add_texts(request, i, "name-expression", name_expressions)
    _add_texts(request, i, "define", defines)
    _add_texts(request, i, "undefine", undefines)
    _add_dependencies(request, i, dependencies)


@contextlib.contextmanager
def request_of(kernels: Iterable[Mapping[str, Any]], include_ptx: bool = False) -> Iterator[ctypes.c_void_p]:
    """A qdcache_request holding `kernels` (each compile()'s keyword
    arguments), freed when the block ends."""
    request = ctypes.c_void_p()
    check(lib.qdcache_request_create(ctypes.byref(request)))
    try:
        for kernel in kernels:
            _add_kernel(request, **kernel)
        if include_ptx:
            check(lib.qdcache_request_set(request, 0, b"include-ptx", b"1"))
        yield request
    finally:
        lib.qdcache_request_free(request)
