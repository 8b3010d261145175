"""qdcache-bench's Python child: a warm start as a Python framework sees it.

    python3 -S python_warm_start.py lookup SOCKET NAMESPACE TARGET KEYS
        import qdcache, connect, and get every fast key of KEYS (hex, one
        per line) in one Client.lookup; all must hit.
    python3 -S python_warm_start.py files DIR NAMES
        the baseline, the shape of Triton's and Quadrants' caches: each file
        of DIR named in NAMES (one per line) read whole with open().read().
    python3 -S python_warm_start.py hits SOCKET NAMESPACE TARGET KEY CALLS
        single hits as a framework asks for one kernel at a time: CALLS
        Client.lookup calls of the one fast key KEY (UTF-8), each until its
        payload is in hand, after as many unmeasured ones; prints
        {"items": CALLS, "bytes": B, "us": [each call's microseconds]}.

The clock starts before `import qdcache` (the interpreter's own start-up is
the same for both and is not counted) and stops once every payload is a
bytes-like object in hand. The bench runs this with -S (no site hooks);
`os` is imported before the clock starts, as a stock interpreter's site
module imports it at start-up, so that neither child is charged for it. Prints one JSON line
{"items": N, "bytes": B, "ms": T}; exits 1 on a miss or an error.
qdcache is found through PYTHONPATH and QDCACHE_LIBRARY (the bench sets both).
"""

import os  # noqa: F401  (see above)
import time

start = time.perf_counter()

import sys  # noqa: E402


def read_lines(path):
    with open(path) as f:
        return [line for line in f.read().split("\n") if line]


def lookup(socket, namespace, target, keys_path):
    import qdcache

    client = qdcache.Client(socket=socket, spawn=False)
    artifacts = client.lookup(read_lines(keys_path), namespace, target)
    payloads = []
    for artifact in artifacts:
        if artifact is None:
            raise SystemExit("a fast key missed")
        payloads.append(artifact.payload)
    return payloads


def files(directory, names_path):
    payloads = []
    for name in read_lines(names_path):
        with open(directory + "/" + name, "rb") as f:
            payloads.append(f.read())
    return payloads


def hits(socket, namespace, target, key, calls):
    import qdcache

    client = qdcache.Client(socket=socket, spawn=False)
    key, calls, micros, size = key.encode(), int(calls), [], 0
    clock = time.perf_counter
    for i in range(2 * calls):
        begin = clock()
        [artifact] = client.lookup([key], namespace, target)
        if artifact is None:
            raise SystemExit("the fast key missed")
        size = len(artifact.payload)
        if i >= calls:
            micros.append((clock() - begin) * 1e6)
    print('{"items": %d, "bytes": %d, "us": [%s]}' % (calls, size, ", ".join("%.2f" % m for m in micros)))


def main(argv):
    if len(argv) == 6 and argv[0] == "hits":
        hits(*argv[1:])
        return
    if len(argv) == 5 and argv[0] == "lookup":
        payloads = lookup(*argv[1:])
    elif len(argv) == 3 and argv[0] == "files":
        payloads = files(*argv[1:])
    else:
        raise SystemExit(__doc__)
    total = sum(len(p) for p in payloads)
    ms = (time.perf_counter() - start) * 1e3
    print('{"items": %d, "bytes": %d, "ms": %.3f}' % (len(payloads), total, ms))


if __name__ == "__main__":
    main(sys.argv[1:])
