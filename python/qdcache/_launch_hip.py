"""Loading AMDGPU HSA code objects into this process (load_hip, ABI 1.6):
the shapes of CUDA's launcher (_launch.py) over libqdcache's qdcache_hip_*
calls, which open the HIP runtime at run time."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Union

from . import _lib
from ._errors import Unimplemented
from ._launch import _Writable, _dimensions, _image, _kernel_parameters, _pending_lock
from ._lib import check, lib, text
from ._results import Artifact

if TYPE_CHECKING:
    from ._types import BytesLike

    # A kernel argument for an AMD GPU: a HipDeviceBuffer or a ctypes scalar.
    HipKernelArgument = Union["HipDeviceBuffer", ctypes._SimpleCData[Any]]

# Modules and buffers of HIP launches that may still run, kept until
# hip_synchronize() as _pending keeps CUDA's.
_hip_pending: set[HipModule | HipDeviceBuffer] = set()


def hip_available() -> tuple[bool, str]:
    """(True, "") when the HIP runtime loads and an AMD GPU exists, else
    (False, why): the runtime library missing (named), "no AMD GPU" with
    HIP's error, or a libqdcache older than ABI 1.6."""
    try:
        available = _lib.require("qdcache_hip_available")
    except Unimplemented as e:
        return False, e.message
    status: int = available()
    return status == 0, lib.qdcache_last_error().decode("utf-8", "replace")


def hip_synchronize(device: int = 0) -> None:
    """Waits for the AMD GPU's work; errors inside kernels surface here."""
    check(_lib.require("qdcache_hip_synchronize")(device), "synchronize")
    with _pending_lock:
        _hip_pending.difference_update([m for m in _hip_pending if m.device == device])


class HipDeviceBuffer:
    """Memory of `size` bytes on AMD GPU `device`, freed with the object. As
    a kernel argument it passes its device address."""

    def __init__(self, size: int, device: int = 0) -> None:
        handle = ctypes.c_void_p()
        check(_lib.require("qdcache_hip_buffer_create")(size, device, ctypes.byref(handle)), "allocate")
        self._handle: ctypes.c_void_p | None = handle
        self.size = size
        self.device = device

    @classmethod
    def from_bytes(cls, data: BytesLike, device: int = 0) -> HipDeviceBuffer:
        """A buffer holding a copy of bytes-like `data` (an array.array, bytes...)."""
        view = memoryview(data).cast("B")
        buffer = cls(view.nbytes, device)
        buffer.write(view)
        return buffer

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.qdcache_hip_buffer_free(self._handle)
            self._handle = None

    @property
    def address(self) -> int:
        """The buffer's device address."""
        address: int = lib.qdcache_hip_buffer_address(self._handle)
        return address

    def write(self, data: BytesLike) -> None:
        """Copies bytes-like `data` to the start of the buffer."""
        pointer, size, keep = _lib.buffer_pointer(data, "data")
        check(lib.qdcache_hip_buffer_write(self._handle, pointer, size), "copy to device")

    def read_into(self, out: _Writable) -> _Writable:
        """Copies the buffer's first len(out) bytes into writable bytes-like `out`."""
        view = memoryview(out).cast("B")
        if view.readonly:
            raise TypeError("read_into needs a writable buffer")
        pointer, size, keep = _lib.buffer_pointer(view, "out")
        check(lib.qdcache_hip_buffer_read(self._handle, pointer, size), "copy to host")
        return out

    def read(self, size: int | None = None) -> bytes:
        """The buffer's first `size` bytes (default: all) as bytes."""
        out = bytearray(self.size if size is None else size)
        self.read_into(out)
        return bytes(out)


class HipKernel:
    """A kernel of a HipModule; call launch() to enqueue it."""

    def __init__(self, module: HipModule, name: str) -> None:
        self._module = module
        self.name = name

    def launch(self, grid: int | Sequence[int], block: int | Sequence[int], args: Sequence[HipKernelArgument],
               shared_bytes: int = 0, stream: int | None = None) -> None:
        """Enqueues the kernel. grid, block: int or up to 3 ints. args: one per
        kernel parameter: a HipDeviceBuffer (its address) or a ctypes scalar
        (c_int32(n), c_float(a), ...). Asynchronous: call hip_synchronize()."""
        dims = _dimensions(grid, block)
        pointers, keep = _kernel_parameters(args, HipDeviceBuffer, shared_bytes)
        check(lib.qdcache_hip_launch(self._module._handle, text(self.name, "name"), dims[0], dims[1], shared_bytes,
                                     pointers, stream), self.name)
        with _pending_lock:  # the module and buffers stay until hip_synchronize()
            _hip_pending.add(self._module)
            _hip_pending.update(arg for arg in args if isinstance(arg, HipDeviceBuffer))


class HipModule:
    """An HSA code object loaded onto an AMD GPU."""

    def __init__(self, artifact: Artifact | BytesLike, device: int = 0) -> None:
        pointer, size, keep, _ = _image(artifact, "hsa_code_object")
        handle = ctypes.c_void_p()
        check(_lib.require("qdcache_hip_load")(pointer, size, device, ctypes.byref(handle)), "load")
        self._handle: ctypes.c_void_p | None = handle
        self.device = device

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.qdcache_hip_module_free(self._handle)
            self._handle = None

    def kernel(self, name: str) -> HipKernel:
        return HipKernel(self, name)

    def __getattr__(self, name: str) -> HipKernel:
        if name.startswith("_"):
            raise AttributeError(name)
        return HipKernel(self, name)


def load_hip(artifact: Artifact | BytesLike, device: int = 0) -> HipModule:
    """Loads an AMDGPU Artifact (or an HSA code object's bytes) on AMD GPU
    `device` and returns a HipModule. Needs libqdcache ABI 1.6
    (Unimplemented otherwise)."""
    return HipModule(artifact, device)
