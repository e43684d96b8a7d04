"""kgrt._memory - where a tensor's memory is, for Model.bind: a pointer, its
bytes, shape, dtype and device, read from the exchange protocols the
array libraries speak, without importing any of them:

- __cuda_array_interface__ (PyTorch, CuPy, Numba on CUDA; PyTorch on ROCm):
  a device pointer, and the stream the producer's work is queued on;
- DLPack (__dlpack__ / __dlpack_device__: PyTorch, JAX, CuPy, NumPy 1.22+),
  its capsule read with ctypes (legacy and versioned DLManagedTensor);
- __array_interface__ (NumPy): host memory, for the sim.

Only C-contiguous tensors are taken.
"""
import ctypes
from ctypes import POINTER, Structure, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

# DLPack device types and dtype codes (dlpack.h)
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_ROCM, DL_CUDA_MANAGED = 1, 2, 3, 10, 13
DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT = 0, 1, 2, 4

# kgrt dtype -> (DLPack code, bits) and -> array-interface typestr
DTYPE_DL = {"f32": (DL_FLOAT, 32), "f16": (DL_FLOAT, 16), "bf16": (DL_BFLOAT, 16),
            "i32": (DL_INT, 32)}
DTYPE_TYPESTR = {"f32": "<f4", "f16": "<f2", "i32": "<i4"}


class _DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class _DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class _DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", _DLDevice), ("ndim", c_int32),
                ("dtype", _DLDataType), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class _DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class _DLManagedTensorVersioned(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32), ("manager_ctx", c_void_p),
                ("deleter", c_void_p), ("flags", c_uint64), ("dl_tensor", _DLTensor)]


_DL_READ_ONLY = 1
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype, _get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = c_void_p, [ctypes.py_object, ctypes.c_char_p]


class Memory:
    """A tensor's memory: ptr, nbytes, shape, dtype (a kgrt dtype name or
    None), device ('cpu', 'cuda', 'rocm'), device_id (None: unknown),
    readonly, stream (CUDA stream handle of the producer's work, or None),
    and `keep`: the objects that must stay alive while kgrt uses it."""

    def __init__(self, ptr, nbytes, shape, dtype, device, device_id, readonly, stream, keep):
        self.ptr, self.nbytes, self.shape, self.dtype = ptr, nbytes, tuple(shape), dtype
        self.device, self.device_id, self.readonly = device, device_id, readonly
        self.stream, self.keep = stream, keep


def _contiguous(shape, strides, itemsize):
    """Whether strides (in bytes, or None) are C-contiguous for shape."""
    if strides is None:
        return True
    want = itemsize
    for n, s in reversed(list(zip(shape, strides))):
        if n != 1 and s != want:
            return False
        want *= n
    return True


def _nbytes(shape, itemsize):
    n = itemsize
    for d in shape:
        n *= d
    return n


def _from_typestr(typestr):
    for name, ts in DTYPE_TYPESTR.items():
        if typestr == ts or (typestr[0] in "|=" and typestr[1:] == ts[1:]):
            return name
    return None


def _from_interface(obj, iface, device):
    shape = tuple(iface["shape"])
    typestr = iface["typestr"]
    itemsize = int(typestr[2:])
    ptr, readonly = iface["data"]
    if not _contiguous(shape, iface.get("strides"), itemsize):
        raise ValueError("the tensor is not C-contiguous")
    stream = iface.get("stream") if device != "cpu" else None
    return Memory(ptr or 0, _nbytes(shape, itemsize), shape, _from_typestr(typestr), device,
                  None, bool(readonly), stream, (obj,))


def _from_dlpack(obj):
    dev_type, dev_id = obj.__dlpack_device__()
    capsule = obj.__dlpack__()
    name = _get_name(capsule)
    p = _get_pointer(capsule, name)
    if name == b"dltensor_versioned":
        m = _DLManagedTensorVersioned.from_address(p)
        t, readonly = m.dl_tensor, bool(m.flags & _DL_READ_ONLY)
    elif name == b"dltensor":
        t, readonly = _DLManagedTensor.from_address(p).dl_tensor, False
    else:
        raise ValueError("a DLPack capsule named %r" % name)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.dtype.lanes != 1 or t.dtype.bits % 8:
        raise ValueError("DLPack dtype with %d lanes of %d bits" % (t.dtype.lanes, t.dtype.bits))
    itemsize = t.dtype.bits // 8
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))
    if not _contiguous(shape, strides, itemsize):
        raise ValueError("the tensor is not C-contiguous")
    dtype = None
    for k, v in DTYPE_DL.items():
        if v == (t.dtype.code, t.dtype.bits):
            dtype = k
    device = {DL_CPU: "cpu", DL_CUDA_HOST: "cpu", DL_CUDA: "cuda", DL_CUDA_MANAGED: "cuda",
              DL_ROCM: "rocm"}.get(dev_type, "device type %d" % dev_type)
    # the capsule is not consumed: dropping it (with obj) releases the producer's hold
    return Memory((t.data or 0) + t.byte_offset, _nbytes(shape, itemsize), shape, dtype,
                  device, dev_id, readonly, None, (obj, capsule))


def memory_of(obj):
    """The Memory of an array-like object, or ValueError saying why not."""
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_interface(obj, obj.__cuda_array_interface__, "cuda")
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj)
    if hasattr(obj, "__array_interface__"):
        return _from_interface(obj, obj.__array_interface__, "cpu")
    raise ValueError("%s has no __cuda_array_interface__, __dlpack__ or __array_interface__"
                     % type(obj).__name__)


_libcuda = None


def sync_stream(stream):
    """Waits for CUDA stream `stream` (a CUstream handle; 1 and 2 are the
    legacy and per-thread default streams) through libcuda.so.1."""
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
        _libcuda.cuStreamSynchronize.argtypes = [c_void_p]
        _libcuda.cuStreamSynchronize.restype = ctypes.c_int
    rc = _libcuda.cuStreamSynchronize(c_void_p(stream))
    if rc != 0:
        raise RuntimeError("cuStreamSynchronize(%#x) failed: CUresult %d" % (stream, rc))
