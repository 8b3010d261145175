"""Loading artifacts into this process: CPU shared objects (load_cpu) and
CUDA cubins (load_cuda), through libqdcache's loaders; the GPU modules,
kernels and buffers whose HIP forms (_launch_hip.py) differ from CUDA's
only in the C functions they call."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from . import _lib
from ._errors import Unimplemented
from ._lib import check, lib
from ._text import text
from ._results import Artifact

if TYPE_CHECKING:
    from ._types import BytesLike

_Writable = TypeVar("_Writable", bound="BytesLike")


def _image(artifact: Artifact | BytesLike, kind: str) -> tuple[ctypes.c_void_p, int, object, str]:
    """(pointer, size, keepalive, name) of an Artifact's payload or of bytes-like data."""
    if isinstance(artifact, Artifact):
        if artifact.kind != kind:
            raise ValueError("this artifact is a %s, not a %s" % (artifact.kind, kind))
        if artifact._address is None and len(artifact):
            # A view the library cannot point into (a lean-transport answer's): loading copies anyway.
            pointer, size, keep = _lib.buffer_pointer(bytes(artifact.payload), "artifact")
            return pointer, size, keep, artifact.key[:16]
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


# ---- GPUs: what CUDA's launcher and HIP's (_launch_hip.py) share ----

# Guards every _Gpu's `pending`.
_pending_lock = threading.Lock()


class _Gpu:
    """One GPU launcher of libqdcache, CUDA's or HIP's: its C functions
    qdcache_<api>_*, and the modules and buffers of its launches that may
    still run, kept until its synchronize() (unloading or freeing them under
    a queued kernel would fault it)."""

    def __init__(self, api: str) -> None:
        self._prefix = "qdcache_%s_" % api
        self.pending: set[_DeviceBuffer | _Module[Any]] = set()

    def function(self, name: str) -> Callable[..., Any]:
        """The C function qdcache_<api>_<name>; Unimplemented when the library
        loaded predates it."""
        return _lib.require(self._prefix + name)

    def available(self) -> tuple[bool, str]:
        """(True, "") when the runtime loads and a device exists, else (False, why)."""
        try:
            available = self.function("available")
        except Unimplemented as e:
            return False, e.message
        status: int = available()
        return status == 0, lib.qdcache_last_error().decode("utf-8", "replace")

    def synchronize(self, device: int) -> None:
        """Waits for the device's work, then lets go of what its launches kept."""
        check(self.function("synchronize")(device), "synchronize")
        with _pending_lock:
            self.pending.difference_update([m for m in self.pending if m.device == device])

    def keep_until_synchronized(self, module: _Module[Any], buffers: Iterable[_DeviceBuffer]) -> None:
        """Keeps a launch's module and buffers alive until synchronize() of their device."""
        with _pending_lock:
            self.pending.add(module)
            self.pending.update(buffers)


_Buffer = TypeVar("_Buffer", bound="_DeviceBuffer")
_K = TypeVar("_K", bound="_Kernel[Any]")


class _DeviceBuffer:
    """Device memory of a _Gpu, freed with the object (DeviceBuffer,
    HipDeviceBuffer). As a kernel argument it passes its device address."""

    _gpu: ClassVar[_Gpu]

    def __init__(self, size: int, device: int = 0) -> None:
        handle = ctypes.c_void_p()
        check(self._gpu.function("buffer_create")(size, device, ctypes.byref(handle)), "allocate")
        self._handle: ctypes.c_void_p | None = handle
        self.size = size
        self.device = device

    @classmethod
    def from_bytes(cls: type[_Buffer], data: BytesLike, device: int = 0) -> _Buffer:
        """A buffer holding a copy of bytes-like `data` (an array.array, bytes...)."""
        view = memoryview(data).cast("B")
        buffer = cls(view.nbytes, device)
        buffer.write(view)
        return buffer

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self._gpu.function("buffer_free")(self._handle)
            self._handle = None

    @property
    def address(self) -> int:
        """The buffer's device address."""
        address: int = self._gpu.function("buffer_address")(self._handle)
        return address

    def write(self, data: BytesLike) -> None:
        """Copies bytes-like `data` to the start of the buffer."""
        pointer, size, keep = _lib.buffer_pointer(data, "data")
        check(self._gpu.function("buffer_write")(self._handle, pointer, size), "copy to device")

    def read_into(self, out: _Writable) -> _Writable:
        """Copies the buffer's first len(out) bytes into writable bytes-like `out`."""
        view = memoryview(out).cast("B")
        if view.readonly:
            raise TypeError("read_into needs a writable buffer")
        pointer, size, keep = _lib.buffer_pointer(view, "out")
        check(self._gpu.function("buffer_read")(self._handle, pointer, size), "copy to host")
        return out

    def read(self, size: int | None = None) -> bytes:
        """The buffer's first `size` bytes (default: all) as bytes."""
        out = bytearray(self.size if size is None else size)
        self.read_into(out)
        return bytes(out)


class _Kernel(Generic[_Buffer]):
    """A kernel of a module of a _Gpu (CudaKernel, HipKernel), whose
    arguments may be its `_Buffer`s; call launch() to enqueue it."""

    _buffer_type: ClassVar[type[_DeviceBuffer]]

    def __init__(self, module: _Module[Any], name: str) -> None:
        self._module = module
        self.name = name

    def launch(self, grid: int | Sequence[int], block: int | Sequence[int],
               args: Sequence[_Buffer | ctypes._SimpleCData[Any]], shared_bytes: int = 0,
               stream: int | None = None) -> None:
        """Enqueues the kernel. grid, block: int or up to 3 ints. args: one per
        kernel parameter: a device buffer of the kernel's GPU (DeviceBuffer,
        HipDeviceBuffer: its address) or a ctypes scalar (c_int32(n),
        c_float(a), ...). Asynchronous: call that GPU's synchronize()
        (synchronize(), hip_synchronize())."""
        gpu = self._module._gpu
        dims = _dimensions(grid, block)
        pointers, keep = _kernel_parameters(args, self._buffer_type, shared_bytes)
        check(gpu.function("launch")(self._module._handle, text(self.name, "name"), dims[0], dims[1], shared_bytes,
                                     pointers, stream), self.name)
        gpu.keep_until_synchronized(self._module, [arg for arg in args if isinstance(arg, self._buffer_type)])


class _Module(Generic[_K]):
    """A GPU artifact of `_kind` loaded onto a device of a _Gpu (CudaModule,
    HipModule); its kernels are `_K`s."""

    _gpu: ClassVar[_Gpu]
    _kind: ClassVar[str]

    def __init__(self, artifact: Artifact | BytesLike, device: int = 0) -> None:
        pointer, size, keep, _ = _image(artifact, self._kind)
        handle = ctypes.c_void_p()
        check(self._gpu.function("load")(pointer, size, device, ctypes.byref(handle)), "load")
        self._handle: ctypes.c_void_p | None = handle
        self.device = device

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self._gpu.function("module_free")(self._handle)
            self._handle = None

    def kernel(self, name: str) -> _K:
        """The kernel `name`, also module.<name>."""
        raise NotImplementedError  # each launcher's module makes its own kind

    def __getattr__(self, name: str) -> _K:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.kernel(name)


# ---- CUDA ----

_CUDA = _Gpu("cuda")


def cuda_available() -> tuple[bool, str]:
    """(True, "") when the CUDA driver loads and a device exists, else (False, why)."""
    return _CUDA.available()


def cuda_compute_capability(device: int = 0) -> int:
    """Major*10+minor of a device (90 for sm_90)."""
    value = ctypes.c_int()
    check(lib.qdcache_cuda_compute_capability(device, ctypes.byref(value)), "compute capability")
    return value.value


def synchronize(device: int = 0) -> None:
    """Waits for the device's work; errors inside kernels surface here."""
    _CUDA.synchronize(device)


class DeviceBuffer(_DeviceBuffer):
    """Device memory of `size` bytes on `device`, freed with the object. As a
    kernel argument it passes its device address."""

    _gpu = _CUDA


class CudaKernel(_Kernel[DeviceBuffer]):
    """A kernel of a CudaModule; call launch() to enqueue it."""

    _buffer_type = DeviceBuffer


class CudaModule(_Module[CudaKernel]):
    """A cubin loaded into a device's primary context."""

    _gpu = _CUDA
    _kind = "cubin"

    def kernel(self, name: str) -> CudaKernel:
        return CudaKernel(self, name)


def load_cuda(artifact: Artifact | BytesLike, device: int = 0) -> CudaModule:
    """Loads a CUDA Artifact (or cubin bytes) on `device` and returns a CudaModule."""
    return CudaModule(artifact, device)
