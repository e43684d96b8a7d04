# lit configuration for kgen: each test is a .lua model whose RUN lines call
# kgen and check its output with FileCheck.
import os
import lit.formats

config.name = "kgen"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".lua"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["inputs"]

site = lit_config.params.get("kgen_site_config")
if site:
    lit_config.load_config(config, site)
else:
    lit_config.fatal("pass --param kgen_site_config=<build>/test/lit/lit.site.cfg.py")
# ctest runs one lit per test, in parallel: each gets its own exec root, so
# their outputs and lit's .lit_test_times.txt (rewritten by every run) never
# race.
exec_sub = lit_config.params.get("kgen_exec_subdir")
if exec_sub:
    config.test_exec_root = os.path.join(config.test_exec_root, "run", exec_sub)

config.substitutions.append(("%kgen", config.kgen))
# kgen's cache of compiled artifacts: the build tree's, not the user's home
config.environment["KGEN_CACHE_DIR"] = os.path.join(os.path.dirname(config.kgen), "kgen-cache")
config.substitutions.append(("%readelf", config.readelf))
# %peak_rss MIB CMD: CMD's status, or 3 when it (and the compilers it ran)
# peaked above MIB MiB resident. Under ASan the shadow memory alone passes
# any such cap: there the check only guards against runaway growth.
_rss_cap = "" if "-fsanitize" not in config.c_flags else " --scale=16"
config.substitutions.append(("%peak_rss", "python3 " + os.path.join(
    config.source_root, "test", "lit", "hostile", "inputs", "peak_rss.py") + _rss_cap))
config.substitutions.append(("%examples", os.path.join(config.source_root, "examples")))
# FileCheck and not come from the LLVM that provided FileCheck.
llvm_bin = os.path.dirname(os.path.realpath(config.filecheck))
config.environment["PATH"] = llvm_bin + os.pathsep + os.environ.get("PATH", "")
config.environment["LC_ALL"] = "C"

# nvrtc: kgen can load libnvrtc, as it searches for it ($KGEN_NVRTC, else
# CUDA's /usr/local/cuda/lib64, then the loader's path), so the sm_* targets
# compile; their tests say "REQUIRES: nvrtc" and are UNSUPPORTED elsewhere.
# ptxas: CUDA's assembler, to check kgen's cubin figures against ptxas -v.
def _loads(names):
    import ctypes
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            pass
    return False

_nvrtc = os.environ.get("KGEN_NVRTC")
if _loads([_nvrtc] if _nvrtc else ["/usr/local/cuda/lib64/libnvrtc.so", "libnvrtc.so.13",
                                   "libnvrtc.so.12", "libnvrtc.so"]):
    config.available_features.add("nvrtc")
if "KGEN_NVRTC" in os.environ:
    config.environment["KGEN_NVRTC"] = os.environ["KGEN_NVRTC"]
import shutil
_ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
