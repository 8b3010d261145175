#!/usr/bin/env python3
"""Numba as the frontend, qdcached as the compiler and cache: Numba turns
Python functions into LLVM IR (as bitcode), qdcached compiles it for the CPU
through its cache, and this process loads and calls the shared objects that
come back.

    python3 examples/python/numba_cpu.py

The first run compiles with Numba; a later run finds every function by its
fast key (made from the function's source, its signature and the Numba
release) and never imports Numba at all: a warm start. The daemon is the
per-user one, started on demand, or the one at $QDCACHE_SOCKET. Exit status
0 when every result matches plain Python's. Needs Numba (Debian:
python3-numba).
"""

import time

START = time.perf_counter()  # the run's time includes importing qdcache (and Numba, when it is needed)

import array  # noqa: E402
import ctypes  # noqa: E402
import hashlib  # noqa: E402
import importlib.metadata  # noqa: E402
import inspect  # noqa: E402
import sys  # noqa: E402

import qdcache  # noqa: E402

NAMESPACE = "example-numba"
FRONTEND_VERSION = "numba-cpu-example/1"  # bump when this script changes how it makes IR
TARGET = "cpu:x86-64"


# The user's functions: plain Python, compiled by Numba only on a miss.
def hypot(x, y):
    return (x * x + y * y) ** 0.5


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def saxpy(n, a, x, y):  # x, y: float32 pointers
    for i in range(n):
        y[i] = a * x[i] + y[i]


# Each function with its signature, as Numba's type strings and as ctypes.
FUNCTIONS = [
    (hypot, "float64(float64, float64)", ctypes.c_double, [ctypes.c_double, ctypes.c_double]),
    (collatz_steps, "int64(int64)", ctypes.c_int64, [ctypes.c_int64]),
    (saxpy, "void(int64, float32, CPointer(float32), CPointer(float32))", None,
     [ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p]),
]

numba_compiles = 0


def fast_key(function, signature):
    """What decides the IR, hashed: the function's source, its signature,
    the frontend (Numba's and llvmlite's releases, read from their package
    metadata without importing them; this script's version) and the target.
    (A framework would also hash the globals a function reads.)"""
    h = hashlib.sha256()
    for part in (FRONTEND_VERSION, importlib.metadata.version("numba"), importlib.metadata.version("llvmlite"),
                 "%d.%d" % sys.version_info[:2], signature, TARGET, inspect.getsource(function)):
        h.update(part.encode() + b"\0")
    return h.digest()


def numba_bitcode(function, signature):
    """Numba's LLVM module for `function` as a C-callable function, with its
    entry point renamed to the function's own name; as bitcode, which LLVM 19
    reads from Numba's older LLVM."""
    global numba_compiles
    import llvmlite.binding
    import numba

    numba_compiles += 1
    compiled = numba.cfunc(signature)(function)
    module = llvmlite.binding.parse_assembly(compiled.inspect_llvm())
    module.get_function(compiled.native_name).name = function.__name__
    return module.as_bitcode()


def load(client):
    """Every function as a ctypes callable: by fast key, in one round trip;
    whatever misses is made by Numba and compiled (recording its key)."""
    keys = [fast_key(f, signature) for f, signature, _, _ in FUNCTIONS]
    found = client.lookup(keys, namespace=NAMESPACE, target=TARGET)
    callables = {}
    for (function, signature, restype, argtypes), key, artifact in zip(FUNCTIONS, keys, found):
        if artifact is None:
            artifact = client.compile(numba_bitcode(function, signature), target=TARGET, fast_key=key,
                                      namespace=NAMESPACE, entries=[function.__name__])
        print("%-14s %6d bytes  %-9s key %s..." % (function.__name__, len(artifact), artifact.status,
                                                  artifact.key[:16]))
        module = qdcache.load_cpu(artifact)
        callables[function.__name__] = module.function(function.__name__, restype, argtypes)
    return callables


def check(callables):
    """The compiled functions against plain Python; True when all agree."""
    ok = True
    for x, y in ((3.0, 4.0), (1.5, -2.0)):
        ok &= abs(callables["hypot"](x, y) - hypot(x, y)) < 1e-12
    for n in (1, 6, 27, 97):
        ok &= callables["collatz_steps"](n) == collatz_steps(n)
    n, a = 1000, 2.5
    x = array.array("f", (i * 0.5 for i in range(n)))
    y = array.array("f", (1.0 for _ in range(n)))
    expected = array.array("f", (a * xi + yi for xi, yi in zip(x, y)))
    callables["saxpy"](n, a, x.buffer_info()[0], y.buffer_info()[0])
    ok &= all(abs(got - want) <= 1e-5 * max(1.0, abs(want)) for got, want in zip(y, expected))
    return bool(ok)


def main():
    client = qdcache.Client(spawn=True)  # at $QDCACHE_SOCKET if set (the library reads it)
    callables = load(client)
    loaded = time.perf_counter() - START
    ok = check(callables)
    print("%d functions callable %.3f s after start; Numba compiled %d of them%s" % (
        len(FUNCTIONS), loaded, numba_compiles, "" if "numba" in sys.modules else " (Numba not imported)"))
    print("results match Python" if ok else "RESULTS DIFFER FROM PYTHON")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
