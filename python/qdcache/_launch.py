"""Loading artifacts into this process: CPU shared objects (load_cpu) and
CUDA cubins (load_cuda), through libqdcache's loaders; the helpers AMD GPUs
share with CUDA (_launch_hip.py)."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Union

from . import _lib
from ._lib import check, lib, text
from ._results import Artifact

if TYPE_CHECKING:
    from ._types import BytesLike

    # A kernel argument: a DeviceBuffer (its address) or a ctypes scalar.
    KernelArgument = Union["DeviceBuffer", ctypes._SimpleCData[Any]]

_Writable = TypeVar("_Writable", bound="BytesLike")


def _image(artifact: Artifact | BytesLike, kind: str) -> tuple[ctypes.c_void_p, int, object, str]:
    """(pointer, size, keepalive, name) of an Artifact's payload or of bytes-like data."""
    if isinstance(artifact, Artifact):
        if artifact.kind != kind:
            raise ValueError("this artifact is a %s, not a %s" % (artifact.kind, kind))
        return ctypes.c_void_p(artifact._address), len(artifact), artifact, artifact.key[:16]
    pointer, size, keep = _lib.buffer_pointer(artifact, "artifact")
    return pointer, size, keep, "kernel"


def _dimensions(grid: int | Sequence[int], block: int | Sequence[int]) -> list[ctypes.Array[ctypes.c_uint32]]:
    """grid and block (an int or 1 to 3 ints each) as the uint32_t[3] the C ABI takes."""
    dims = []
    for value in (grid, block):
        value = (value,) if isinstance(value, int) else tuple(value)
        if not 1 <= len(value) <= 3 or not all(isinstance(v, int) and 1 <= v < 2**32 for v in value):
            raise ValueError("grid and block take 1 to 3 positive dimensions, not %r" % (value,))
        dims.append((ctypes.c_uint32 * 3)(*(value + (1,) * (3 - len(value)))))
    return dims


def _kernel_parameters(args: Sequence[Any], buffer_type: type[Any],
                       shared_bytes: int) -> tuple[ctypes.Array[ctypes.c_void_p], object]:
    """(the void* per parameter a launch takes, keepalive) for `args`: each a
    `buffer_type` (passed as its device address) or a ctypes scalar."""
    holders: list[ctypes._SimpleCData[Any]] = []
    for arg in args:
        if isinstance(arg, buffer_type):
            holders.append(ctypes.c_uint64(arg.address))
        elif isinstance(arg, ctypes._SimpleCData):
            holders.append(arg)
        else:
            raise TypeError("kernel arguments are %ss or ctypes scalars, not %s"
                            % (buffer_type.__name__, type(arg).__name__))
    pointers = (ctypes.c_void_p * max(len(holders), 1))(*[ctypes.addressof(h) for h in holders])
    if not 0 <= shared_bytes < 2**32:
        raise ValueError("shared_bytes out of range: %r" % shared_bytes)
    return pointers, holders


class CpuModule:
    """A shared object loaded from memory (never written to disk). Its
    functions stay callable while the module is referenced."""

    def __init__(self, artifact: Artifact | BytesLike, name: str | None = None) -> None:
        pointer, size, keep, hint = _image(artifact, "shared_object")
        handle = ctypes.c_void_p()
        check(lib.qdcache_cpu_load(pointer, size, text(name or hint, "name"), ctypes.byref(handle)), "load")
        self._handle: ctypes.c_void_p | None = handle

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.qdcache_cpu_module_free(self._handle)
            self._handle = None

    def symbol(self, name: str) -> int:
        """The address of a function or variable; NotFound when absent."""
        address = ctypes.c_void_p()
        check(lib.qdcache_cpu_symbol(self._handle, text(name, "name"), ctypes.byref(address)), name)
        return address.value or 0

    def function(self, name: str, restype: Any = None, argtypes: Iterable[Any] = ()) -> Callable[..., Any]:
        """The function `name` as a ctypes callable with that signature, e.g.
        module.function("saxpy", None, [c_int64, c_float, c_void_p, c_void_p])
        (restype and argtypes are ctypes types, as ctypes.CFUNCTYPE takes)."""
        function = ctypes.CFUNCTYPE(restype, *argtypes)(self.symbol(name))
        setattr(function, "_module", self)  # keeps the code loaded while the callable lives
        return function


def load_cpu(artifact: Artifact | BytesLike, name: str | None = None) -> CpuModule:
    """Loads a CPU Artifact (or an ELF shared object's bytes) and returns a CpuModule."""
    return CpuModule(artifact, name)


def cuda_available() -> tuple[bool, str]:
    """(True, "") when the CUDA driver loads and a device exists, else (False, why)."""
    status: int = lib.qdcache_cuda_available()
    return status == 0, lib.qdcache_last_error().decode("utf-8", "replace")


def cuda_compute_capability(device: int = 0) -> int:
    """Major*10+minor of a device (90 for sm_90)."""
    value = ctypes.c_int()
    check(lib.qdcache_cuda_compute_capability(device, ctypes.byref(value)), "compute capability")
    return value.value


# Modules and buffers of launches that may still run: kept until
# synchronize() (unloading or freeing them under a queued kernel would fault it).
_pending: set[CudaModule | DeviceBuffer] = set()
_pending_lock = threading.Lock()


def synchronize(device: int = 0) -> None:
    """Waits for the device's work; errors inside kernels surface here."""
    check(lib.qdcache_cuda_synchronize(device), "synchronize")
    with _pending_lock:
        _pending.difference_update([m for m in _pending if m.device == device])


class DeviceBuffer:
    """Device memory of `size` bytes on `device`, freed with the object. As a
    kernel argument it passes its device address."""

    def __init__(self, size: int, device: int = 0) -> None:
        handle = ctypes.c_void_p()
        check(lib.qdcache_cuda_buffer_create(size, device, ctypes.byref(handle)), "allocate")
        self._handle: ctypes.c_void_p | None = handle
        self.size = size
        self.device = device

    @classmethod
    def from_bytes(cls, data: BytesLike, device: int = 0) -> DeviceBuffer:
        """A buffer holding a copy of bytes-like `data` (an array.array, bytes...)."""
        view = memoryview(data).cast("B")
        buffer = cls(view.nbytes, device)
        buffer.write(view)
        return buffer

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.qdcache_cuda_buffer_free(self._handle)
            self._handle = None

    @property
    def address(self) -> int:
        """The buffer's device address."""
        address: int = lib.qdcache_cuda_buffer_address(self._handle)
        return address

    def write(self, data: BytesLike) -> None:
        """Copies bytes-like `data` to the start of the buffer."""
        pointer, size, keep = _lib.buffer_pointer(data, "data")
        check(lib.qdcache_cuda_buffer_write(self._handle, pointer, size), "copy to device")

    def read_into(self, out: _Writable) -> _Writable:
        """Copies the buffer's first len(out) bytes into writable bytes-like `out`."""
        view = memoryview(out).cast("B")
        if view.readonly:
            raise TypeError("read_into needs a writable buffer")
        pointer, size, keep = _lib.buffer_pointer(view, "out")
        check(lib.qdcache_cuda_buffer_read(self._handle, pointer, size), "copy to host")
        return out

    def read(self, size: int | None = None) -> bytes:
        """The buffer's first `size` bytes (default: all) as bytes."""
        out = bytearray(self.size if size is None else size)
        self.read_into(out)
        return bytes(out)


class CudaKernel:
    """A kernel of a CudaModule; call launch() to enqueue it."""

    def __init__(self, module: CudaModule, name: str) -> None:
        self._module = module
        self.name = name

    def launch(self, grid: int | Sequence[int], block: int | Sequence[int], args: Sequence[KernelArgument],
               shared_bytes: int = 0, stream: int | None = None) -> None:
        """Enqueues the kernel. grid, block: int or up to 3 ints. args: one per
        kernel parameter: a DeviceBuffer (its address) or a ctypes scalar
        (c_int32(n), c_float(a), ...). Asynchronous: call synchronize()."""
        dims = _dimensions(grid, block)
        pointers, keep = _kernel_parameters(args, DeviceBuffer, shared_bytes)
        check(lib.qdcache_cuda_launch(self._module._handle, text(self.name, "name"), dims[0], dims[1], shared_bytes,
                                      pointers, stream), self.name)
        with _pending_lock:  # the module and buffers stay until synchronize()
            _pending.add(self._module)
            _pending.update(arg for arg in args if isinstance(arg, DeviceBuffer))


class CudaModule:
    """A cubin loaded into a device's primary context."""

    def __init__(self, artifact: Artifact | BytesLike, device: int = 0) -> None:
        pointer, size, keep, _ = _image(artifact, "cubin")
        handle = ctypes.c_void_p()
        check(lib.qdcache_cuda_load(pointer, size, device, ctypes.byref(handle)), "load")
        self._handle: ctypes.c_void_p | None = handle
        self.device = device

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.qdcache_cuda_module_free(self._handle)
            self._handle = None

    def kernel(self, name: str) -> CudaKernel:
        return CudaKernel(self, name)

    def __getattr__(self, name: str) -> CudaKernel:
        if name.startswith("_"):
            raise AttributeError(name)
        return CudaKernel(self, name)


def load_cuda(artifact: Artifact | BytesLike, device: int = 0) -> CudaModule:
    """Loads a CUDA Artifact (or cubin bytes) on `device` and returns a CudaModule."""
    return CudaModule(artifact, device)
