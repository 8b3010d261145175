"""Loading artifacts: CPU always; CUDA and HIP launches only where a GPU is."""

import array
import ctypes
import os
import subprocess
import sys
import tempfile
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


class HipWithoutGpuTest(unittest.TestCase):
    """What holds on any machine: refusals before the runtime, and clear
    reasons without one (no AMD GPU exists where these tests run in CI)."""

    def test_refuses_an_artifact_of_another_kind(self):
        with Daemon() as daemon, qdcache.Client(socket=daemon.socket) as client:
            artifact = client.compile(read_data("cpu/saxpy.ll"), target="cpu:x86-64")
        with self.assertRaises(ValueError) as err:
            qdcache.load_hip(artifact)
        self.assertIn("not a hsa_code_object", str(err.exception))

    def test_an_amdgpu_artifact_carries_its_kernels_and_waits_for_a_gpu(self):
        with Daemon() as daemon, qdcache.Client(socket=daemon.socket) as client:
            artifact = client.compile(read_data("amdgpu/block_reduce.ll"), target="amdgpu:GFX942")
        self.assertEqual(artifact.kind, "hsa_code_object")
        self.assertEqual(artifact.target, "amdgpu:gfx942")
        self.assertEqual(bytes(artifact.payload[:4]), b"\x7fELF")
        entries = {e["name"]: e for e in artifact.metadata["entries"]}
        self.assertEqual(sorted(entries), ["block_reduce", "scale"])
        self.assertEqual(entries["block_reduce"]["shared_bytes"], 1024)
        self.assertEqual(entries["block_reduce"]["max_threads_per_block"], 256)
        self.assertEqual(entries["block_reduce"]["wavefront_size"], 64)
        self.assertGreater(entries["block_reduce"]["sgprs"], 0)
        available, why = qdcache.hip_available()
        if available:
            self.assertEqual(qdcache.load_hip(artifact).kernel("scale").name, "scale")
            return
        with self.assertRaises(qdcache.Unavailable) as err:
            qdcache.load_hip(artifact)
        message = str(err.exception)
        self.assertTrue("no AMD GPU" in message or "no HIP runtime" in message, message)

    def test_says_why_there_is_no_amd_gpu(self):
        available, why = qdcache.hip_available()
        if available:
            self.skipTest("an AMD GPU is present")
        self.assertTrue("no AMD GPU" in why or "no HIP runtime" in why, why)

    def test_without_a_gpu_loads_and_buffers_are_unavailable(self):
        available, why = qdcache.hip_available()
        if available:
            self.skipTest("an AMD GPU is present")
        with self.assertRaises(qdcache.Unavailable) as err:
            qdcache.load_hip(b"\x7fELF whatever the bytes")  # the runtime is checked first
        self.assertEqual(err.exception.message, why)
        with self.assertRaises(qdcache.Unavailable):
            qdcache.HipDeviceBuffer(64)
        with self.assertRaises(qdcache.Unavailable):
            qdcache.hip_synchronize()

    def test_a_missing_runtime_is_unavailable_naming_it(self):
        # The runtime is chosen once per process: ask a fresh interpreter.
        with tempfile.TemporaryDirectory() as scratch:
            missing = os.path.join(scratch, "no-rocm", "libamdhip64.so")
            child = subprocess.run(
                [sys.executable, "-c", "import qdcache; print(qdcache.hip_available())"],
                env=dict(os.environ, QDCACHE_HIP_LIBRARY=missing), capture_output=True, text=True, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertIn("(False, ", child.stdout)
        self.assertIn(missing, child.stdout)
        self.assertIn("no HIP runtime", child.stdout)


class HipLaunchTest(unittest.TestCase):
    def setUp(self):
        available, why = qdcache.hip_available()
        if not available:
            self.skipTest("no AMD GPU: " + why)

    def test_device_buffers_round_trip(self):
        data = array.array("f", (float(i) for i in range(1024)))
        buffer = qdcache.HipDeviceBuffer.from_bytes(data)
        self.assertNotEqual(buffer.address, 0)
        out = array.array("f")
        out.frombytes(buffer.read())
        self.assertEqual(out, data)
        qdcache.hip_synchronize()


if __name__ == "__main__":
    unittest.main()
