"""The qdcache package as `pip install` delivers it: builds the wheel from
this source tree (pyproject.toml, no network, no build isolation), installs
it into a fresh venv, checks what was installed (its version is the
project's, py.typed makes it typed for mypy), then runs the package's
unittest suite with the venv's interpreter, importing qdcache from the venv.

Usage: from_wheel.py SOURCE_ROOT [MYPY]   (with the suite's environment:
QDCACHED_BIN, QDCACHE_LIBRARY, QDCACHE_TEST_DATA). Exit 77 (skipped) when
this interpreter cannot build wheels or venvs, naming what is missing."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def run(*args, **kwargs):
    print("$", " ".join(str(a) for a in args), flush=True)
    return subprocess.run(args, check=True, **kwargs)


def main():
    source = os.path.abspath(sys.argv[1])
    mypy = sys.argv[2] if len(sys.argv) > 2 else ""
    missing = [m for m in ("setuptools", "wheel", "ensurepip", "venv") if importlib.util.find_spec(m) is None]
    if missing:
        print("skipped: %s has no %s (Debian: python3-setuptools python3-wheel python3-venv)"
              % (sys.executable, ", ".join(missing)))
        return SKIP
    scratch = tempfile.mkdtemp(prefix="qdcache-wheel-")
    try:
        # The wheel is built from a copy, so the build's scratch (build/,
        # *.egg-info) stays out of the source tree.
        tree = os.path.join(scratch, "src")
        shutil.copytree(os.path.join(source, "python"), os.path.join(tree, "python"),
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
        shutil.copy(os.path.join(source, "CMakeLists.txt"), tree)
        dist = os.path.join(scratch, "dist")
        run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
            "-w", dist, os.path.join(tree, "python"))
        [wheel] = os.listdir(dist)
        venv = os.path.join(scratch, "venv")
        run(sys.executable, "-m", "venv", venv)
        python = os.path.join(venv, "bin", "python")
        run(python, "-m", "pip", "install", "--no-index", "--no-deps", os.path.join(dist, wheel))

        # Installed where a user's import finds it, versioned from
        # project(VERSION), the same release as the library beside it.
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        check = (
            "import importlib.metadata, os, qdcache, sys\n"
            "here = os.path.dirname(qdcache.__file__)\n"
            "assert here.startswith(sys.prefix), here\n"
            "assert os.path.exists(os.path.join(here, 'py.typed'))\n"
            "assert importlib.metadata.version('qdcache') == qdcache.__version__, "
            "(importlib.metadata.version('qdcache'), qdcache.__version__)\n"
            "print('installed', importlib.metadata.version('qdcache'), 'at', here)\n"
        )
        run(python, "-c", check, env=env, cwd=scratch)

        # Typed as installed: a user's mypy --strict finds the annotations.
        if mypy:
            user = os.path.join(scratch, "user.py")
            with open(user, "w") as f:
                f.write("import qdcache\n\n"
                        "def first_hit(client: qdcache.Client, key: bytes) -> bytes | None:\n"
                        "    [hit] = client.lookup([key], namespace='ns', target='cpu:x86-64')\n"
                        "    return bytes(hit.payload) if hit is not None else None\n")
            run(mypy, "--strict", "--no-incremental", "--python-executable", python, user, cwd=scratch)

        tests = os.path.join(source, "python", "tests")
        run(python, "-m", "unittest", "discover", "-v", "-s", tests, "-t", tests, env=env, cwd=tests)
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
