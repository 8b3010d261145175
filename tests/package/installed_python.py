"""Run by package_test.sh inside the Debian root, with Debian's python3 and
the installed python3-qdcache: compile a CPU kernel through the installed
daemon, run it, look it up again by fast key, and print the package's
version. Exits non-zero on any difference."""
import ctypes
import sys

import qdcache

socket, ir_path = sys.argv[1], sys.argv[2]
with open(ir_path, "rb") as f:
    ir = f.read()
client = qdcache.Client(socket=socket, spawn=False)
artifact = client.compile(ir, target="cpu:x86-64", fast_key=b"package-test-saxpy", namespace="package-test")
saxpy = qdcache.load_cpu(artifact).function(
    "saxpy", None, [ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p])
n = 8
x = (ctypes.c_float * n)(*range(n))
y = (ctypes.c_float * n)(*([1.0] * n))
saxpy(n, 2.0, ctypes.addressof(x), ctypes.addressof(y))
expected = [2.0 * i + 1.0 for i in range(n)]
if list(y) != expected:
    sys.exit(f"saxpy computed {list(y)}, expected {expected}")
[again] = client.lookup([b"package-test-saxpy"], namespace="package-test", target="cpu:x86-64")
if bytes(again.payload) != bytes(artifact.payload):
    sys.exit("the fast-key lookup returned other bytes than the compile")
print(f"python3-qdcache {qdcache.__version__}: compiled, ran and looked up saxpy through {socket}")
