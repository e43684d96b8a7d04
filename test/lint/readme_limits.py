#!/usr/bin/env python3
"""readme_limits.py - README quotes kgen's limits as `kgen --list-limits`
prints them, and names them in its prose by the names that output gives.
Fails when README's block (the lines after "The limits, as `kgen
--list-limits` prints them", inside ``` fences) differs from the output, or
when a name README's prose quotes in backticks is not one of them.
usage: readme_limits.py KGEN README.md"""
import re, subprocess, sys

kgen, readme = sys.argv[1], sys.argv[2]
out = subprocess.run([kgen, "--list-limits"], capture_output=True, text=True, check=True).stdout
text = open(readme).read()
m = re.search(r"The limits, as `kgen --list-limits`[^\n]*\n(?:[^\n]*\n)*?\s*```\n(.*?)\n\s*```", text,
              re.S)
if not m:
    sys.exit("readme_limits: README has no block of kgen --list-limits output")
block = "\n".join(line.strip() for line in m.group(1).split("\n"))
want = "\n".join(line.strip() for line in out.rstrip("\n").split("\n"))
if block != want:
    import difflib
    sys.stdout.writelines(difflib.unified_diff((want + "\n").splitlines(True),
                                               (block + "\n").splitlines(True), "kgen --list-limits",
                                               "README.md"))
    sys.exit("readme_limits: README's block is not kgen --list-limits's output (diff above)")
names = {line.split()[0] for line in want.split("\n") if line and not line.startswith("#")}
if len(names) < 20:
    sys.exit("readme_limits: kgen --list-limits printed only %d limits" % len(names))
# the prose after the block names limits in backticks: each must exist
prose = text[m.end():m.end() + 6000]
quoted = set(re.findall(r"`([a-z]+(?:-[a-z]+)*)`", prose))
limitish = {q for q in quoted if q in names or q.endswith(("-seconds", "-memory", "-syms"))}
missing = sorted(q for q in limitish if q not in names)
if missing:
    sys.exit("readme_limits: README names limits kgen does not print: " + ", ".join(missing))
print("readme_limits: %d limits, README's block matches, %d named in its prose" %
      (len(names), len(limitish & names)))
