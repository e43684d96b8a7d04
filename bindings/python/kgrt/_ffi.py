"""kgrt._ffi - libkgrt.so through ctypes: the library, the structs of the
public headers that Python reads (kgrt.h, kgrt_table.h, kgrt_weights.h) and
the prototypes of the functions it calls.

The library: $KGRT_LIBRARY (its path), else libkgrt.so in $KGRT_LIB_DIR,
else the one ctypes.util.find_library('kgrt') finds (an installed kgen).
The struct layouts are checked against the C compiler's view by
tests/test_kgrt.py (DriftTest), as kgrt-sys's are in Rust.
"""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int16,
                    c_int32, c_int64, c_size_t, c_uint32, c_uint64, c_void_p)


def _find_library():
    path = os.environ.get("KGRT_LIBRARY")
    if path:
        return path
    d = os.environ.get("KGRT_LIB_DIR")
    if d:
        return os.path.join(d, "libkgrt.so")
    found = ctypes.util.find_library("kgrt")
    if found:
        return found
    raise ImportError(
        "kgrt: libkgrt.so not found: set KGRT_LIBRARY to its path or KGRT_LIB_DIR to its "
        "folder (cmake --build <build> --target kgrt_shared writes <build>/libkgrt.so)")


LIBRARY = _find_library()
try:
    lib = ctypes.CDLL(LIBRARY)
except OSError as e:
    raise ImportError("kgrt: cannot load %s: %s" % (LIBRARY, e)) from e

ERROR_MESSAGE_MAX = 512
MAX_DIMS = 8
EXPR_SYMS = 4
WEIGHTS_MAX_DIMS = 8
TENSOR_STATE = 0x1
SYM_RANK = 0x1
SYM_COUNT = 0x2
BIND_REFUSE_UNUSED = 0x1

STATUS_NAMES = ["OK", "INVALID_ARGUMENT", "UNAVAILABLE", "NOT_FOUND", "NO_MATCHING_ARCH",
                "INVALID_CODE_OBJECT", "MISSING_KERNEL", "ABI_MISMATCH", "OUT_OF_MEMORY",
                "OUT_OF_RANGE", "FAILED_PRECONDITION", "DEVICE_ERROR", "INTERNAL"]
DTYPE_NAMES = ["f32", "f16", "bf16", "i32", "q8_0", "q4_0", "q4_k", "q6_k"]


class kgrt_error_t(Structure):
    _fields_ = [("status", c_uint32), ("message", c_char * ERROR_MESSAGE_MAX)]


class kgrt_memory_t(Structure):
    _fields_ = [(n, c_uint64) for n in ("total", "arena", "inputs", "weights", "outputs", "state")]


class kgrt_step_profile_t(Structure):
    _fields_ = [("step", c_uint32), ("kernel", c_char_p), ("launched", c_int),
                ("workgroups", c_uint32), ("us", c_double), ("bytes", c_uint64)]


class kgrt_sym_t(Structure):
    _fields_ = [("name", c_char_p), ("max", c_int64), ("flags", c_uint32)]


class kgrt_dim_t(Structure):
    _fields_ = [("value", c_int64), ("sym", c_int32)]


class kgrt_tensor_info_t(Structure):
    _fields_ = [("name", c_char_p), ("dtype", c_uint32), ("rank", c_uint32),
                ("dims", kgrt_dim_t * MAX_DIMS), ("flags", c_uint32), ("split", c_uint32),
                ("parts", c_uint32)]


class kgrt_expr_t(Structure):
    _fields_ = [("scale", c_int64), ("sym", c_int16 * EXPR_SYMS)]


class kgrt_arch_table_t(Structure):
    # the leading fields Python reads; the rest is kgrt's
    _fields_ = [("arch", c_char_p), ("triple", c_char_p), ("wave_size", c_uint32)]


class kgrt_model_table_t(Structure):
    _fields_ = [("abi", c_uint32), ("name", c_char_p), ("kgen_version", c_char_p),
                ("num_syms", c_uint32), ("syms", POINTER(kgrt_sym_t)),
                ("num_inputs", c_uint32), ("inputs", POINTER(kgrt_tensor_info_t)),
                ("num_weights", c_uint32), ("weights", POINTER(kgrt_tensor_info_t)),
                ("num_outputs", c_uint32), ("outputs", POINTER(kgrt_tensor_info_t)),
                ("num_arches", c_uint32), ("arches", POINTER(POINTER(kgrt_arch_table_t))),
                ("ranks", c_uint32)]


class kgrt_weight_info_t(Structure):
    _fields_ = [("name", c_char_p), ("alias", c_char_p), ("dtype", c_uint32),
                ("ndim", c_uint32), ("shape", c_int64 * WEIGHTS_MAX_DIMS),
                ("file_dims", c_int64 * WEIGHTS_MAX_DIMS), ("numel", c_uint64),
                ("bytes", c_size_t), ("data", c_void_p), ("offset", c_uint64),
                ("file", c_uint32)]


class kgrt_meta_array_t(Structure):
    _fields_ = [("type", c_uint32), ("count", c_uint64), ("data", c_void_p),
                ("next", c_void_p), ("index", c_uint64)]


# the structs whose whole layout Python declares (the drift test checks them)
STRUCTS = [kgrt_error_t, kgrt_memory_t, kgrt_step_profile_t, kgrt_sym_t, kgrt_dim_t,
           kgrt_tensor_info_t, kgrt_expr_t, kgrt_model_table_t, kgrt_weight_info_t,
           kgrt_meta_array_t]

ERR = POINTER(kgrt_error_t)
P = c_void_p  # opaque handles: kgrt_device_t *, kgrt_model_t *, kgrt_weights_t *
PP = POINTER(c_void_p)

_PROTOTYPES = {
    "kgrt_status_name": (c_char_p, [c_uint32]),
    "kgrt_device_open": (c_uint32, [c_char_p, c_void_p, PP, ERR]),
    "kgrt_device_close": (None, [P]),
    "kgrt_device_name": (c_char_p, [P]),
    "kgrt_model_load": (c_uint32, [P, POINTER(kgrt_model_table_t), PP, ERR]),
    "kgrt_model_unload": (None, [P]),
    "kgrt_model_arch": (c_char_p, [P]),
    "kgrt_model_memory": (c_uint32, [P, POINTER(kgrt_model_table_t), POINTER(kgrt_memory_t), ERR]),
    "kgrt_model_held_memory": (None, [P, POINTER(kgrt_memory_t)]),
    "kgrt_model_reset_state": (c_uint32, [P, ERR]),
    "kgrt_model_set_dim": (c_uint32, [P, c_char_p, c_int64, ERR]),
    "kgrt_model_tensor_bytes": (c_uint32, [P, c_char_p, POINTER(c_size_t), ERR]),
    "kgrt_model_set_weight": (c_uint32, [P, c_char_p, c_void_p, c_size_t, ERR]),
    "kgrt_model_set_input": (c_uint32, [P, c_char_p, c_void_p, c_size_t, ERR]),
    "kgrt_model_run": (c_uint32, [P, ERR]),
    "kgrt_model_set_replay": (c_uint32, [P, c_int, ERR]),
    "kgrt_model_replay": (c_int, [P]),
    "kgrt_model_link": (c_uint32, [P, c_char_p, c_char_p, ERR]),
    "kgrt_model_step_dim": (c_uint32, [P, c_char_p, c_int64, ERR]),
    "kgrt_model_clear_links": (None, [P]),
    "kgrt_model_run_steps": (c_uint32, [P, c_uint32, c_char_p, c_void_p, c_size_t, ERR]),
    "kgrt_model_profile": (c_uint32, [P, c_uint32, POINTER(kgrt_step_profile_t), c_uint32,
                                      POINTER(c_uint32), ERR]),
    "kgrt_model_time": (c_uint32, [P, c_uint32, c_uint32, POINTER(c_double), ERR]),
    "kgrt_model_get_output": (c_uint32, [P, c_char_p, c_void_p, c_size_t, ERR]),
    "kgrt_model_bind_device": (c_uint32, [P, c_char_p, c_void_p, c_size_t, ERR]),
    "kgrt_model_unbind_device": (c_uint32, [P, c_char_p, ERR]),
    "kgrt_model_wait": (c_uint32, [P, ERR]),
    "kgrt_weights_open": (c_uint32, [c_char_p, c_void_p, PP, ERR]),
    "kgrt_weights_close": (None, [P]),
    "kgrt_weights_count": (c_uint32, [P]),
    "kgrt_weights_at": (POINTER(kgrt_weight_info_t), [P, c_uint32]),
    "kgrt_weights_find": (POINTER(kgrt_weight_info_t), [P, c_char_p]),
    "kgrt_weights_meta_string": (c_uint32, [P, c_char_p, POINTER(c_void_p), POINTER(c_size_t), ERR]),
    "kgrt_weights_meta_int": (c_uint32, [P, c_char_p, POINTER(c_int64), ERR]),
    "kgrt_weights_meta_float": (c_uint32, [P, c_char_p, POINTER(c_double), ERR]),
    "kgrt_weights_vocab_size": (c_uint32, [P, POINTER(c_int64), ERR]),
    "kgrt_model_bind_weights": (c_uint32, [P, P, c_uint32, ERR]),
}

for _name, (_ret, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _ret
    _f.argtypes = _args
