"""Loading artifacts: CPU always; CUDA launches only where a GPU is."""

import array
import ctypes
import unittest

import qdcache
from support import Daemon, read_data


class CpuLoadTest(unittest.TestCase):
    def test_refuses_what_is_not_a_shared_object(self):
        with self.assertRaises(qdcache.InvalidArgument) as err:
            qdcache.load_cpu(b"\x7fELF but not really")
        self.assertEqual(err.exception.code_name, "INVALID_ARGUMENT")

    def test_missing_symbol_is_not_found(self):
        with Daemon() as daemon, qdcache.Client(socket=daemon.socket) as client:
            module = qdcache.load_cpu(client.compile(read_data("cpu/saxpy.ll"), target="cpu:x86-64"))
            with self.assertRaises(qdcache.NotFound) as err:
                module.symbol("nope")
            self.assertEqual(err.exception.code_name, "NOT_FOUND")
            self.assertNotEqual(module.symbol("saxpy"), 0)


class CudaLaunchTest(unittest.TestCase):
    def setUp(self):
        available, why = qdcache.cuda_available()
        if not available:
            self.skipTest("no CUDA device: " + why)

    def test_saxpy_on_the_gpu_matches_python(self):
        sm = "cuda:sm_%d" % qdcache.cuda_compute_capability(0)
        with Daemon() as daemon, qdcache.Client(socket=daemon.socket) as client:
            cubin = client.compile(read_data("cuda/saxpy.ll"), target=sm, entries=["saxpy"])
        n = 4096
        x = array.array("f", (float(i) for i in range(n)))
        y = array.array("f", (2.0 for _ in range(n)))
        dx, dy = qdcache.DeviceBuffer.from_bytes(x), qdcache.DeviceBuffer.from_bytes(y)
        module = qdcache.load_cuda(cubin)
        module.saxpy.launch((n + 255) // 256, 256, [ctypes.c_int32(n), ctypes.c_float(0.5), dx, dy])
        qdcache.synchronize()
        out = array.array("f")
        out.frombytes(dy.read())
        self.assertEqual(list(out), [ctypes.c_float(0.5 * a + b).value for a, b in zip(x, y)])


if __name__ == "__main__":
    unittest.main()
