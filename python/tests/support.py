"""Test support: a real qdcached on a temporary socket and store, and the
test data. The build passes QDCACHED_BIN, QDCACHE_LIBRARY and
QDCACHE_TEST_DATA (python/CMakeLists.txt)."""

import os
import select
import shutil
import subprocess
import tempfile

TEST_DATA = os.environ.get("QDCACHE_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data"))


def read_data(relative):
    with open(os.path.join(TEST_DATA, relative), "rb") as f:
        return f.read()


class Daemon:
    """qdcached --socket DIR/sock --store DIR/store, ready when started (it
    writes "ready" to a pipe once serving: no polling). Stops on exit."""

    def __init__(self, *flags):
        self.flags = list(flags)
        self.dir = None
        self.process = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="qdcache-py-")
        os.chmod(self.dir, 0o700)
        self.socket = os.path.join(self.dir, "sock")
        self.log_path = os.path.join(self.dir, "log")
        read_end, write_end = os.pipe()
        binary = os.environ["QDCACHED_BIN"]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "--socket", self.socket, "--store", os.path.join(self.dir, "store"),
                 "--workers", "2", "--ready-fd", str(write_end)] + self.flags,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, pass_fds=(write_end,))
        os.close(write_end)
        with os.fdopen(read_end, "rb") as ready:
            # "ready\n", or EOF if the daemon dies first; a daemon that hangs
            # before either fails the test after a minute instead of hanging it.
            readable, _, _ = select.select([ready], [], [], 60)
            line = ready.readline() if readable else b""
        if line != b"ready\n":
            self.__exit__(None, None, None)
            raise RuntimeError("qdcached did not start: " + self.log())
        return self

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def __exit__(self, *exc):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)
            self.process = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
