"""qdcache.Client against a real daemon: compile, lookup, stats, errors."""

import array
import ctypes
import threading
import unittest

import qdcache
from support import Daemon, read_data

CPU = "cpu:x86-64"


class CompileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon().__enter__()
        try:
            cls.client = qdcache.Client(socket=cls.daemon.socket, spawn=False)
            cls.saxpy = read_data("cpu/saxpy.ll")
        except BaseException:  # tearDownClass will not run
            cls.daemon.__exit__(None, None, None)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.__exit__(None, None, None)

    def test_compiles_then_hits_with_the_same_artifact(self):
        ir = read_data("cpu/stencil2d.ll")
        first = self.client.compile(ir, target=CPU, options={"opt": 2})
        again = self.client.compile(ir, target=CPU, options={"opt": 2})
        self.assertEqual(first.status, "compiled")
        self.assertEqual(again.status, "hit")
        self.assertEqual(first.key, again.key)
        self.assertEqual(len(first.key), 64)
        self.assertEqual(first.kind, "shared_object")
        self.assertEqual(first.target, "cpu:x86-64")
        self.assertEqual(bytes(first.payload[:4]), b"\x7fELF")
        self.assertEqual(bytes(first), bytes(again))
        self.assertTrue(first.payload.readonly)

    def test_runs_saxpy_and_matches_python(self):
        artifact = self.client.compile(self.saxpy, target=CPU, entries=["saxpy"])
        module = qdcache.load_cpu(artifact)
        saxpy = module.function("saxpy", None, [ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p])
        n = 1000
        x = array.array("f", (i * 0.5 for i in range(n)))
        y = array.array("f", (1.0 - i for i in range(n)))
        expected = [ctypes.c_float(3.0 * a + b).value for a, b in zip(x, y)]
        del module  # the function keeps the code loaded
        saxpy(n, 3.0, x.buffer_info()[0], y.buffer_info()[0])
        self.assertEqual(list(y), expected)
        self.assertEqual(artifact.metadata["entries"][0]["name"], "saxpy")

    def test_bytes_like_inputs_give_the_same_key(self):
        from_bytes = self.client.compile(self.saxpy, target=CPU)
        for ir in (bytearray(self.saxpy), memoryview(self.saxpy), memoryview(bytearray(self.saxpy))[0:],
                   self.saxpy.decode()):
            self.assertEqual(self.client.compile(ir, target=CPU).key, from_bytes.key)

    def test_fast_key_lookup_without_ir(self):
        ns = "lookup-test"
        compiled = self.client.compile(self.saxpy, target=CPU, fast_key=b"\x00saxpy-v1", namespace=ns)
        found = self.client.lookup([b"\x00saxpy-v1", b"never-compiled", memoryview(b"\x00saxpy-v1")],
                                   namespace=ns, target=CPU)
        self.assertEqual(found[0].status, "alias_hit")
        self.assertEqual(found[0].key, compiled.key)
        self.assertIsNone(found[1])
        self.assertEqual(found[2].key, compiled.key)
        self.assertEqual(self.client.lookup([b"\x00saxpy-v1"], namespace="other", target=CPU), [None])
        self.assertEqual(self.client.lookup([], namespace=ns, target=CPU), [])

    def test_a_str_fast_key_is_hex_as_on_the_command_line(self):
        ns = "hex-key-test"
        compiled = self.client.compile(self.saxpy, target=CPU, fast_key="c0ffee01", namespace=ns)
        found = self.client.lookup([b"\xc0\xff\xee\x01", "C0FFEE01", "c0ffee01".encode()], namespace=ns, target=CPU)
        self.assertEqual(found[0].status, "alias_hit")
        self.assertEqual(found[0].key, compiled.key)
        self.assertEqual(found[1].key, compiled.key)
        self.assertIsNone(found[2])  # the text's raw bytes are another key

    def test_a_str_fast_key_that_is_not_hex_is_refused(self):
        for text in ("never-compiled", "abc", "", "0xc0ffee01", "c0 ff ee 01", "c0ffee01\n", "\u0661\u0662"):
            with self.subTest(text=text):
                with self.assertRaisesRegex(ValueError, "hex.*bytes"):
                    self.client.compile(self.saxpy, target=CPU, fast_key=text, namespace="ns")
                with self.assertRaisesRegex(ValueError, "hex.*bytes"):
                    self.client.lookup([text], namespace="ns", target=CPU)
        with self.assertRaisesRegex(ValueError, "hex"):
            self.client.compile_many([dict(ir=self.saxpy, target=CPU, fast_key="saxpy", namespace="ns")])
        with self.assertRaises(TypeError):
            self.client.lookup("c0ffee01", namespace="ns", target=CPU)  # one key, not a list

    def test_key_extras_and_options_change_the_key(self):
        base = self.client.compile(self.saxpy, target=CPU)
        extra = self.client.compile(self.saxpy, target=CPU, key_extras={"frontend": "2.0"})
        fast = self.client.compile(self.saxpy, target=CPU, options={"fast_math": True})
        self.assertEqual(len({base.key, extra.key, fast.key}), 3)

    def test_batch_keeps_order_and_reports_items(self):
        results = self.client.compile_many([
            dict(ir=self.saxpy, target=CPU),
            dict(ir=b"this is not IR", target=CPU),
            dict(ir=read_data("cpu/block_reduce.ll"), target=CPU),
        ])
        self.assertEqual(len(results), 3)
        self.assertIsNotNone(results[0].artifact)
        self.assertEqual(results[1].status, "error")
        self.assertEqual(results[1].error.code_name, "INVALID_ARGUMENT")
        self.assertIsInstance(results[1].error, qdcache.InvalidArgument)
        self.assertIn("IR", results[1].error.message)
        self.assertIsNotNone(results[2].artifact)

    def test_items_read_in_one_call_or_one_by_one_are_the_same(self):
        """ABI 1.7 reads every item in one call; an older libqdcache one call
        per item and field. Both give the same Results, payload views of
        different sizes included."""
        from qdcache import _lib
        kernels = [dict(ir=self.saxpy, target=CPU), dict(ir=b"not IR", target=CPU),
                   dict(ir=read_data("cpu/stencil2d.ll"), target=CPU)]
        bulk = self.client.compile_many(kernels)
        has = _lib.has
        _lib.has = lambda name: name != "qdcache_results_items" and has(name)
        try:
            one_by_one = self.client.compile_many(kernels)
        finally:
            _lib.has = has
        self.assertEqual([r.status for r in one_by_one], ["hit", "error", "hit"])
        self.assertEqual(bulk[1].status, "error")
        for a, b in zip(bulk, one_by_one):
            self.assertEqual(a.error is None, b.error is None)
            if a.error is not None:
                self.assertEqual((a.error.code, a.error.message), (b.error.code, b.error.message))
                continue
            self.assertEqual((a.artifact.key, a.artifact.kind, a.artifact.target, a.artifact.ptx),
                             (b.artifact.key, b.artifact.kind, b.artifact.target, b.artifact.ptx))
            self.assertEqual(bytes(a.artifact.payload), bytes(b.artifact.payload))
            self.assertEqual(len(a.artifact), len(b.artifact))
            self.assertTrue(a.artifact.payload.readonly)
        self.assertNotEqual(len(bulk[0].artifact), len(bulk[2].artifact))
        self.assertIsInstance(bulk[1].error, qdcache.InvalidArgument)

    def test_a_payload_outlives_its_result_list(self):
        """A payload view keeps the results it points into alive."""
        ns = "outlive"
        compiled = self.client.compile(self.saxpy, target=CPU, fast_key=b"outlive", namespace=ns)
        payload = self.client.lookup([b"outlive"], namespace=ns, target=CPU)[0].payload
        import gc
        gc.collect()
        self.assertEqual(bytes(payload), bytes(compiled.payload))

    def test_stats_count_what_happened(self):
        before = self.client.stats()
        self.client.compile(read_data("cpu/block_reduce.ll"), target=CPU, options={"opt": 1})
        self.client.compile(read_data("cpu/block_reduce.ll"), target=CPU, options={"opt": 1})
        after = self.client.stats()
        self.assertIsInstance(after["hits"], int)
        self.assertGreaterEqual(after["requests"] - before["requests"], 2)
        self.assertGreaterEqual(after["hits"] - before["hits"], 1)
        self.assertEqual(after["toolchain"], before["toolchain"])
        self.assertIn("compile_seconds_saved", after)

    def test_errors_are_exceptions_with_codes(self):
        with self.assertRaises(qdcache.QdcacheError) as bad_ir:
            self.client.compile(b"define garbage", target=CPU)
        self.assertEqual(bad_ir.exception.code, 3)
        self.assertIsInstance(bad_ir.exception, qdcache.InvalidArgument)
        with self.assertRaises(qdcache.InvalidArgument) as bad_target:
            self.client.compile(self.saxpy, target="gpu:nope")
        self.assertIsInstance(bad_target.exception, qdcache.QdcacheError)
        self.assertEqual(bad_target.exception.code, 3)
        self.assertEqual(bad_target.exception.code_name, "INVALID_ARGUMENT")
        self.assertIn("gpu:nope", str(bad_target.exception))
        with self.assertRaises(qdcache.QdcacheError) as missing_entry:
            self.client.compile(self.saxpy, target=CPU, entries=["not_there"])
        self.assertIn("not_there", missing_entry.exception.message)
        with self.assertRaises(ValueError):
            self.client.compile(self.saxpy, target=CPU, options={"no_such_option": 1})
        with self.assertRaises(qdcache.InvalidArgument):
            self.client.compile(self.saxpy, target=CPU, options={"opt": 9})
        with self.assertRaises(TypeError):
            self.client.compile(12345, target=CPU)
        # Text that C would cut short at a NUL, or that is not UTF-8, is refused
        # rather than silently giving another key.
        with self.assertRaises(ValueError):
            self.client.compile(self.saxpy, target=CPU, key_extras={"source": "a\0b"})
        with self.assertRaises(ValueError):
            self.client.compile(self.saxpy, target=CPU, key_extras={"source": b"\xff"})
        with self.assertRaises(ValueError):
            self.client.lookup([b"k"], namespace="ns\0x", target=CPU)

    def test_one_client_from_many_threads(self):
        keys = []
        failures = []

        def work(i):
            try:
                keys.append(self.client.compile(self.saxpy, target=CPU, key_extras={"thread": str(i % 3)}).key)
            except Exception as e:  # reported below
                failures.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(9)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(len(keys), 9)
        self.assertEqual(len(set(keys)), 3)

    def test_cuda_compile_gives_a_cubin(self):
        try:
            cubin = self.client.compile(read_data("cuda/saxpy.ll"), target="cuda:sm_80", include_ptx=True)
        except qdcache.QdcacheError as e:
            if "built without CUDA" in e.message:
                self.skipTest(e.message)
            raise
        self.assertEqual(cubin.kind, "cubin")
        self.assertEqual(bytes(cubin.payload[:4]), b"\x7fELF")
        self.assertIn(".target sm_80", cubin.ptx)
        with self.assertRaises(ValueError):
            qdcache.load_cpu(cubin)


    def test_ptx_compiles_by_kind_and_hits(self):
        ptx = read_data("ptx/scale_shift.ptx").decode()
        try:
            first = self.client.compile(ptx, target="cuda:sm_100", kind="ptx", options={"max_registers": 32})
        except qdcache.QdcacheError as e:
            if "lacks" in e.message or "built without CUDA" in e.message:
                self.skipTest(e.message)
            raise
        self.assertEqual(first.kind, "cubin")
        self.assertEqual([e["name"] for e in first.metadata["entries"]], ["scale_shift", "block_sum"])
        # A comment changes nothing; sent without the kind it is not LLVM IR.
        again = self.client.compile("// from another front end\n" + ptx, target="cuda:sm_100", kind="ptx",
                                    options={"max_registers": 32})
        self.assertEqual(again.status, "hit")
        self.assertEqual(bytes(again), bytes(first))
        with self.assertRaises(qdcache.QdcacheError) as err:
            self.client.compile(ptx, target="cuda:sm_90")
        self.assertIn("PTX assembly", err.exception.message)
        with self.assertRaises(qdcache.QdcacheError) as err:
            self.client.compile(ptx, target="cuda:sm_90", kind="fortran")
        self.assertEqual(err.exception.code_name, "INVALID_ARGUMENT")
        self.assertIn("unknown source kind", err.exception.message)

    def test_cuda_cpp_with_headers_and_name_expressions(self):
        source = read_data("cuda_cpp/scale.cu")
        headers = {"scale_ops.cuh": read_data("cuda_cpp/include/scale_ops.cuh"),
                   "detail/bias.cuh": read_data("cuda_cpp/include/detail/bias.cuh").decode()}
        try:
            first = self.client.compile(source, target="cuda:sm_90", kind="cuda", headers=headers,
                                        name_expressions=["scale<float>"], defines=["SCALE_BIAS=2"])
        except qdcache.QdcacheError as e:
            if "lacks" in e.message or "built without CUDA" in e.message:
                self.skipTest(e.message)
            raise
        self.assertEqual(first.kind, "cubin")
        self.assertEqual(first.status, "compiled")
        self.assertEqual(first.lowered_names, {"scale<float>": "_Z5scaleIfEvPT_S0_i"})
        again = self.client.compile(source, target="cuda:sm_90", kind="cuda", headers=dict(reversed(headers.items())),
                                    name_expressions=["scale<float>"], defines=["SCALE_BIAS=2"])
        self.assertEqual(again.status, "hit")
        self.assertEqual(again.lowered_names, first.lowered_names)
        with self.assertRaises(qdcache.QdcacheError) as err:
            self.client.compile(source, target="cuda:sm_90", kind="cuda", headers={"scale_ops.cuh": headers["scale_ops.cuh"]})
        self.assertEqual(err.exception.code_name, "INVALID_ARGUMENT")
        self.assertIn("detail/bias.cuh", err.exception.message)
        with self.assertRaises(TypeError):
            self.client.compile(source, target="cuda:sm_90", kind="cuda", name_expressions="scale<float>")


class ConnectTest(unittest.TestCase):
    def test_no_daemon_is_unavailable_naming_the_socket(self):
        with Daemon() as daemon:
            socket = daemon.socket
        client = qdcache.Client(socket=socket, spawn=False, timeout="5s")
        with self.assertRaises(qdcache.Unavailable) as err:
            client.ping()
        self.assertEqual(err.exception.code, 14)
        self.assertEqual(err.exception.code_name, "UNAVAILABLE")
        self.assertIn(socket, err.exception.message)
        with self.assertRaises(qdcache.Unavailable):
            client.compile(read_data("cpu/saxpy.ll"), target=CPU)

    def test_bad_options_are_refused(self):
        with self.assertRaises(qdcache.InvalidArgument) as err:
            qdcache.Client(socket="/nonexistent", no_such_option="1")
        self.assertIn("no-such-option", str(err.exception))
        with self.assertRaises(qdcache.QdcacheError):
            qdcache.Client(timeout="soon")

    def test_close_while_other_threads_call(self):
        with Daemon() as daemon:
            client = qdcache.Client(socket=daemon.socket)
            ir = read_data("cpu/saxpy.ll")
            started = threading.Barrier(5)
            outcomes = []

            def work():
                started.wait()
                while True:  # until the client is closed under it
                    try:
                        client.compile(ir, target=CPU)
                        outcomes.append("ok")
                    except ValueError:
                        outcomes.append("closed")
                        return

            threads = [threading.Thread(target=work) for _ in range(4)]
            for t in threads:
                t.start()
            started.wait()
            client.close()  # while the others are mid-call: no crash, they finish or see "closed"
            for t in threads:
                t.join()
            self.assertEqual(len(threads), outcomes.count("closed"))
            with self.assertRaises(ValueError):
                client.ping()

    def test_closed_client_refuses_calls(self):
        with Daemon() as daemon:
            with qdcache.Client(socket=daemon.socket) as client:
                client.ping()
            with self.assertRaises(ValueError):
                client.ping()

    def test_versions(self):
        self.assertEqual(qdcache.abi_version >> 16, 1)
        self.assertRegex(qdcache.__version__, r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
