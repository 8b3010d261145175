"""examples/python/numba_cpu.py run twice against a daemon of its own: the
first run compiles every function with Numba, the second finds them all by
fast key without importing Numba; both compute what plain Python does.
Exit 77 (skipped) where Numba is not installed.

usage: numba_cpu_test.py EXAMPLE   (with QDCACHED_BIN, QDCACHE_LIBRARY and
PYTHONPATH naming python/ and python/tests)"""

import importlib.util
import os
import subprocess
import sys

from support import Daemon


def run(example, socket):
    out = subprocess.run([sys.executable, example], env=dict(os.environ, QDCACHE_SOCKET=socket),
                         capture_output=True, text=True)
    print(out.stdout + out.stderr, end="", flush=True)
    assert out.returncode == 0, out.returncode
    assert "results match Python" in out.stdout
    return out.stdout


def main():
    if importlib.util.find_spec("numba") is None:
        print("skipped: %s cannot import numba (Debian: python3-numba)" % sys.executable)
        return 77
    with Daemon() as daemon:
        first = run(sys.argv[1], daemon.socket)
        assert first.count(" compiled  key ") == 3 and "Numba compiled 3 of them\n" in first
        second = run(sys.argv[1], daemon.socket)
        assert second.count(" alias_hit key ") == 3
        assert "Numba compiled 0 of them (Numba not imported)" in second
    return 0


if __name__ == "__main__":
    sys.exit(main())
