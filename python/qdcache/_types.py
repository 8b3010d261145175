"""Type aliases of the public surface, for type checkers only: the type of a
bytes-like object ("anything with the buffer protocol") exists only in
typeshed before Python 3.12, so these names are defined under TYPE_CHECKING
and imported the same way:

    if TYPE_CHECKING:
        from ._types import Source
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from typing import TypeAlias

    from _typeshed import ReadableBuffer

    # bytes, bytearray, memoryview, array.array, mmap, ...
    BytesLike: TypeAlias = ReadableBuffer
    # A kernel's source, header content or payload: bytes-like, or str (UTF-8).
    Source: TypeAlias = Union[str, ReadableBuffer]
    # A fast key: bytes-like, as-is; or str, hex ("c0ffee01"), as the CLI spells it.
    FastKey: TypeAlias = Union[str, ReadableBuffer]
    # Text for a `const char*`: str, or bytes holding UTF-8.
    Text: TypeAlias = Union[str, bytes]
