"""Client.lookup over the lean transport (docs/protocol.md, "Lean
transport") against a real daemon: the same answers as through libqdcache,
payloads mapped from a sealed memfd when large, no library loaded, and
libqdcache's path whenever the lean one cannot carry a call."""

import os
import subprocess
import sys
import unittest

import qdcache
from qdcache import _lean
from support import Daemon, read_data

CPU = "cpu:x86-64"


def padded_kernel(i, table_bytes):
    """An x86-64 kernel whose shared object carries a table of about
    `table_bytes` (distinct per i)."""
    table = "".join("\\%02X" % ((i * 131 + j * 7) & 0xFF) for j in range(table_bytes))
    return ('@t = internal constant [%d x i8] c"%s"\n'
            "define i8 @k%d(i64 %%x) {\n  %%p = getelementptr [%d x i8], ptr @t, i64 0, i64 %%x\n"
            "  %%v = load i8, ptr %%p\n  ret i8 %%v\n}\n" % (table_bytes, table, i, table_bytes)).encode()


class LeanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon("--max-batch", "64").__enter__()
        try:
            cls.client = qdcache.Client(socket=cls.daemon.socket, spawn=False)
            os.environ["QDCACHE_LEAN"] = "0"
            try:
                cls.library = qdcache.Client(socket=cls.daemon.socket, spawn=False)  # libqdcache only
            finally:
                del os.environ["QDCACHE_LEAN"]
            cls.ns = "lean"
            cls.keys = [b"lean-%d" % i for i in range(40)]
            # 40 artifacts of ~10 KiB: one lookup of all of them passes the
            # daemon's memfd threshold (256 KiB), one of a few does not.
            cls.client.compile_many([dict(ir=padded_kernel(i, 8000), target=CPU, fast_key=k, namespace=cls.ns)
                                     for i, k in enumerate(cls.keys)])
        except BaseException:
            cls.daemon.__exit__(None, None, None)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.library.close()
        cls.daemon.__exit__(None, None, None)

    def assertSameAnswers(self, lean, library):
        self.assertEqual(len(lean), len(library))
        for a, b in zip(lean, library):
            self.assertEqual(a is None, b is None)
            if a is None:
                continue
            self.assertEqual((a.status, a.kind, a.key, a.target, a.ptx), (b.status, b.kind, b.key, b.target, b.ptx))
            self.assertEqual(bytes(a.payload), bytes(b.payload))
            self.assertTrue(a.payload.readonly)
            self.assertEqual(a.metadata, b.metadata)
            self.assertEqual(a.dependencies, b.dependencies)

    def test_the_client_speaks_lean_and_the_other_does_not(self):
        self.assertIsNotNone(self.client._lean)
        self.assertIsNone(self.library._lean)

    def test_small_and_large_answers_equal_libqdcache_s(self):
        keys = self.keys[:3] + [b"never-compiled"] + self.keys[3:]
        lean = self.client.lookup(keys, namespace=self.ns, target=CPU)
        self.assertSameAnswers(lean, self.library.lookup(keys, namespace=self.ns, target=CPU))
        self.assertIsNone(lean[3])
        self.assertGreater(sum(len(a) for a in lean if a is not None), 256 << 10)  # the memfd path
        few = self.client.lookup(self.keys[:2], namespace=self.ns, target=CPU)  # inline
        self.assertSameAnswers(few, self.library.lookup(self.keys[:2], namespace=self.ns, target=CPU))

    def test_payload_views_outlive_the_answer(self):
        payloads = [a.payload for a in self.client.lookup(self.keys, namespace=self.ns, target=CPU)]
        expected = [bytes(a.payload) for a in self.library.lookup(self.keys, namespace=self.ns, target=CPU)]
        import gc
        gc.collect()
        self.assertEqual([bytes(p) for p in payloads], expected)

    def test_inline_payloads_are_aligned_whatever_the_answer_s_shape(self):
        import ctypes

        class Buffer(ctypes.Structure):  # Py_buffer, for the address of a read-only view
            _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                        ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                        ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                        ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]

        def address(view):
            buffer = Buffer()
            ctypes.pythonapi.PyObject_GetBuffer(ctypes.py_object(view), ctypes.byref(buffer), 0)
            try:
                return buffer.buf
            finally:
                ctypes.pythonapi.PyBuffer_Release(ctypes.byref(buffer))

        # Answers whose blob starts at different places in the body (more
        # or fewer results before it), each asked twice on one connection
        # (the second placed where the first's blob lay), and a miss among them.
        for keys in ([self.keys[0]], self.keys[:2], [b"never-compiled"] + self.keys[1:4], self.keys[:1],
                     self.keys[2:3] * 3):
            for _ in range(2):
                with self.subTest(keys=len(keys)):
                    lean = self.client.lookup(keys, namespace=self.ns, target=CPU)
                    self.assertSameAnswers(lean, self.library.lookup(keys, namespace=self.ns, target=CPU))
                    for artifact in lean:
                        if artifact is not None:
                            self.assertEqual(address(artifact.payload) % 64, 0)

    def test_requests_under_one_namespace_keep_their_targets_apart(self):
        saxpy = read_data("cpu/saxpy.ll")
        targets = ("cpu:x86-64", "cpu:x86-64+avx", "cpu:x86-64+sse4.2")
        for target in targets:
            self.client.compile(saxpy, target=target, fast_key=b"same-key", namespace="lean-targets")
        for _ in range(2):
            for target in targets:
                with self.subTest(target=target):
                    [lean] = self.client.lookup([b"same-key"], namespace="lean-targets", target=target)
                    [library] = self.library.lookup([b"same-key"], namespace="lean-targets", target=target)
                    self.assertEqual((lean.key, lean.target), (library.key, library.target))

    def test_ptx_targets_features_and_hex_keys_as_libqdcache(self):
        saxpy = read_data("cpu/saxpy.ll")
        target = "cpu:x86-64+sse4.2,+avx"
        self.client.compile(saxpy, target=target, fast_key="5a5a01", namespace="lean-features")
        for spelling in (target, "cpu:x86-64,+avx+sse4.2", "cpu:X86-64+avx,+sse4.2"):
            with self.subTest(spelling=spelling):
                lean = self.client.lookup(["5a5a01"], namespace="lean-features", target=spelling, include_ptx=True)
                library = self.library.lookup(["5a5a01"], namespace="lean-features", target=spelling,
                                              include_ptx=True)
                self.assertSameAnswers(lean, library)

    def test_loading_a_lean_payload_runs_it(self):
        import array
        import ctypes
        saxpy = read_data("cpu/saxpy.ll")
        self.client.compile(saxpy, target=CPU, fast_key=b"lean-saxpy", namespace=self.ns, entries=["saxpy"])
        [artifact] = self.client.lookup([b"lean-saxpy"], namespace=self.ns, target=CPU)
        self.assertIsNone(artifact._address)  # a view into the lean answer, not the library's memory
        function = qdcache.load_cpu(artifact).function(
            "saxpy", None, [ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p])
        x = array.array("f", [1.0, 2.0, 3.0])
        y = array.array("f", [10.0, 20.0, 30.0])
        function(3, 2.0, x.buffer_info()[0], y.buffer_info()[0])
        self.assertEqual(list(y), [12.0, 24.0, 36.0])

    def test_a_refused_call_raises_as_through_libqdcache(self):
        too_many = [b"k%d" % i for i in range(65)]  # --max-batch 64
        errors = []
        for client in (self.client, self.library):
            with self.assertRaises(qdcache.QdcacheError) as caught:
                client.lookup(too_many, namespace=self.ns, target=CPU)
            errors.append(caught.exception)
        self.assertEqual(type(errors[0]), type(errors[1]))
        self.assertEqual((errors[0].code, errors[0].message), (errors[1].code, errors[1].message))
        # The connection survives a refusal.
        self.assertIsNotNone(self.client.lookup(self.keys[:1], namespace=self.ns, target=CPU)[0])

    def test_item_errors_and_bad_targets_match_libqdcache(self):
        cases = [([b"x" * 5000], self.ns, CPU),  # a fast key over the daemon's limit: an item error
                 ([b"k"], self.ns, "amdgpu:gfx90a:xnack"),  # the daemon refuses the feature
                 ([b"k"], self.ns, "cuda:sm_xx"),  # libqdcache refuses it
                 ([b"k"], self.ns, "cpu:x86-64+"),  # the lean parser leaves it to libqdcache
                 ([b"k"], self.ns, "tpu:v5")]
        for keys, ns, target in cases:
            with self.subTest(target=target):
                outcomes = []
                for client in (self.client, self.library):
                    try:
                        outcomes.append(("ok", [a is None for a in client.lookup(keys, namespace=ns, target=target)]))
                    except qdcache.QdcacheError as e:
                        outcomes.append((type(e).__name__, e.code, e.message))
                self.assertEqual(outcomes[0], outcomes[1])

    def test_a_warm_start_imports_no_library_ctypes_or_typing(self):
        # -S: this interpreter's site hooks may import typing themselves; a
        # stock python3's do not, and the test is about what qdcache imports.
        # Without site, the package is found where this process found it (the
        # source tree, or a venv's site-packages).
        script = ("import qdcache, sys\n"
                  "c = qdcache.Client(socket=sys.argv[1], spawn=False)\n"
                  "found = c.lookup([b'lean-0', b'lean-1'], namespace='lean', target='cpu:x86-64')\n"
                  "assert all(a is not None and len(a) > 0 and a.status == 'alias_hit' for a in found)\n"
                  "heavy = ('ctypes', 'typing', 'threading', 'contextlib', 'qdcache._lib',\n"
                  "         'qdcache._results_native', 'qdcache._launch', 'qdcache._request')\n"
                  "print(' '.join(m for m in heavy if m in sys.modules) or 'none')\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(qdcache.__file__))))
        out = subprocess.run([sys.executable, "-S", "-c", script, self.daemon.socket], check=True,
                             capture_output=True, text=True, env=env).stdout
        self.assertEqual(out.strip(), "none")

    def test_lazily_imported_names_are_the_modules_own(self):
        from qdcache import _dependencies, _launch, _launch_hip, _request
        self.assertIs(qdcache.Dependency, _dependencies.Dependency)
        self.assertIs(qdcache.load_cpu, _launch.load_cpu)
        self.assertIs(qdcache.load_hip, _launch_hip.load_hip)
        self.assertIs(qdcache.KernelSpec, _request.KernelSpec)
        self.assertTrue(set(qdcache.__all__) <= set(dir(qdcache)))
        with self.assertRaises(AttributeError):
            qdcache.no_such_name

    def test_no_daemon_falls_back_to_libqdcache_s_error(self):
        client = qdcache.Client(socket=os.path.join(self.daemon.dir, "nothing-here"), spawn=False)
        with self.assertRaises(qdcache.Unavailable) as caught:
            client.lookup([b"k"], namespace=self.ns, target=CPU)
        self.assertIn("nothing-here", caught.exception.message)
        self.assertTrue(client._lean.enabled)  # a daemon may start there later

    def test_a_daemon_that_does_not_speak_it_turns_it_off(self):
        import socket as sockets
        import threading
        path = os.path.join(self.daemon.dir, "closes")
        server = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        server.bind(path)
        server.listen(1)

        def close_after_hello():
            conn, _ = server.accept()
            conn.recv(8)
            conn.close()

        thread = threading.Thread(target=close_after_hello)
        thread.start()
        channel = _lean.Channel(path, 10.0)
        with self.assertRaises(_lean.Fallback):
            channel.lookup(_lean.lookup_request([b"k"], b"n", CPU, False))
        thread.join()
        server.close()
        self.assertFalse(channel.enabled)

    def test_a_socket_in_a_shared_tmp_dir_it_cannot_vouch_for_is_left_to_libqdcache(self):
        """Under /tmp/qdcached-<uid>/ (the fallback socket directory, which
        anyone could have made first) the lean path is used only when the
        directory is this user's and closed to others, as libqdcache
        checks it. A made-up uid keeps the test off the real directory."""
        from unittest import mock
        from qdcache import _client
        uid = 4242
        private = "/tmp/qdcached-%d" % uid
        sock = private + "/qdcached.sock"
        if os.path.lexists(private):
            self.skipTest(private + " exists already")
        try:
            with mock.patch("os.getuid", return_value=uid):
                self.assertIsNone(_client._lean_socket(sock, None, False, {}))  # absent
                os.mkdir(private, 0o700)
                try:
                    os.chown(private, uid, -1)
                except PermissionError:
                    self.skipTest("not root: cannot give the directory to another uid")
                self.assertEqual(_client._lean_socket(sock, None, False, {}), sock)  # trusted
                os.chmod(private, 0o755)
                self.assertIsNone(_client._lean_socket(sock, None, False, {}))  # open to others
                os.chmod(private, 0o700)
                os.chown(private, uid + 1, -1)
                self.assertIsNone(_client._lean_socket(sock, None, False, {}))  # someone else's
                os.rmdir(private)
                os.symlink("/tmp", private)
                self.assertIsNone(_client._lean_socket(sock, None, False, {}))  # not a directory
                self.assertEqual(_client._lean_socket("/elsewhere/sock", None, False, {}), "/elsewhere/sock")
        finally:
            if os.path.islink(private):
                os.unlink(private)
            elif os.path.isdir(private):
                os.rmdir(private)

    def test_target_encoding_is_the_wire_target(self):
        self.assertEqual(_lean.target_message("cuda:sm_90"), b"\x0a\x07\x0a\x05sm_90")
        self.assertEqual(_lean.target_message("cpu:x86-64+avx2,+fma"),
                         b"\x12\x15\x0a\x06x86-64\x12\x05+avx2\x12\x04+fma")
        self.assertEqual(_lean.target_message("amdgpu:gfx90a:xnack+"),
                         b"\x1a\x10\x0a\x06gfx90a\x12\x06xnack+")
        for bad in ("cpu:", "cpu:x86-64+", "cpu:x86 64", "cpu:native", "amdgpu:gfx90a:xnack", "cuda:", "cuda:sm_x9", "cuda:sm_",
                    "cuda:90", "x:y"):
            with self.subTest(bad=bad), self.assertRaises(_lean.Fallback):
                _lean.target_message(bad)

    def test_request_encoding_is_protobuf_s_whatever_the_key_lengths(self):
        # Keys of one length take one join, mixed lengths slice assignments:
        # both must be the queries of a LookupRequest as protobuf lays them
        # out, field by field (built here with the package's _field).
        for keys in ([b"k" * 32] * 3, [b"a", b"bb" * 100, b""], [b"x" * 200] * 2):
            with self.subTest(lengths=[len(k) for k in keys]):
                body = _lean.lookup_request(keys, b"ns", "cpu:x86-64", False)
                general = b"".join(_lean._field(2, _lean._field(1, k) + _lean._field(2, b"ns") +
                                                _lean._field(3, _lean.target_message("cpu:x86-64"))) for k in keys)
                self.assertTrue(body.endswith(general))

    def test_hex_keys_in_bulk_convert_and_fail_as_one_by_one(self):
        from qdcache._text import fast_key_bytes, fast_keys_bytes

        good = ["c0ffee01", "AB", "00" * 32]
        self.assertEqual(fast_keys_bytes(good), [fast_key_bytes(k) for k in good])
        self.assertEqual(fast_keys_bytes([b"raw", bytearray(b"x"), "ab"]), [b"raw", b"x", b"\xab"])
        for bad in (["ab", "zz"], ["abc"], ["ab", ""], ["ab cd"], ["a\tb0"], ["\u00e91"]):
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError) as one:
                    for key in bad:
                        fast_key_bytes(key)
                with self.assertRaises(ValueError) as bulk:
                    fast_keys_bytes(bad)
                self.assertEqual(str(bulk.exception), str(one.exception))


if __name__ == "__main__":
    unittest.main()
