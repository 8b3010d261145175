"""qdcache: the Python client of qdcached, the out-of-process compile cache
for GPU and CPU kernels.

    import qdcache
    client = qdcache.Client(spawn=True)         # the per-user daemon
    artifact = client.compile(ir, target="cpu:x86-64", fast_key=b"...", namespace="myfw")
    saxpy = qdcache.load_cpu(artifact).function("saxpy", None, [c_int64, c_float, c_void_p, c_void_p])
    client.lookup([b"..."], namespace="myfw", target="cpu:x86-64")   # no IR sent
    client.stats()

Pure Python over libqdcache.so's C ABI (ctypes): no compiled extension.
"""

from ._errors import QdcacheError
from ._lib import lib as _lib_handle
from ._client import Artifact, Client, Result
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

__version__ = _lib_handle.qdcache_version().decode()
abi_version = _lib_handle.qdcache_abi_version()

__all__ = [
    "Artifact",
    "Client",
    "CpuModule",
    "CudaKernel",
    "CudaModule",
    "DeviceBuffer",
    "QdcacheError",
    "Result",
    "abi_version",
    "cuda_available",
    "cuda_compute_capability",
    "load_cpu",
    "load_cuda",
    "synchronize",
]
