#!/usr/bin/env python3
"""gen_names.py - C decides from what templates declare; it never names one.
Fails when a string literal in gen/*.c is the name of a template file
(templates/*.hip) or of an op or op file (lua/ops/*.lua), or a path to one.
Lua's own library functions (table.sort and table.concat, which the sandbox
wraps) are not op names; templates/common.hip and templates/prelude_<platform>.hip are the
kernel language every output starts with, not templates."""
import glob, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
names = set()
for p in glob.glob(os.path.join(root, "templates", "*.hip")):
    stem = os.path.basename(p)[:-4]
    if stem != "common" and not stem.startswith("prelude_"):
        names.add(stem)
for p in glob.glob(os.path.join(root, "lua", "ops", "*.lua")):
    names.add(os.path.basename(p)[:-4])
    src = open(p).read()
    for m in re.finditer(r'kg\.op\s*\{\s*name\s*=\s*"([A-Za-z0-9_]+)"', src):
        names.add(m.group(1))
if len(names) < 20:
    sys.exit("gen_names: found only %d names under %s" % (len(names), root))

literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
lua_library = {"sort", "concat"}
bad = 0
for p in sorted(glob.glob(os.path.join(root, "gen", "*.c"))):
    for i, line in enumerate(open(p), 1):
        code = line.split("//")[0]
        for m in literal.finditer(code):
            v = m.group(1)
            path = re.fullmatch(r"(?:templates/)?([A-Za-z0-9_]+)\.(?:hip|lua)", v)
            w = path.group(1) if path else v
            if w in names and w not in lua_library:
                print("%s:%d: names template or op %r: %s" % (os.path.relpath(p, root), i, w, line.strip()))
                bad += 1
print("gen_names: %d names checked, %d uses in gen/*.c" % (len(names), bad))
sys.exit(1 if bad else 0)
