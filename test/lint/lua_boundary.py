#!/usr/bin/env python3
"""lua_boundary.py - Lua stays in the front end. Only the files that run Lua
(the sandbox, the front end that reads the model's graph, --define and
json_file, the targets, the params rules), the driver (main.c, which
makes the sandbox) and --list-limits (caps.c, which quotes the sandbox's
limits) may reach lua.h, lauxlib.h or lualib.h, directly or
through gen/'s own headers; fusion, planning, lowering, expansion, the IR's
text, the tables, the compilers and the cache run on plain C data."""
import glob, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
gen = os.path.join(root, "gen")
lua_side = re.compile(r"^(sandbox.*|front.*|defines|json|target|params|main|caps)\.[ch]$")
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
lua_headers = {"lua.h", "lauxlib.h", "lualib.h"}

files = {os.path.basename(p): open(p).read() for p in glob.glob(os.path.join(gen, "*.[ch]"))}
if len(files) < 40:
    sys.exit("lua_boundary: found only %d files in %s" % (len(files), gen))


def reaches_lua(name, seen):
    """The include chain from `name` to a Lua header, or None."""
    if name in seen or name not in files:
        return None
    seen.add(name)
    for kind, inc in include.findall(files[name]):
        if inc in lua_headers:
            return [name, inc]
        if kind == '"':
            chain = reaches_lua(inc, seen)
            if chain:
                return [name] + chain
    return None


bad = 0
for name in sorted(files):
    if lua_side.match(name):
        continue
    chain = reaches_lua(name, set())
    if chain:
        print("gen/%s reaches Lua: %s" % (name, " -> ".join(chain)))
        bad += 1
print("lua_boundary: %d files checked, %d outside the front end reach Lua" % (len(files), bad))
sys.exit(1 if bad else 0)
