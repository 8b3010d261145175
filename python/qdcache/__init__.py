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
from ._dependencies import Dependency, file_dependencies, file_digest, files_unchanged
from typing import TYPE_CHECKING

from . import _lib
from ._client import Client
from ._request import KernelSpec
from ._results import Artifact, Result
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


if TYPE_CHECKING:
    __version__: str
    abi_version: int


def __getattr__(name: str) -> object:
    """__version__ and abi_version: libqdcache's, which they load (importing
    the package loads no library: a warm start over the lean transport never
    needs one)."""
    if name == "__version__":
        version: str = _lib.lib.qdcache_version().decode()
        return version
    if name == "abi_version":
        return _lib.abi()
    raise AttributeError("module 'qdcache' has no attribute %r" % name)


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
