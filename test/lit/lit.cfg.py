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

config.substitutions.append(("%kgen", config.kgen))
config.substitutions.append(("%readelf", config.readelf))
config.substitutions.append(("%examples", os.path.join(config.source_root, "examples")))
# FileCheck and not come from the LLVM that provided FileCheck.
llvm_bin = os.path.dirname(os.path.realpath(config.filecheck))
config.environment["PATH"] = llvm_bin + os.pathsep + os.environ.get("PATH", "")
config.environment["LC_ALL"] = "C"
