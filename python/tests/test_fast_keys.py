"""Fast keys that cannot silently go stale, against a real daemon: declared
dependencies and lookup(check=...), fast-key conflicts and their policy,
miss reasons, and explaining stored keys and aliases. They need libqdcache
ABI 1.5; with an older library they fail (Unimplemented), not skip."""

import hashlib
import os
import shutil
import tempfile
import unittest

import qdcache
from support import Daemon, read_data

CPU = "cpu:x86-64"
FAST_KEY = b"\x00kernel-v1"


def returning(value):
    """A CPU kernel whose IR differs only in the constant it returns."""
    return "define i32 @k() { ret i32 %d }\n" % value


def change_names(changes):
    return [change["name"] for change in changes]


class DependencyHelpersTest(unittest.TestCase):
    """file_digest, file_dependencies and files_unchanged, without a daemon."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qdcache-py-deps-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.path = os.path.join(self.dir, "scale.cfg")
        with open(self.path, "wb") as f:
            f.write(b"scale = 1\n")

    def test_file_digest_is_the_sha256_of_the_bytes(self):
        self.assertEqual(qdcache.file_digest(self.path), hashlib.sha256(b"scale = 1\n").digest())

    def test_file_dependencies_are_named_by_the_path_as_given(self):
        [dependency] = qdcache.file_dependencies([self.path])
        self.assertIsInstance(dependency, qdcache.Dependency)
        self.assertEqual(dependency, (self.path, hashlib.sha256(b"scale = 1\n").digest()))
        self.assertEqual(dependency.name, self.path)
        with self.assertRaises(TypeError):
            qdcache.file_dependencies(self.path)  # one path, not a list
        with self.assertRaises(OSError):
            qdcache.file_dependencies([os.path.join(self.dir, "missing")])

    def test_files_unchanged_until_a_file_changes_or_goes(self):
        dependencies = qdcache.file_dependencies([self.path])
        self.assertTrue(qdcache.files_unchanged(dependencies))
        self.assertTrue(qdcache.files_unchanged([]))
        with open(self.path, "wb") as f:
            f.write(b"scale = 2\n")
        self.assertFalse(qdcache.files_unchanged(dependencies))
        os.remove(self.path)
        self.assertFalse(qdcache.files_unchanged(dependencies))  # unreadable is changed


class FastKeyTest(unittest.TestCase):
    """Each test has its own daemon: they count alias_conflicts and alias_stale."""

    def setUp(self):
        self.daemon = Daemon().__enter__()
        self.addCleanup(self.daemon.__exit__, None, None, None)
        self.client = qdcache.Client(socket=self.daemon.socket, spawn=False)
        self.addCleanup(self.client.close)
        self.dir = tempfile.mkdtemp(prefix="qdcache-py-deps-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(content)
        return path

    def compile(self, ir, namespace, **kernel):
        return self.client.compile(ir, target=CPU, fast_key=FAST_KEY, namespace=namespace, **kernel)

    def lookup(self, namespace, **kwargs):
        [found] = self.client.lookup([FAST_KEY], namespace=namespace, target=CPU, **kwargs)
        return found

    def test_a_hit_whose_files_changed_is_a_miss_until_compiled_again(self):
        ns = "deps"
        source = self.write("kernel.py", "return 1\n")
        first = self.compile(returning(1), ns, dependencies=qdcache.file_dependencies([source]))
        self.assertEqual(first.status, "compiled")
        compiles = self.client.stats()["compiles"]

        hit = self.lookup(ns, check=qdcache.files_unchanged)
        self.assertIsNotNone(hit)
        self.assertEqual((hit.status, hit.key), ("alias_hit", first.key))
        self.assertEqual(hit.dependencies, [(source, qdcache.file_digest(source))])
        self.assertEqual(self.client.stats()["compiles"], compiles)

        self.write("kernel.py", "return 2\n")
        self.assertIsNone(self.lookup(ns, check=qdcache.files_unchanged))
        self.assertEqual(self.lookup(ns).key, first.key)  # unchecked, the daemon still serves it

        second = self.compile(returning(2), ns, dependencies=qdcache.file_dependencies([source]))
        self.assertEqual(second.status, "compiled")
        self.assertNotEqual(second.key, first.key)
        self.assertIsNone(second.alias_conflict)  # a declared dependency changed: expected, not a conflict
        stats = self.client.stats()
        self.assertEqual((stats["alias_stale"], stats["alias_conflicts"]), (1, 0))
        rebound = self.lookup(ns, check=qdcache.files_unchanged)
        self.assertIsNotNone(rebound)
        self.assertEqual(rebound.key, second.key)

    def test_a_check_sees_each_hit_with_dependencies_once(self):
        ns = "deps-check"
        self.compile(returning(1), ns, dependencies=[qdcache.Dependency("config", b"\x01" * 32), ("schema", b"v2")])
        self.client.compile(returning(2), target=CPU, fast_key=b"no-deps", namespace=ns)
        seen = []

        def check(dependencies):
            seen.append(list(dependencies))
            return True

        found = self.client.lookup([FAST_KEY, b"no-deps", b"never-compiled"], namespace=ns, target=CPU, check=check)
        self.assertIsNotNone(found[0])
        self.assertIsNotNone(found[1])  # no dependencies: nothing to check
        self.assertIsNone(found[2])
        self.assertEqual(seen, [[("config", b"\x01" * 32), ("schema", b"v2")]])  # sorted by name
        self.assertEqual(self.client.lookup([FAST_KEY], namespace=ns, target=CPU, check=lambda d: False), [None])

    def test_a_fast_key_that_misses_an_input_is_a_conflict(self):
        ns = "conflict"
        first = self.compile(returning(1), ns)
        self.assertIsNone(first.alias_conflict)
        second = self.compile(returning(2), ns)
        conflict = second.alias_conflict
        self.assertIsNotNone(conflict)
        self.assertEqual(change_names(conflict["changes"]), ["ir"])
        self.assertEqual(conflict["previous_artifact_key"], first.key)
        self.assertTrue(conflict["rebound"])
        self.assertIn("fast-key conflict", conflict["message"])
        self.assertEqual(self.client.stats()["alias_conflicts"], 1)
        self.assertEqual(self.lookup(ns).key, second.key)

        third = self.compile(returning(3), ns, alias_policy="strict")
        strict = third.alias_conflict
        self.assertIsNotNone(strict)
        self.assertFalse(strict["rebound"])
        self.assertEqual(strict["previous_artifact_key"], second.key)
        self.assertIsNotNone(strict["warning"])
        self.assertEqual(self.lookup(ns).key, second.key)  # the alias stayed
        self.assertEqual(self.client.stats()["alias_conflicts"], 2)

    def test_the_same_artifact_again_is_no_conflict(self):
        ns = "no-conflict"
        self.compile(returning(1), ns)
        again = self.compile(returning(1), ns)
        self.assertEqual(again.status, "hit")
        self.assertIsNone(again.alias_conflict)
        self.assertEqual(self.client.stats()["alias_conflicts"], 0)

    def test_bad_dependencies_and_policies_are_refused_before_sending(self):
        with self.assertRaisesRegex(ValueError, "rebind"):
            self.compile(returning(1), "refused", alias_policy="lenient")
        with self.assertRaises(TypeError):
            self.compile(returning(1), "refused", dependencies=[("config", hashlib.sha256(b"").hexdigest())])
        with self.assertRaises(TypeError):
            self.compile(returning(1), "refused", dependencies=qdcache.Dependency("config", b"\x01"))
        self.assertEqual(self.client.stats()["requests"], 0)

    def test_a_compile_that_missed_says_what_changed(self):
        ns = "miss-reason"
        saxpy = read_data("cpu/saxpy.ll")
        first = self.compile(saxpy, ns, options={"fast_math": False})
        self.assertEqual(first.status, "compiled")
        self.assertIsNone(first.miss_reason)  # nothing earlier to compare with
        second = self.compile(saxpy, ns, options={"fast_math": True})
        reason = second.miss_reason
        self.assertIsNotNone(reason)
        self.assertEqual(change_names(reason["changes"]), ["options.fast_math"])
        self.assertEqual(reason["previous_artifact_key"], first.key)
        self.assertEqual(reason["basis"], "fast_key")
        again = self.compile(saxpy, ns, options={"fast_math": True})
        self.assertEqual(again.status, "hit")
        self.assertIsNone(again.miss_reason)

    def test_explain_key_compares_two_stored_artifacts(self):
        saxpy = read_data("cpu/saxpy.ll")
        a = self.client.compile(saxpy, target=CPU, options={"fast_math": False})
        b = self.client.compile(saxpy, target=CPU, options={"fast_math": True})
        explained = self.client.explain_key(a.key, b.key)
        self.assertEqual([e["artifact_key"] for e in explained["artifacts"]], [a.key, b.key])
        self.assertTrue(all(e["stored"] and e["components_known"] for e in explained["artifacts"]))
        self.assertEqual(change_names(explained["differences"]), ["options.fast_math"])
        [one] = self.client.explain_key(a.key[:12])["artifacts"]  # a unique prefix
        self.assertEqual(one["artifact_key"], a.key)
        self.assertEqual(one["target"], CPU)
        self.assertIn("ir", one["components"])

    def test_explain_alias_shows_what_it_names_and_its_conflicts(self):
        ns = "explain-alias"
        source = self.write("kernel.py", "return 1\n")
        a = self.compile(returning(1), ns)
        b = self.compile(returning(2), ns, dependencies=qdcache.file_dependencies([source]))
        explained = self.client.explain_alias(FAST_KEY, ns, CPU)
        alias = explained["alias"]
        self.assertTrue(alias["found"])
        self.assertEqual(alias["artifact_key"], b.key)
        self.assertEqual(alias["dependencies"], [{"name": source, "digest": qdcache.file_digest(source).hex()}])
        [conflict] = alias["conflicts"]
        self.assertEqual((conflict["previous_artifact_key"], conflict["artifact_key"]), (a.key, b.key))
        self.assertEqual(conflict["differing"], ["ir"])
        self.assertEqual((conflict["policy"], conflict["rebound"]), ("rebind", True))
        self.assertEqual([e["artifact_key"] for e in explained["artifacts"]], [b.key])
        # The hex spelling of a fast key names the same alias.
        self.assertEqual(self.client.explain_alias(FAST_KEY.hex(), ns, CPU)["alias"], alias)

    def test_explain_alias_of_an_unknown_fast_key(self):
        alias = self.client.explain_alias(b"never-compiled", "explain-alias", CPU)["alias"]
        self.assertEqual((alias["found"], alias["artifact_key"], alias["conflicts"]), (False, None, []))


if __name__ == "__main__":
    unittest.main()
