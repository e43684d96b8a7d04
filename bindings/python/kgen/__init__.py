"""kgen - the kgen compiler from Python: build(model, arches) runs kgen on a
model file and builds a loadable shared library of its kernel table.

    import kgen, kgrt
    built = kgen.build("sketch.lua", ["gfx1100", "sm_90"], defines={"cols": 4096})
    model = kgrt.Device("auto").load(built.table())

kgen is the `kgen` argument, else $KGEN, else `kgen` on PATH. The C compiler
is $CC (default cc). The library goes to out_dir (default
~/.cache/kgen/python/<model>-<key>); a build whose inputs (the model file,
the files beside it it may require, the arches, defines and options, the
kgen executable) are unchanged is reused, not rebuilt.
"""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess

__all__ = ["build", "Built", "BuildError"]


class BuildError(Exception):
    """kgen or the C compiler failed: the command and what it printed."""


class Built:
    """A built table: .name (the model's C identifier), .symbol (the table's C
    symbol), .library (the shared library), .dir (kgen's output)."""

    def __init__(self, name, symbol, library, directory):
        self.name, self.symbol, self.library, self.dir = name, symbol, library, directory
        self._lib = None

    def table(self):
        """The table as a kgrt.Table (the library is loaded once and kept
        alive with the table)."""
        import kgrt
        if self._lib is None:
            self._lib = ctypes.CDLL(self.library)
        address = ctypes.addressof(ctypes.c_char.in_dll(self._lib, self.symbol))
        return kgrt.Table(address, owner=self._lib)

    def __repr__(self):
        return "Built(%r, %r)" % (self.name, self.library)


def _c_identifier(stem):
    s = re.sub(r"[^A-Za-z0-9_]", "_", stem)
    return "_" + s if s[:1].isdigit() else s


def _find_kgen(kgen):
    k = kgen or os.environ.get("KGEN") or shutil.which("kgen")
    if not k or not os.path.isfile(k):
        raise BuildError("no kgen: pass kgen=PATH, set KGEN, or put kgen on PATH (got %r)" % k)
    return os.path.abspath(k)


def _run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise BuildError("%s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode,
                                                      p.stderr.decode("utf-8", "replace").rstrip()))
    return p.stdout.decode("utf-8", "replace")


def _key(model, kgen, args, cc):
    """A hash of everything the build reads."""
    h = hashlib.sha256()
    folder = os.path.dirname(model)
    for f in sorted(os.listdir(folder)):
        path = os.path.join(folder, f)
        if f.endswith(".lua") and os.path.isfile(path):
            h.update(f.encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    st = os.stat(kgen)
    h.update(("%s\0%d\0%d\0%s\0%s\0%s" % (kgen, st.st_size, st.st_mtime_ns, model, "\0".join(args), cc)).encode())
    for a in args:  # a --define'd file: its contents too
        v = a.split("=", 1)[-1]
        if os.path.isfile(v):
            with open(v, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()[:16]


def build(model, arches, out_dir=None, kgen=None, defines=None, options=(), cc=None):
    """Runs kgen on `model` (a .lua file) for `arches` ("gfx1100", "sm_90")
    and compiles the generated C into a shared library; returns a Built.

    defines: {name: value} passed as --define name=value; options: more
    kgen arguments ("--no-sim"). Raises BuildError with kgen's or the
    compiler's message on failure."""
    if isinstance(arches, str):
        arches = [arches]
    if not arches:
        raise BuildError("%s: no arch given" % model)
    model = os.path.abspath(model)
    if not os.path.isfile(model):
        raise BuildError("%s: no such model file" % model)
    name = _c_identifier(os.path.splitext(os.path.basename(model))[0])
    kgen = _find_kgen(kgen)
    cc = cc or os.environ.get("CC") or "cc"
    args = ["--arch", ",".join(arches)]
    for k, v in sorted((defines or {}).items()):
        args += ["--define", "%s=%s" % (k, v)]
    args += list(options)
    key = _key(model, kgen, args, cc)
    if out_dir is None:
        cache = os.environ.get("KGEN_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "kgen")
        out_dir = os.path.join(cache, "python", "%s-%s" % (name, key))
    library = os.path.join(out_dir, "lib%s.so" % name)
    stamp = os.path.join(out_dir, "build.key")
    gen = os.path.join(out_dir, "gen")
    if os.path.isfile(library) and os.path.isfile(stamp):
        with open(stamp) as f:
            if f.read() == key:
                return Built(name, _symbol(gen, name), library, gen)
    if os.path.isdir(gen):
        shutil.rmtree(gen)
    os.makedirs(gen)
    listing = _run([kgen] + args + [model, "-o", gen])
    with open(os.path.join(gen, name + ".kernels.txt"), "w") as f:
        f.write(listing)
    symbol = _symbol(gen, name)
    sources = [os.path.join(gen, name + ".c")] + [os.path.join(gen, "%s_%s.c" % (name, a)) for a in arches]
    tmp = library + ".tmp"
    _run([cc, "-std=c11", "-O1", "-fPIC", "-shared", "-I", gen, "-o", tmp] + sources)
    os.replace(tmp, library)
    with open(stamp, "w") as f:
        f.write(key)
    return Built(name, symbol, library, gen)


def _symbol(gen, name):
    header = os.path.join(gen, name + ".h")
    with open(header) as f:
        for line in f:
            m = re.match(r"extern const kgrt_model_table_t (\w+);", line)
            if m:
                return m.group(1)
    raise BuildError("%s declares no kgrt_model_table_t" % header)
