"""The version of the qdcache wheel (pyproject.toml holds the rest).

It lives in one place, project(qdcached VERSION x.y.z) in the top-level
CMakeLists.txt; an sdist carries it in its PKG-INFO instead."""

import os
import re

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def version() -> str:
    cmake = os.path.join(HERE, "..", "CMakeLists.txt")
    if os.path.exists(cmake):
        with open(cmake, encoding="utf-8") as f:
            found = re.search(r"^project\(qdcached VERSION ([0-9.]+)", f.read(), re.MULTILINE)
        if found:
            return found.group(1)
        raise SystemExit("qdcache: no `project(qdcached VERSION ...)` in " + cmake)
    pkg_info = os.path.join(HERE, "PKG-INFO")
    if os.path.exists(pkg_info):
        with open(pkg_info, encoding="utf-8") as f:
            found = re.search(r"^Version: (\S+)$", f.read(), re.MULTILINE)
        if found:
            return found.group(1)
    raise SystemExit("qdcache: build from a qdcached source tree (its CMakeLists.txt has the version) or an sdist")


setup(version=version())
