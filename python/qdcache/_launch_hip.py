"""Loading AMDGPU HSA code objects into this process (load_hip, ABI 1.6):
CUDA's modules, kernels and buffers (_launch.py) over libqdcache's
qdcache_hip_* calls, which open the HIP runtime at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._launch import _DeviceBuffer, _Gpu, _Kernel, _Module
from ._results import Artifact

if TYPE_CHECKING:
    from ._types import BytesLike

# The qdcache_hip_* functions came with ABI 1.6: with an older libqdcache,
# everything here raises Unimplemented (hip_available() says so).
_HIP = _Gpu("hip")


def hip_available() -> tuple[bool, str]:
    """(True, "") when the HIP runtime loads and an AMD GPU exists, else
    (False, why): the runtime library missing (named), "no AMD GPU" with
    HIP's error, or a libqdcache older than ABI 1.6."""
    return _HIP.available()


def hip_synchronize(device: int = 0) -> None:
    """Waits for the AMD GPU's work; errors inside kernels surface here."""
    _HIP.synchronize(device)


class HipDeviceBuffer(_DeviceBuffer):
    """Memory of `size` bytes on AMD GPU `device`, freed with the object. As
    a kernel argument it passes its device address."""

    _gpu = _HIP


class HipKernel(_Kernel[HipDeviceBuffer]):
    """A kernel of a HipModule; call launch() to enqueue it."""

    _buffer_type = HipDeviceBuffer


class HipModule(_Module[HipKernel]):
    """An HSA code object loaded onto an AMD GPU."""

    _gpu = _HIP
    _kind = "hsa_code_object"

    def kernel(self, name: str) -> HipKernel:
        return HipKernel(self, name)


def load_hip(artifact: Artifact | BytesLike, device: int = 0) -> HipModule:
    """Loads an AMDGPU Artifact (or an HSA code object's bytes) on AMD GPU
    `device` and returns a HipModule. Needs libqdcache ABI 1.6
    (Unimplemented otherwise)."""
    return HipModule(artifact, device)
