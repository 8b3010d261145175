"""qdcache.Client's introspection and admin calls against a real daemon:
each answers what `qdcache <command> --json` prints. They need libqdcache
ABI 1.4; with an older library they fail (Unimplemented), not skip."""

import os
import subprocess
import sys
import unittest

import qdcache
from support import Daemon, read_data

CPU = "cpu:x86-64"


class CommandTest(unittest.TestCase):
    """Each test has its own daemon and store: several of them empty it."""

    def setUp(self):
        self.daemon = Daemon().__enter__()
        self.addCleanup(self.daemon.__exit__, None, None, None)
        self.client = qdcache.Client(socket=self.daemon.socket, spawn=False)
        self.addCleanup(self.client.close)
        self.saxpy = read_data("cpu/saxpy.ll")

    def stored_keys(self):
        return [entry["artifact_key"] for entry in self.client.ls()["entries"]]

    def test_ping_returns_the_daemon_version(self):
        version = self.client.ping()
        self.assertIsInstance(version, str)
        self.assertRegex(version, r"^\d+\.\d+\.\d+")
        self.assertEqual(version, self.client.stats()["version"])

    def test_a_client_collected_while_the_interpreter_exits_is_freed_quietly(self):
        # An uncaught exception whose frame holds the exception itself (a
        # cycle) keeps the client until the last collection, after the
        # import system has gone.
        script = ("import qdcache, sys\n"
                  "def main():\n"
                  "    client = qdcache.Client(socket=sys.argv[1], spawn=False)\n"
                  "    client.stats()  # made the library's handle\n"
                  "    try:\n"
                  "        raise RuntimeError('failing')\n"
                  "    except RuntimeError as e:\n"
                  "        error = e\n"
                  "    raise error\n"
                  "main()\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(qdcache.__file__))))
        run = subprocess.run([sys.executable, "-c", script, self.daemon.socket], capture_output=True, text=True,
                             env=env)
        self.assertEqual(run.returncode, 1)
        self.assertTrue(run.stderr.endswith("RuntimeError: failing\n"), run.stderr)

    def test_stats_have_levels(self):
        self.client.compile(self.saxpy, target=CPU)
        stats = self.client.stats()
        self.assertEqual(set(stats["levels"]), {"alias", "artifact", "stage", "remote"})
        for name, level in stats["levels"].items():
            with self.subTest(level=name):
                self.assertLessEqual({"hits", "misses", "hit_rate", "enabled"}, set(level))
        self.assertEqual(stats["artifact_hits"], stats["hits"])
        self.assertEqual(stats["alias_misses"], stats["misses"])

    def test_ls_lists_what_was_compiled(self):
        self.assertEqual(self.stored_keys(), [])
        first = self.client.compile(self.saxpy, target=CPU)
        second = self.client.compile(read_data("cpu/block_reduce.ll"), target=CPU)
        self.assertEqual(set(self.stored_keys()), {first.key, second.key})
        [latest] = self.client.ls(limit=1)["entries"]
        self.assertEqual(latest["artifact_key"], second.key)  # most recently used first
        self.assertEqual(latest["target"], CPU)
        self.assertEqual(self.client.ls(target="cuda:sm_90")["entries"], [])

    def test_ls_aliases_and_namespace(self):
        artifact = self.client.compile(self.saxpy, target=CPU, fast_key="c0ffee01", namespace="ls-test")
        self.client.compile(read_data("cpu/block_reduce.ll"), target=CPU)
        in_namespace = self.client.ls(namespace="ls-test")["entries"]
        self.assertEqual([e["artifact_key"] for e in in_namespace], [artifact.key])
        aliases = self.client.ls(namespace="ls-test", aliases=True)["aliases"]
        self.assertEqual(len(aliases), 1)
        self.assertEqual(aliases[0]["artifact_key"], artifact.key)
        self.assertEqual(aliases[0]["fast_key"], "c0ffee01")  # hex, the spelling of the CLI

    def test_inspect_by_key_and_by_prefix(self):
        artifact = self.client.compile(self.saxpy, target=CPU, entries=["saxpy"])
        by_key = self.client.inspect(artifact.key)
        self.assertEqual(by_key["artifact_key"], artifact.key)
        self.assertEqual(by_key["target"], CPU)
        self.assertEqual([e["name"] for e in by_key["entries"]], ["saxpy"])
        self.assertEqual(self.client.inspect(artifact.key[:12]), by_key)
        with self.assertRaises(qdcache.InvalidArgument):
            self.client.inspect("not hex")
        missing = "0000" if not artifact.key.startswith("0000") else "ffff"
        with self.assertRaises(qdcache.NotFound):
            self.client.inspect(missing)

    def test_explain_names_the_option_two_kernels_differ_in(self):
        one = self.client.explain(self.saxpy, CPU, options={"fast_math": False})
        [explanation] = one["explanations"]
        self.assertEqual(len(explanation["artifact_key"]), 64)
        self.assertIn("target", explanation["components"])
        two = self.client.explain(self.saxpy, CPU, other={"options": {"fast_math": True}},
                                  options={"fast_math": False})
        self.assertEqual(len(two["explanations"]), 2)
        self.assertEqual(two["differing"], ["options.fast_math"])
        self.assertEqual(self.stored_keys(), [])  # nothing compiled or stored

    def test_explain_two_sources_with_the_same_options(self):
        two = self.client.explain(self.saxpy, CPU, read_data("cpu/block_reduce.ll"))
        keys = [e["artifact_key"] for e in two["explanations"]]
        self.assertEqual(len(set(keys)), 2)
        self.assertIn("ir", two["differing"])
        self.assertFalse([name for name in two["differing"] if name.startswith("options.")], two["differing"])

    def test_evict_dry_run_leaves_the_entry_listed(self):
        artifact = self.client.compile(self.saxpy, target=CPU)
        dry_run = self.client.evict("0s", dry_run=True)
        self.assertEqual((dry_run["dry_run"], dry_run["evicted_entries"]), (True, 1))
        self.assertEqual(self.stored_keys(), [artifact.key])
        self.assertEqual(self.client.evict("7d")["evicted_entries"], 0)  # used just now
        self.assertEqual(self.stored_keys(), [artifact.key])
        with self.assertRaises(qdcache.InvalidArgument):
            self.client.evict("soon")

    def test_trim_to_nothing_empties_the_store(self):
        artifact = self.client.compile(self.saxpy, target=CPU)
        dry_run = self.client.trim("0", dry_run=True)
        self.assertEqual((dry_run["dry_run"], dry_run["evicted_entries"]), (True, 1))
        self.assertEqual(self.stored_keys(), [artifact.key])
        self.assertEqual(self.client.trim("0")["evicted_bytes"], dry_run["evicted_bytes"])
        self.assertEqual(self.stored_keys(), [])

    def test_clear_dry_run_then_clear(self):
        artifact = self.client.compile(self.saxpy, target=CPU)
        self.client.compile(read_data("cpu/block_reduce.ll"), target=CPU)
        self.assertTrue(self.client.clear(dry_run=True)["dry_run"])
        self.assertEqual(len(self.stored_keys()), 2)
        self.client.clear()
        self.assertEqual(self.stored_keys(), [])
        self.assertEqual(self.client.compile(self.saxpy, target=CPU).status, "compiled")
        self.assertEqual(self.stored_keys(), [artifact.key])

    def test_verify_checks_every_entry(self):
        self.client.compile(self.saxpy, target=CPU)
        verified = self.client.verify()
        self.assertGreaterEqual(verified["checked"], 1)
        self.assertEqual((verified["dropped"], verified["dropped_keys"]), (0, []))

    def test_targets_list_the_cpu_family(self):
        families = {family["family"]: family for family in self.client.targets()["families"]}
        self.assertTrue(families["cpu"]["available"])
        self.assertIn("x86-64", families["cpu"]["processors"])
        self.assertIn("avx2", families["cpu"]["features"])

    def test_shutdown_stops_the_daemon(self):
        self.client.shutdown()
        self.assertEqual(self.daemon.process.wait(timeout=60), 0)
        with self.assertRaises(qdcache.Unavailable):
            self.client.ping()


if __name__ == "__main__":
    unittest.main()
