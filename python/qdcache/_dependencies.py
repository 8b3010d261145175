"""Dependencies of a fast key: what a frontend read to make a kernel (source
files, config files), declared with its compile and checked when a lookup
finds the alias, so that an alias made from files that changed since is a
miss instead of a stale artifact (docs/integration.md, "Fast keys").

The daemon keeps the (name, digest) pairs with the alias and returns them;
the names and digests are the client's. For files: the path, and the SHA-256
of the file's bytes, the digest the C ABI's qdcache_file_sha256 computes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

# Read in chunks of this many bytes: a large file is hashed without holding it.
_CHUNK_BYTES = 1 << 20


class Dependency(NamedTuple):
    """Something a kernel was made from: name (UTF-8, unique per kernel; a
    file's path for file_dependencies()) and digest (1 to 64 bytes, the
    raw digest, not hex)."""

    name: str
    digest: bytes


def file_digest(path: str | os.PathLike[str]) -> bytes:
    """The SHA-256 of the file's bytes (32 bytes), read in chunks; raises
    OSError when it cannot be read."""
    import hashlib  # here: loading OpenSSL is most of importing it

    sha256 = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK_BYTES), b""):
            sha256.update(chunk)
    return sha256.digest()


def file_dependencies(paths: Iterable[str | os.PathLike[str]]) -> list[Dependency]:
    """A Dependency per file, named by its path as given (a relative one is
    checked against the current directory of the check) with file_digest();
    raises OSError for a file that cannot be read."""
    if isinstance(paths, (str, bytes)) or isinstance(paths, os.PathLike):
        raise TypeError("paths is a list of paths, not one path")
    return [Dependency(os.fspath(path), file_digest(path)) for path in paths]


def files_unchanged(dependencies: Sequence[Dependency]) -> bool:
    """Whether every file named still has its digest: the check of
    Client.lookup() for file_dependencies(). A file that cannot be read has
    changed."""
    for name, digest in dependencies:
        try:
            if file_digest(name) != digest:
                return False
        except OSError:
            return False
    return True
