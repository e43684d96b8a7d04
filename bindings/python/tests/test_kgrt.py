"""The kgrt package on the sim: the ctypes structs against the C compiler's
view (drift), libkgrt.so's exports against the headers, the device spec
auto, kgen.build and a sketch table against the float64 reference, the
caller's memory bound in place (DLPack and the array interface), and
errors as kgrt.Error with kgrt's status and message.

Needs KGRT_LIB_DIR (or KGRT_LIBRARY) and KGEN (ctest sets them); NumPy.
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import kgen  # noqa: E402
import kgrt  # noqa: E402
from kgrt import _ffi  # noqa: E402
import sketch  # noqa: E402

RUNTIME = os.path.normpath(os.path.join(HERE, "..", "..", "..", "runtime"))
HEADERS = ["kgrt_alloc.h", "kgrt_table.h", "kgrt.h", "kgrt_weights.h", "kgrt_paged.h"]


def aligned(shape, dtype, align=256):
    """A zeroed C-contiguous array whose data is aligned to `align` bytes."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(n + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n].view(dtype).reshape(shape)


class ArrayInterfaceOnly:
    """Exposes a NumPy array through __array_interface__ alone."""

    def __init__(self, a):
        self.a = a
        self.__array_interface__ = a.__array_interface__


class DriftTest(unittest.TestCase):
    def test_structs_match_the_c_compiler(self):
        lines, want = [], []
        for s in _ffi.STRUCTS:
            lines.append('printf("%s %%zu\\n", sizeof(%s));' % (s.__name__, s.__name__))
            want.append("%s %d" % (s.__name__, ctypes.sizeof(s)))
            for f, _ in s._fields_:
                lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (s.__name__, f, s.__name__, f))
                want.append("%s.%s %d" % (s.__name__, f, getattr(s, f).offset))
        for f, _ in _ffi.kgrt_arch_table_t._fields_:  # the leading fields Python reads
            lines.append('printf("kgrt_arch_table_t.%s %%zu\\n", offsetof(kgrt_arch_table_t, %s));' % (f, f))
            want.append("kgrt_arch_table_t.%s %d" % (f, getattr(_ffi.kgrt_arch_table_t, f).offset))
        src = "#include <stddef.h>\n#include <stdio.h>\n#include \"kgrt_weights.h\"\nint main(void) {\n%s\nreturn 0;\n}\n" % "\n".join(lines)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "drift.c"), "w") as f:
                f.write(src)
            exe = os.path.join(d, "drift")
            subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-I", RUNTIME, "-o", exe,
                            os.path.join(d, "drift.c")], check=True)
            got = subprocess.run([exe], check=True, stdout=subprocess.PIPE).stdout.decode().split("\n")[:-1]
        self.assertEqual(got, want)
        self.assertGreater(len(want), 60)

    def test_the_library_exports_every_public_function(self):
        names = set()
        for h in HEADERS:
            with open(os.path.join(RUNTIME, h)) as f:
                for line in f:
                    m = re.match(r"^[A-Za-z_][^#(]*[ *](kgrt_[a-z0-9_]+)\(", line)
                    if m:
                        names.add(m.group(1))
        self.assertGreater(len(names), 50)
        missing = [n for n in sorted(names) if not hasattr(_ffi.lib, n)]
        self.assertEqual(missing, [])
        # internal symbols stay hidden
        self.assertFalse(hasattr(_ffi.lib, "kgrt_error_set"))
        self.assertFalse(hasattr(_ffi.lib, "kgrt_model_set_buffer"))


class DeviceTest(unittest.TestCase):
    def test_auto_opens_the_sim_without_a_gpu(self):
        gpu = []
        for spec in ("cuda", "hip"):
            try:
                gpu.append(kgrt.Device(spec).name)
            except kgrt.Error as e:
                self.assertEqual(e.status, "UNAVAILABLE")
        d = kgrt.Device("auto")
        if gpu:
            self.assertEqual(d.name, gpu[0])
        else:
            self.assertEqual(d.name, "sim")
            self.assertEqual(d.kind, "sim")

    def test_bad_specs_raise_kgrt_errors(self):
        with self.assertRaises(kgrt.Error) as c:
            kgrt.Device("tpu:0")
        self.assertEqual(c.exception.status, "INVALID_ARGUMENT")
        self.assertEqual(c.exception.code, 1)
        self.assertIn("unknown device", c.exception.message)
        self.assertTrue(str(c.exception).startswith("INVALID_ARGUMENT: device spec 'tpu:0'"))
        with self.assertRaises(kgrt.Error) as c:
            kgrt.Device("auto,workers=2")
        self.assertIn("only graphs=0|1", c.exception.message)
        with self.assertRaises(kgrt.Error) as c:
            kgrt.Device("sim\0")
        self.assertEqual(c.exception.status, "INVALID_ARGUMENT")


class SketchTest(unittest.TestCase):
    """CountSketch and SRHT (examples/sketch.lua) against the float64 reference."""
    ROWS, COLS, WIDTH, OUT, SEED = 8, 1000, 96, 200, 11

    @classmethod
    def setUpClass(cls):
        cls.built = kgen.build(sketch.MODEL, ["gfx1100"], defines={
            "rows": cls.ROWS, "cols": cls.COLS, "width": cls.WIDTH, "out": cls.OUT, "seed": cls.SEED})
        cls.table = cls.built.table()
        cls.dev = kgrt.Device("sim:gfx1100")
        rng = np.random.default_rng(3)
        cls.x = rng.standard_normal((cls.ROWS, cls.COLS)).astype(np.float32)
        cls.cs = sketch.countsketch_ref(cls.x, cls.WIDTH, cls.SEED)
        cls.sr = sketch.srht_ref(cls.x, cls.OUT, cls.SEED)

    def test_build_is_reused(self):
        again = kgen.build(sketch.MODEL, ["gfx1100"], defines={
            "rows": self.ROWS, "cols": self.COLS, "width": self.WIDTH, "out": self.OUT, "seed": self.SEED})
        self.assertEqual(again.library, self.built.library)
        self.assertEqual(self.table.name, "sketch")
        self.assertEqual(self.table.arches, ["gfx1100"])
        self.assertEqual(self.table.syms, {"B": self.ROWS})
        self.assertEqual(self.table.inputs["x"].dims, ("B", self.COLS))
        with self.assertRaises(kgen.BuildError) as c:
            kgen.build(sketch.MODEL, ["gfx1100"], defines={"out": 2000, "cols": 1000})
        self.assertIn("srht: attribute out must be at most 1024", str(c.exception))

    def test_numpy_in_and_out_match_the_reference(self):
        m = self.dev.load(self.table)
        for rows in (self.ROWS, 3):
            m.set_dim("B", rows)
            m.set_input("x", self.x[:rows])
            m.run()
            cs, sr = m.output("cs"), m.output("srht")
            self.assertEqual(cs.shape, (rows, self.WIDTH))
            self.assertEqual(sr.dtype, np.float32)
            self.assertLess(sketch.rel_err(cs, self.cs[:rows]), 1e-5)
            self.assertLess(sketch.rel_err(sr, self.sr[:rows]), 1e-5)
        self.assertGreater(m.time(0, 2), 0)
        prof = m.profile(1)
        self.assertEqual(len(prof), 2)
        self.assertTrue(all(p["launched"] and p["workgroups"] == 3 for p in prof), prof)
        m.unload()

    def test_callers_memory_is_read_and_written_in_place(self):
        m = self.dev.load(self.table)
        m.set_dim("B", self.ROWS)
        x = aligned((self.ROWS, self.COLS), np.float32)
        cs = aligned((self.ROWS, self.WIDTH), np.float32)
        sr = aligned((self.ROWS, self.OUT), np.float32)
        cs[:] = np.nan
        m.bind("x", x)                            # DLPack (NumPy's __dlpack__)
        m.bind("cs", cs)
        m.bind("srht", ArrayInterfaceOnly(sr))    # the array interface
        self.assertEqual(m._bound["x"].ptr, x.ctypes.data)
        self.assertEqual(m._bound["srht"].ptr, sr.ctypes.data)
        x[:] = self.x                             # read at the run, not at bind
        m.run()
        self.assertLess(sketch.rel_err(cs, self.cs), 1e-5)
        self.assertLess(sketch.rel_err(sr, self.sr), 1e-5)
        # the refusals
        for name, t, status, part in [
                ("cs", aligned((self.ROWS, self.WIDTH + 1), np.float32)[:, 1:], "INVALID_ARGUMENT", "not C-contiguous"),
                ("cs", aligned((self.ROWS, self.WIDTH), np.float64), "INVALID_ARGUMENT", "cs is f32"),
                ("cs", aligned((self.ROWS - 1, self.WIDTH), np.float32), "INVALID_ARGUMENT", "at the dims set now"),
                ("x", aligned((self.ROWS * self.COLS + 4,), np.float32)[4:].reshape(self.ROWS, self.COLS),
                 "INVALID_ARGUMENT", "not aligned to 256 bytes"),
                ("nope", cs, "NOT_FOUND", "has no input or output nope"),
                ("x", [1.0, 2.0], "INVALID_ARGUMENT", "has no __cuda_array_interface__")]:
            with self.assertRaises(kgrt.Error) as c:
                m.bind(name, t)
            self.assertEqual(c.exception.status, status, c.exception)
            self.assertIn(part, c.exception.message)
        ro = aligned((self.ROWS, self.WIDTH), np.float32)
        ro.flags.writeable = False
        with self.assertRaises(kgrt.Error) as c:
            m.bind("cs", ArrayInterfaceOnly(ro))
        self.assertIn("read-only", c.exception.message)
        # bound at B = 8: another B needs the binding again
        m.set_dim("B", 2)
        with self.assertRaises(kgrt.Error) as c:
            m.run()
        self.assertEqual(c.exception.status, "FAILED_PRECONDITION")
        self.assertIn("bind it again", c.exception.message)
        m.unbind("x")
        m.unbind("cs")
        m.unbind("srht")
        m.set_input("x", self.x[:2])
        m.run()
        self.assertLess(sketch.rel_err(m.output("cs"), self.cs[:2]), 1e-5)
        m.unload()

    def test_errors_carry_status_and_message(self):
        m = self.dev.load(self.table)
        cases = [
            (lambda: m.set_dim("B", 0), "OUT_OF_RANGE", "dim B = 0 is out of range 1..8"),
            (lambda: m.set_dim("Q", 1), "NOT_FOUND", "has no dim Q"),
            (lambda: m.run(), "FAILED_PRECONDITION", "dim B is not set"),
            (lambda: m.output("cs"), "FAILED_PRECONDITION", "dim B is not set"),
            (lambda: m.tensor_bytes("nope"), "NOT_FOUND", "has no tensor nope"),
            (lambda: m.set_input("x", b"1234"), "FAILED_PRECONDITION", "dim B is not set"),
        ]
        for fn, status, part in cases:
            with self.assertRaises(kgrt.Error) as c:
                fn()
            self.assertEqual(c.exception.status, status, c.exception)
            self.assertIn(part, c.exception.message)
        m.set_dim("B", 2)
        with self.assertRaises(kgrt.Error) as c:
            m.set_input("x", self.x[:3])
        self.assertEqual(c.exception.status, "OUT_OF_RANGE")
        self.assertIn("input x is 8000 bytes with the dims set now, got 12000", c.exception.message)
        with self.assertRaises(kgrt.Error) as c:
            m.set_input("x", self.x[:2].astype(np.int32))
        self.assertIn("x is f32; got an array of int32", c.exception.message)
        with self.assertRaises(kgrt.Error) as c:
            m.output("cs")
        self.assertEqual(c.exception.status, "FAILED_PRECONDITION")
        with self.assertRaises(kgrt.Error) as c:
            self.dev.close()
        self.assertIn("models loaded", c.exception.message)
        other = kgrt.Device("sim:gfx942")
        with self.assertRaises(kgrt.Error) as c:
            other.load(self.table)
        self.assertEqual(c.exception.status, "NO_MATCHING_ARCH")
        self.assertIn("built for gfx1100; device is gfx942", c.exception.message)
        with self.assertRaises(kgrt.Error) as c:
            kgrt.Weights("/nonexistent.gguf")
        self.assertEqual(c.exception.status, "NOT_FOUND")
        m.unload()
        with self.assertRaises(kgrt.Error) as c:
            m.run()
        self.assertIn("unloaded", c.exception.message)


if __name__ == "__main__":
    unittest.main()
