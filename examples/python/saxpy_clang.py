#!/usr/bin/env python3
"""A kernel framework in miniature: clang-19 turns C and CUDA sources into
LLVM IR, qdcached compiles the IR (through its cache), and this process
loads and runs what comes back.

    python3 examples/python/saxpy_clang.py [--sm 80]

The first run compiles; later runs find both kernels by their fast keys and
never start clang at all (a warm start). The daemon is the per-user one,
started on demand, or the one at $QDCACHE_SOCKET. Exit status 0 when the
CPU kernel's results match Python's (and the GPU's, where there is one).
"""

import argparse
import array
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import sys

import qdcache

HERE = os.path.dirname(os.path.abspath(__file__))
CLANG = os.environ.get("CLANG", "clang-19")
NAMESPACE = "example-saxpy"
FRONTEND_VERSION = "saxpy-example/1"  # bump when this script changes how it makes IR

CPU_FLAGS = ["--target=x86_64-unknown-linux-gnu", "-O2", "-fPIC", "-S", "-emit-llvm", "-o", "-"]


def cuda_flags(sm):
    return ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_%d" % sm, "-nocudainc", "-nocudalib",
            "-Wno-unknown-cuda-version", "-O2", "-S", "-emit-llvm", "-o", "-"]


@functools.lru_cache(maxsize=None)
def clang_version():
    clang = shutil.which(CLANG)
    if clang is None:
        sys.exit("saxpy: %s not found (Debian: apt-get install clang-19)" % CLANG)
    return subprocess.run([clang, "--version"], check=True, capture_output=True, text=True).stdout


def fast_key(source_path, flags, target):
    """What decides the IR, hashed: the kernel's source text, the frontend
    (clang's version and this script's), its flags, and the target. Cheap to
    compute, so a warm start skips clang entirely (docs/integration.md)."""
    h = hashlib.sha256()
    for part in (FRONTEND_VERSION, clang_version(), " ".join(flags), target):
        h.update(part.encode() + b"\0")
    with open(source_path, "rb") as f:
        h.update(f.read())
    return h.digest()


def kernel(client, source, flags, target):
    """The artifact for `source`: by fast key if the daemon has it, else
    clang -> IR -> compile (recording the fast key)."""
    path = os.path.join(HERE, "kernels", source)
    key = fast_key(path, flags, target)
    [artifact] = client.lookup([key], namespace=NAMESPACE, target=target)
    if artifact is None:
        ir = subprocess.run([CLANG] + flags + [path], check=True, capture_output=True).stdout
        artifact = client.compile(ir, target=target, fast_key=key, namespace=NAMESPACE, entries=["saxpy"])
    print("%-12s %-13s %6d bytes  %-9s key %s..." % (source, artifact.target, len(artifact), artifact.status,
                                                    artifact.key[:16]))
    return artifact


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sm", type=int, default=0, help="CUDA SM to compile for (default: the GPU's, else 80)")
    args = parser.parse_args()
    client = qdcache.Client(spawn=True)  # at $QDCACHE_SOCKET if set (the library reads it)

    n, a = 10000, 2.5
    x = array.array("f", (i * 0.25 for i in range(n)))
    y = array.array("f", (1.0 - i for i in range(n)))
    expected = [ctypes.c_float(a * xi + yi).value for xi, yi in zip(x, y)]

    cpu = kernel(client, "saxpy.c", CPU_FLAGS, "cpu:x86-64")
    saxpy = qdcache.load_cpu(cpu).function("saxpy", None, [ctypes.c_long, ctypes.c_float, ctypes.c_void_p,
                                                           ctypes.c_void_p])
    y_cpu = array.array("f", y)
    saxpy(n, a, x.buffer_info()[0], y_cpu.buffer_info()[0])
    ok = list(y_cpu) == expected
    print("cpu  saxpy on %d floats: %s" % (n, "matches Python" if ok else "WRONG"))

    gpu, why = qdcache.cuda_available()
    sm = args.sm or (qdcache.cuda_compute_capability() if gpu else 80)
    try:
        cubin = kernel(client, "saxpy.cu", cuda_flags(sm), "cuda:sm_%d" % sm)
    except qdcache.QdcacheError as e:
        print("cuda kernel not compiled: %s" % e)
        return 0 if ok else 1
    if not gpu:
        print("cuda saxpy not run: %s" % why)
        return 0 if ok else 1
    dx, dy = qdcache.DeviceBuffer.from_bytes(x), qdcache.DeviceBuffer.from_bytes(y)
    module = qdcache.load_cuda(cubin)
    module.saxpy.launch((n + 255) // 256, 256, [ctypes.c_int(n), ctypes.c_float(a), dx, dy])
    qdcache.synchronize()
    y_gpu = array.array("f")
    y_gpu.frombytes(dy.read())
    gpu_ok = list(y_gpu) == expected
    print("cuda saxpy on %d floats: %s" % (n, "matches Python" if gpu_ok else "WRONG"))
    return 0 if ok and gpu_ok else 1


if __name__ == "__main__":
    sys.exit(main())
