"""kgrt - the kgen runtime from Python (ctypes over libkgrt.so; NumPy where
present, no compiled extension).

    import kgen, kgrt
    table = kgen.build("sketch.lua", ["gfx1100"]).table()
    dev = kgrt.Device("auto")               # cuda, hip, else the sim
    m = dev.load(table)
    m.set_dim("B", 32)
    m.set_input("x", x)                     # a NumPy array, copied in
    m.run()
    y = m.output("cs")                      # a new NumPy array
    m.bind("x", x_gpu); m.bind("cs", y_gpu) # PyTorch tensors on the GPU: no copy
    m.run()                                 # y_gpu holds the result

A failed call raises kgrt.Error, whose .status ("OUT_OF_RANGE") and
.message are kgrt's. A Model keeps its Device and Table alive; closing a
device with models still loaded is refused.
"""
import ctypes
from ctypes import byref, c_double, c_int64, c_size_t, c_uint32, c_void_p

from . import _ffi
from ._ffi import lib
from ._memory import memory_of, sync_stream

try:
    import numpy as np
except ImportError:  # bytes in and out without it
    np = None

__all__ = ["Error", "Device", "Table", "Model", "Weights", "status_name", "LIBRARY"]

LIBRARY = _ffi.LIBRARY


def status_name(status):
    """kgrt's name of a status value: 9 -> 'OUT_OF_RANGE'."""
    return lib.kgrt_status_name(status).decode()


class Error(Exception):
    """A failed kgrt call: .status (kgrt's name, "NOT_FOUND"), .code (its
    value) and .message (kgrt's one-line message)."""

    def __init__(self, code, message):
        self.code = code
        self.status = status_name(code)
        self.message = message
        super().__init__("%s: %s" % (self.status, message))


def _call(fn, *args):
    err = _ffi.kgrt_error_t()
    st = fn(*args, byref(err))
    if st != 0:
        raise Error(st, err.message.decode("utf-8", "replace"))


def _refuse(status, message):
    raise Error(_ffi.STATUS_NAMES.index(status), message)


def _c(s, what="name"):
    if not isinstance(s, str) or "\0" in s:
        _refuse("INVALID_ARGUMENT", "%s %r is not a string without NUL bytes" % (what, s))
    return s.encode()


_NUMPY_DTYPES = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i32": "<i4"}


class TensorInfo:
    """An input, weight or output of a table: name, dtype ('f32', 'bf16',
    ...), dims (ints and dim names), state (an input kept on the device)."""

    def __init__(self, name, dtype, dims, state):
        self.name, self.dtype, self.dims, self.state = name, dtype, tuple(dims), state

    def shape(self, dims):
        """The shape with the dims' values `dims` (a dict)."""
        return tuple(dims.get(d, 0) if isinstance(d, str) else d for d in self.dims)

    def __repr__(self):
        return "TensorInfo(%r, %s%s)" % (self.name, self.dtype, list(self.dims))


class Table:
    """A kgen kernel table (kgrt_table.h) at `address` in a loaded library
    `owner` (kept alive with the table): kgen.build(...).table() makes one."""

    def __init__(self, address, owner=None):
        self._owner = owner
        self._raw = _ffi.kgrt_model_table_t.from_address(address)
        self._ptr = ctypes.pointer(self._raw)
        t = self._raw
        self.name = t.name.decode()
        self.syms = {}
        for i in range(t.num_syms):
            self.syms[t.syms[i].name.decode()] = t.syms[i].max
        self.arches = [t.arches[i].contents.arch.decode() for i in range(t.num_arches)]
        self.inputs = self._tensors(t.inputs, t.num_inputs)
        self.weights = self._tensors(t.weights, t.num_weights)
        self.outputs = self._tensors(t.outputs, t.num_outputs)

    def _tensors(self, p, n):
        names = list(self.syms)
        out = {}
        for i in range(n):
            info = p[i]
            dims = []
            for d in range(min(info.rank, _ffi.MAX_DIMS)):
                dim = info.dims[d]
                dims.append(names[dim.sym] if 0 <= dim.sym < len(names) else dim.value)
            dtype = _ffi.DTYPE_NAMES[info.dtype] if info.dtype < len(_ffi.DTYPE_NAMES) else str(info.dtype)
            out[info.name.decode()] = TensorInfo(info.name.decode(), dtype, dims,
                                                 bool(info.flags & _ffi.TENSOR_STATE))
        return out

    def __repr__(self):
        return "Table(%r, arches=%s)" % (self.name, self.arches)


class Device:
    """An open kgrt device: "sim:gfx1100", "cuda:0", "hip", "auto"
    (docs/runtime.md lists the specs)."""

    def __init__(self, spec="auto"):
        self._raw = c_void_p()
        self._models = set()
        _call(lib.kgrt_device_open, _c(spec, "device spec"), None, byref(self._raw))
        self.name = lib.kgrt_device_name(self._raw).decode()
        self.kind = self.name.split(":")[0].split(",")[0].split(" ")[0]

    def load(self, table):
        """Loads `table` (a kgrt.Table) onto this device."""
        return Model(self, table)

    def memory(self, table):
        """What loading `table` here would allocate (a dict of bytes)."""
        m = _ffi.kgrt_memory_t()
        _call(lib.kgrt_model_memory, self._handle(), table._ptr, byref(m))
        return {n: getattr(m, n) for n, _ in m._fields_}

    def _handle(self):
        if not self._raw:
            _refuse("FAILED_PRECONDITION", "device %s is closed" % self.name)
        return self._raw

    def close(self):
        """Closes the device; refused while models are loaded on it."""
        if self._models:
            _refuse("FAILED_PRECONDITION", "device %s has %d models loaded: unload them first"
                    % (self.name, len(self._models)))
        if self._raw:
            lib.kgrt_device_close(self._raw)
            self._raw = c_void_p()

    def __del__(self):
        if getattr(self, "_raw", None) and not self._models:
            lib.kgrt_device_close(self._raw)
            self._raw = c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Device(%r)" % self.name


class Model:
    """A table loaded on a device (Device.load). It keeps both alive."""

    def __init__(self, device, table):
        self.device, self.table = device, table
        self._raw = c_void_p()
        _call(lib.kgrt_model_load, device._handle(), table._ptr, byref(self._raw))
        device._models.add(id(self))
        self.arch = lib.kgrt_model_arch(self._raw).decode()
        self._dims = {}
        self._steps = {}
        self._advance = False  # the last call was run_steps: steps apply first
        self._bound = {}       # name -> Memory of the caller's memory bound there
        self._streams = set()  # CUDA streams of the bound tensors' producers

    def _handle(self):
        if not self._raw:
            _refuse("FAILED_PRECONDITION", "model %s is unloaded" % self.table.name)
        return self._raw

    def unload(self):
        if getattr(self, "_raw", None):
            lib.kgrt_model_unload(self._raw)
            self._raw = c_void_p()
            self._bound.clear()
            self.device._models.discard(id(self))

    __del__ = unload

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.unload()

    def memory(self):
        m = _ffi.kgrt_memory_t()
        lib.kgrt_model_held_memory(self._handle(), byref(m))
        return {n: getattr(m, n) for n, _ in m._fields_}

    # ---- dims and bindings
    def set_dim(self, sym, value):
        _call(lib.kgrt_model_set_dim, self._handle(), _c(sym, "dim"), c_int64(value))
        self._dims[sym] = int(value)
        self._advance = False

    def set_dims(self, **dims):
        for k, v in dims.items():
            self.set_dim(k, v)

    def tensor_bytes(self, name):
        n = c_size_t()
        _call(lib.kgrt_model_tensor_bytes, self._handle(), _c(name), byref(n))
        return n.value

    def _info(self, name, kinds):
        for kind in kinds:
            t = getattr(self.table, kind).get(name)
            if t is not None:
                return t
        return None

    def _host_bytes(self, name, data, kinds):
        """data as (pointer, bytes, keep-alive): an array of the tensor's
        dtype (a bf16 tensor takes uint16 bits, or floats rounded to
        nearest even), or any bytes-like object."""
        info = self._info(name, kinds)
        if np is not None and info is not None and not isinstance(data, (bytes, bytearray, memoryview)):
            a = np.asarray(data)
            if info.dtype == "bf16" and a.dtype.kind == "f":
                a = f32_to_bf16(a)
            want = _NUMPY_DTYPES.get(info.dtype)
            if want is not None and a.dtype != np.dtype(want):
                if a.dtype.kind != np.dtype(want).kind:
                    _refuse("INVALID_ARGUMENT", "%s %s is %s; got an array of %s"
                            % (kinds[0], name, info.dtype, a.dtype))
                a = a.astype(want)
            a = np.ascontiguousarray(a)
            return a.ctypes.data, a.nbytes, a
        mv = memoryview(data).cast("B")
        buf = (ctypes.c_char * len(mv)).from_buffer_copy(mv)
        return ctypes.addressof(buf), len(mv), buf

    def set_input(self, name, data):
        """Copies `data` (an array, or bytes) into input `name`."""
        p, n, keep = self._host_bytes(name, data, ("inputs",))
        _call(lib.kgrt_model_set_input, self._handle(), _c(name), c_void_p(p), c_size_t(n))
        self._advance = False
        del keep

    def set_weight(self, name, data):
        p, n, keep = self._host_bytes(name, data, ("weights",))
        _call(lib.kgrt_model_set_weight, self._handle(), _c(name), c_void_p(p), c_size_t(n))
        del keep

    def bind_weights(self, weights, refuse_unused=False):
        """Binds every weight from `weights` (a kgrt.Weights) by name."""
        _call(lib.kgrt_model_bind_weights, self._handle(), weights._handle(),
              _ffi.BIND_REFUSE_UNUSED if refuse_unused else 0)

    # ---- runs
    def run(self, sync=True):
        """Runs the plan. With `sync`, first waits for the CUDA streams of
        the bound tensors' producers, and after, for the run (so bound
        outputs are ready); sync=False leaves both to the caller."""
        if sync:
            for s in self._streams:
                sync_stream(s)
        _call(lib.kgrt_model_run, self._handle())
        self._advance = False
        if sync and self._bound:
            self.wait()

    def wait(self):
        """Waits for every run queued on the model."""
        _call(lib.kgrt_model_wait, self._handle())

    def output_bytes(self, name):
        n = self.tensor_bytes(name)
        buf = (ctypes.c_char * n)()
        _call(lib.kgrt_model_get_output, self._handle(), _c(name), buf, c_size_t(n))
        return bytes(buf)

    def output(self, name):
        """Output `name` as a new NumPy array of its dtype (bf16: uint16
        bits; bf16_to_f32 widens them) and its shape at the dims set now."""
        if np is None:
            return self.output_bytes(name)
        n = self.tensor_bytes(name)  # NOT_FOUND, FAILED_PRECONDITION first
        info = self._info(name, ("outputs",))
        if info is None:
            _refuse("NOT_FOUND", "model %s has no output %s" % (self.table.name, name))
        a = np.empty(info.shape(self._dims), dtype=_NUMPY_DTYPES[info.dtype])
        if a.nbytes != n:
            _refuse("INTERNAL", "output %s: shape %s is %d bytes, kgrt says %d"
                    % (name, a.shape, a.nbytes, n))
        _call(lib.kgrt_model_get_output, self._handle(), _c(name), c_void_p(a.ctypes.data),
              c_size_t(n))
        return a

    def reset_state(self):
        _call(lib.kgrt_model_reset_state, self._handle())

    def set_replay(self, on):
        _call(lib.kgrt_model_set_replay, self._handle(), 1 if on else 0)

    @property
    def replay(self):
        return lib.kgrt_model_replay(self._handle()) != 0

    # ---- the device loop
    def link(self, output, input):
        _call(lib.kgrt_model_link, self._handle(), _c(output), _c(input))
        self._advance = False

    def step_dim(self, sym, delta):
        _call(lib.kgrt_model_step_dim, self._handle(), _c(sym, "dim"), c_int64(delta))
        self._steps[sym] = int(delta)
        self._advance = False

    def clear_links(self):
        lib.kgrt_model_clear_links(self._handle())
        self._steps.clear()
        self._advance = False

    def run_steps(self, steps, collect=None):
        """Runs `steps` steps with the links and dim steps applied on the
        device between them; with `collect`, that output of every step, a
        NumPy array [steps, ...] (bytes without NumPy)."""
        h = self._handle()
        out = None
        if collect is None:
            _call(lib.kgrt_model_run_steps, h, c_uint32(steps), None, None, c_size_t(0))
        else:
            info = self._info(collect, ("outputs",))
            per = self.tensor_bytes(collect)
            if np is not None and info is not None:
                out = np.empty((steps,) + info.shape(self._dims), dtype=_NUMPY_DTYPES[info.dtype])
                p, n = out.ctypes.data, out.nbytes
            else:
                out = (ctypes.c_char * (per * steps))()
                p, n = ctypes.addressof(out), per * steps
            _call(lib.kgrt_model_run_steps, h, c_uint32(steps), _c(collect), c_void_p(p),
                  c_size_t(n))
            if np is None:
                out = bytes(out)
        moves = steps - 1 + (1 if self._advance else 0)
        for sym, delta in self._steps.items():
            self._dims[sym] = self._dims.get(sym, 0) + delta * moves
        self._advance = True
        return out

    # ---- timing
    def profile(self, reps=1):
        """Every plan step timed: a list of dicts (step, kernel, launched,
        workgroups, us, bytes)."""
        h = self._handle()
        count = c_uint32()
        err = _ffi.kgrt_error_t()
        st = lib.kgrt_model_profile(h, c_uint32(reps), None, 0, byref(count), byref(err))
        if st != 0 and not (status_name(st) == "OUT_OF_RANGE" and count.value > 0):
            raise Error(st, err.message.decode("utf-8", "replace"))
        if st == 0:
            return []
        arr = (_ffi.kgrt_step_profile_t * count.value)()
        _call(lib.kgrt_model_profile, h, c_uint32(reps), arr, count, byref(count))
        return [{"step": p.step, "kernel": (p.kernel or b"").decode(), "launched": bool(p.launched),
                 "workgroups": p.workgroups, "us": p.us, "bytes": p.bytes}
                for p in arr[:count.value]]

    def time(self, warmup=3, reps=10):
        """The median device time of one run in microseconds."""
        us = c_double()
        _call(lib.kgrt_model_time, self._handle(), c_uint32(warmup), c_uint32(reps), byref(us))
        return us.value

    # ---- the caller's device memory
    def bind(self, name, tensor):
        """Input or output `name` lives in `tensor`'s memory from the next
        run on, with no copy: a PyTorch (or CuPy, JAX) tensor on the GPU of
        a cuda or hip device, through __cuda_array_interface__ or DLPack;
        host memory (a NumPy array) on the sim. Its dtype, shape (at the
        dims set now) and device must be the tensor's; it must be
        C-contiguous, aligned to 256 bytes, and writable for an output. The
        model keeps a reference to it until unbind or unload."""
        h = self._handle()
        info = self._info(name, ("inputs", "outputs"))
        if info is None:
            # kgrt names what `name` is (a weight; no such tensor) before it
            # looks at the pointer, so its own refusal is raised here
            _call(lib.kgrt_model_bind_device, h, _c(name), c_void_p(1), c_size_t(0))
            _refuse("NOT_FOUND", "model %s has no input or output %s" % (self.table.name, name))
        try:
            mem = memory_of(tensor)
        except ValueError as e:
            _refuse("INVALID_ARGUMENT", "%s: %s" % (name, e))
        want = {"sim": "cpu", "cuda": "cuda", "hip": "rocm"}.get(self.device.kind)
        ok = mem.device == want or (self.device.kind == "hip" and mem.device == "cuda")
        if not ok:
            _refuse("INVALID_ARGUMENT", "%s: a tensor in %s memory cannot be bound on %s"
                    % (name, mem.device, self.device.name))
        ordinal = self.device.name.split(" ")[0].split(":")[1] if ":" in self.device.name and want != "cpu" else None
        if ordinal is not None and mem.device_id is not None and str(mem.device_id) != ordinal:
            _refuse("INVALID_ARGUMENT", "%s: the tensor is on device %d, the model on %s"
                    % (name, mem.device_id, self.device.name))
        if mem.dtype != info.dtype:
            _refuse("INVALID_ARGUMENT", "%s is %s; the tensor is %s"
                    % (name, info.dtype, mem.dtype or "of another dtype"))
        shape = info.shape(self._dims)
        if mem.shape != shape:
            _refuse("INVALID_ARGUMENT", "%s is %s at the dims set now; the tensor is %s"
                    % (name, list(shape), list(mem.shape)))
        if mem.readonly and name in self.table.outputs:
            _refuse("INVALID_ARGUMENT", "output %s: the tensor is read-only" % name)
        _call(lib.kgrt_model_bind_device, h, _c(name), c_void_p(mem.ptr), c_size_t(mem.nbytes))
        self._bound[name] = mem
        self._streams = {m.stream for m in self._bound.values() if m.stream is not None}
        self._advance = False

    def unbind(self, name):
        """Puts `name` back in the model's own buffer (an input is then
        unbound) and drops the reference to the tensor."""
        _call(lib.kgrt_model_unbind_device, self._handle(), _c(name))
        self._bound.pop(name, None)
        self._streams = {m.stream for m in self._bound.values() if m.stream is not None}

    def __repr__(self):
        return "Model(%r on %s)" % (self.table.name, self.device.name)


class Weights:
    """An open GGUF or safetensors file (or a model.safetensors.index.json),
    mapped and checked by kgrt."""

    def __init__(self, path):
        self._raw = c_void_p()
        _call(lib.kgrt_weights_open, _c(str(path), "path"), None, byref(self._raw))
        self.path = str(path)

    def _handle(self):
        if not self._raw:
            _refuse("FAILED_PRECONDITION", "weights %s are closed" % self.path)
        return self._raw

    def close(self):
        if getattr(self, "_raw", None):
            lib.kgrt_weights_close(self._raw)
            self._raw = c_void_p()

    __del__ = close

    def __len__(self):
        return lib.kgrt_weights_count(self._handle())

    def _info(self, p):
        if not p:
            return None
        i = p.contents
        return {"name": i.name.decode(), "alias": i.alias.decode() if i.alias else None,
                "dtype": _ffi.DTYPE_NAMES[i.dtype] if i.dtype < len(_ffi.DTYPE_NAMES) else i.dtype,
                "shape": tuple(i.shape[:i.ndim]), "numel": i.numel, "bytes": i.bytes}

    def __iter__(self):
        for k in range(len(self)):
            yield self._info(lib.kgrt_weights_at(self._handle(), k))

    def find(self, name):
        """A tensor's name, alias, dtype, shape, numel and bytes; None when absent."""
        return self._info(lib.kgrt_weights_find(self._handle(), _c(name)))

    def meta_string(self, key):
        p, n = c_void_p(), c_size_t()
        _call(lib.kgrt_weights_meta_string, self._handle(), _c(key, "key"), byref(p), byref(n))
        return ctypes.string_at(p, n.value).decode("utf-8", "replace")

    def meta_int(self, key):
        v = c_int64()
        _call(lib.kgrt_weights_meta_int, self._handle(), _c(key, "key"), byref(v))
        return v.value

    def meta_float(self, key):
        v = c_double()
        _call(lib.kgrt_weights_meta_float, self._handle(), _c(key, "key"), byref(v))
        return v.value

    def vocab_size(self):
        v = c_int64()
        _call(lib.kgrt_weights_vocab_size, self._handle(), byref(v))
        return v.value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def f32_to_bf16(a):
    """float arrays to bf16 bits (uint16), rounded to nearest even."""
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = np.isnan(np.ascontiguousarray(a, dtype=np.float32))
    return np.where(nan, np.uint32(0x7FC0), rounded).astype(np.uint16)


def bf16_to_f32(bits):
    """bf16 bits (uint16) to float32."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
