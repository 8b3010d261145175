"""How arguments are spelled at the boundary: text for a `const char*`,
and a fast key's bytes. Imports nothing: the lean transport's warm start
uses these without ctypes or libqdcache."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._types import BytesLike, FastKey, Text


def text(value: Text, what: str) -> bytes:
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


def fast_key_bytes(key: FastKey) -> BytesLike:
    """A fast key as the bytes the daemon sees: a bytes-like key as-is; a str
    is hex, one spelling with the CLI and the manifest ("c0ffee01" is the
    4 bytes c0 ff ee 01). Raises ValueError for a str that is not a
    non-empty, even number of hex digits and nothing else."""
    if not isinstance(key, str):
        return key
    # ASCII letters and digits only first: bytes.fromhex allows whitespace.
    if key.isascii() and key.isalnum() and len(key) % 2 == 0:
        try:
            return bytes.fromhex(key)
        except ValueError:
            pass
    raise ValueError(
        "fast key %r is not hex: the text form of a fast key is hex (as `qdcache compile --fast-key` "
        "takes it, e.g. \"c0ffee01\"); pass bytes (e.g. s.encode()) to use a string's raw bytes" % key
    )


def fast_keys_bytes(keys: list[FastKey]) -> list[bytes]:
    """fast_key_bytes of every key, each as bytes (a bytes-like key copied),
    with the same errors; a warm start's thousands of hex keys are checked
    at once."""
    texts = [key for key in keys if isinstance(key, str)]
    if texts and len(texts) == len(keys):
        # bytes.fromhex takes hex digits and skips ASCII whitespace: with no
        # whitespace and no empty key, it accepts what fast_key_bytes does.
        joined = "".join(texts)
        if joined.isascii() and all(texts) and not any(c in joined for c in " \t\n\r\x0b\x0c"):
            try:
                return list(map(bytes.fromhex, texts))
            except ValueError:
                pass  # worded below, for the key at fault
    return [memoryview(fast_key_bytes(key)).tobytes() for key in keys]
