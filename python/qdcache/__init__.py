"""qdcache: the Python client of qdcached, the out-of-process compile cache
for GPU and CPU kernels.

    import qdcache
    client = qdcache.Client(spawn=True)         # the per-user daemon
    artifact = client.compile(ir, target="cpu:x86-64", fast_key=b"...", namespace="myfw")
    saxpy = qdcache.load_cpu(artifact).function("saxpy", None, [c_int64, c_float, c_void_p, c_void_p])
    client.lookup([b"..."], namespace="myfw", target="cpu:x86-64")   # no IR sent
    client.stats()

A fast key that cannot silently go stale: compile with
dependencies=qdcache.file_dependencies(paths) (the files the frontend read),
then lookup(..., check=qdcache.files_unchanged) misses once one changed.

Pure Python over libqdcache.so's C ABI (ctypes): no compiled extension.
The library is loaded on first use; Client.lookup on a unix socket speaks
the daemon's lean transport itself and needs none.
Failures raise a QdcacheError subclass per status code (InvalidArgument,
Unavailable, ...).
"""

from ._errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DataLoss,
    DeadlineExceeded,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    OutOfRange,
    PermissionDenied,
    QdcacheError,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    Unknown,
    error_for,
)
from ._client import Client
from ._results import Artifact, Result

# The rest of the API is imported on first use (PEP 562): a warm start
# imports only what Client.lookup needs, without ctypes, typing or
# libqdcache (each costs milliseconds a framework's start pays).
_LAZY = {
    "Dependency": "_dependencies",
    "file_dependencies": "_dependencies",
    "file_digest": "_dependencies",
    "files_unchanged": "_dependencies",
    "KernelSpec": "_request",
    "CpuModule": "_launch",
    "CudaKernel": "_launch",
    "CudaModule": "_launch",
    "DeviceBuffer": "_launch",
    "cuda_available": "_launch",
    "cuda_compute_capability": "_launch",
    "load_cpu": "_launch",
    "load_cuda": "_launch",
    "synchronize": "_launch",
    "HipDeviceBuffer": "_launch_hip",
    "HipKernel": "_launch_hip",
    "HipModule": "_launch_hip",
    "hip_available": "_launch_hip",
    "hip_synchronize": "_launch_hip",
    "load_hip": "_launch_hip",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._dependencies import Dependency, file_dependencies, file_digest, files_unchanged
    from ._launch import (
        CpuModule,
        CudaKernel,
        CudaModule,
        DeviceBuffer,
        cuda_available,
        cuda_compute_capability,
        load_cpu,
        load_cuda,
        synchronize,
    )
    from ._launch_hip import HipDeviceBuffer, HipKernel, HipModule, hip_available, hip_synchronize, load_hip
    from ._request import KernelSpec

    __version__: str
    abi_version: int


def __getattr__(name: str) -> object:
    """The lazily imported names of _LAZY; and __version__ and abi_version:
    libqdcache's, which they load (importing the package loads no library:
    a warm start over the lean transport never needs one)."""
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        value: object = getattr(importlib.import_module("." + module, __name__), name)
        globals()[name] = value  # found directly from now on
        return value
    if name == "__version__":
        from ._lib import lib

        version: str = lib.qdcache_version().decode()
        return version
    if name == "abi_version":
        from ._lib import abi

        return abi()
    raise AttributeError("module 'qdcache' has no attribute %r" % name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__", "abi_version"})


__all__ = [
    "Aborted",
    "AlreadyExists",
    "Artifact",
    "Cancelled",
    "Client",
    "CpuModule",
    "CudaKernel",
    "CudaModule",
    "DataLoss",
    "DeadlineExceeded",
    "Dependency",
    "DeviceBuffer",
    "FailedPrecondition",
    "HipDeviceBuffer",
    "HipKernel",
    "HipModule",
    "Internal",
    "InvalidArgument",
    "KernelSpec",
    "NotFound",
    "OutOfRange",
    "PermissionDenied",
    "QdcacheError",
    "ResourceExhausted",
    "Result",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "Unknown",
    "abi_version",
    "cuda_available",
    "cuda_compute_capability",
    "error_for",
    "file_dependencies",
    "file_digest",
    "files_unchanged",
    "hip_available",
    "hip_synchronize",
    "load_cpu",
    "load_cuda",
    "load_hip",
    "synchronize",
]
