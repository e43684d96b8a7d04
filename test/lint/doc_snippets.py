#!/usr/bin/env python3
"""doc_snippets.py - the code that README and docs/ show compiles and runs.

Every ```c block is compiled (-fsyntax-only, -Wall -Werror) as the body of a
function, its #include lines hoisted above it (a block with none takes
those of the last block before it that had some), against the real headers;
"..." stands for code left out. Names a block uses but does not declare
(the caller's buffers and sizes) come from an HTML comment just before its
fence, which a reader does not see:
    <!-- snippet: void *w; size_t bytes; -->
Every ```lua block is a model: kgen expands it for gfx1100 (--emit=hip, no
compile) and must succeed; a block with "-- RUN:" lines is a lit test and
runs as one. A block preceded by <!-- snippet: excerpt --> is a piece of a
larger file and is skipped (and counted). Fails on the first block that does
not build, naming its file and line.
usage: doc_snippets.py --kgen KGEN --cc CC --lit LIT --lit-site SITE --lit-cfg CFG
                       [-I DIR]... FILE.md..."""
import argparse, os, re, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--kgen", required=True)
ap.add_argument("--cc", required=True)
ap.add_argument("--lit", required=True)
ap.add_argument("--lit-site", required=True)
ap.add_argument("--lit-cfg", required=True)
ap.add_argument("-I", dest="incs", action="append", default=[])
ap.add_argument("files", nargs="+")
args = ap.parse_args()

FENCE = re.compile(r"^```(\w*)\s*$")
NOTE = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->\s*$")


def blocks(path):
    """(language, first line number, text, note) of each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        note = None
        if i > 0 and NOTE.match(lines[i - 1]):
            note = NOTE.match(lines[i - 1]).group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        yield lang, start + 1, "\n".join(lines[start:j]), note
        i = j + 1


def fail(where, why, out=""):
    sys.stdout.write(out)
    sys.exit("doc_snippets: %s: %s" % (where, why))


tmp = tempfile.mkdtemp(prefix="kgen_snippets_")
litdir = os.path.join(tmp, "lit")  # a lit suite of its own: kgen's config
os.mkdir(litdir)
shutil.copy(args.lit_cfg, os.path.join(litdir, "lit.cfg.py"))
counts = {"c": 0, "lua": 0, "lit": 0, "excerpt": 0}
for path in args.files:
    name = os.path.relpath(path)
    seen = []
    for lang, line, text, note in blocks(path):
        where = "%s:%d" % (name, line)
        if lang not in ("c", "lua"):
            continue
        if note == "excerpt":
            counts["excerpt"] += 1
            continue
        if lang == "c":
            # a block's includes, else those of the blocks before it in its
            # file; a note's #include "..." is hoisted too
            own = [l for l in text.split("\n") if l.startswith("#include")]
            noted = re.findall(r'#include\s*[<"][^>"]+[>"]', note or "")
            note = re.sub(r'#include\s*[<"][^>"]+[>"]', "", note or "")
            seen = own or seen
            incs = seen + noted
            body = [l for l in text.split("\n") if not l.startswith("#include")]
            body = [re.sub(r"^(\s*)\.\.\.\s*$", r"\1;", l) for l in body]
            src = ("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n" +
                   "\n".join(incs) + "\n#line 1 \"prelude\"\nstatic void snippet(void) {\n" +
                   (note or "") + "\n#line %d \"%s\"\n" % (line, name) + "\n".join(body) +
                   "\n}\nvoid (*kg_snippet)(void) = snippet;\n")
            f = os.path.join(tmp, "s.c")
            open(f, "w").write(src)
            cmd = [args.cc, "-std=c11", "-fsyntax-only", "-Wall", "-Werror",
                   "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                   "-Wno-uninitialized", "-Wno-sometimes-uninitialized",
                   "-Wno-unknown-warning-option"] + ["-I" + d for d in args.incs] + [f]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                fail(where, "the C block does not compile", r.stdout + r.stderr)
            counts["c"] += 1
        elif "-- RUN:" in text:
            # the block names its file in CHECK lines: give it that name
            m = re.search(r"CHECK: (\w+\.lua):", text)
            f = os.path.join(litdir, m.group(1) if m else "snippet_%d.lua" % line)
            open(f, "w").write(text + "\n")
            r = subprocess.run([sys.executable, args.lit, "-q", "--no-progress-bar",
                                "--param", "kgen_site_config=" + args.lit_site,
                                "--param", "kgen_exec_subdir=snippets/" + os.path.basename(f),
                                f], capture_output=True, text=True)
            if r.returncode != 0:
                fail(where, "the lit test in the block fails", r.stdout + r.stderr)
            counts["lit"] += 1
        else:
            f = os.path.join(tmp, "snippet.lua")
            open(f, "w").write(text + "\n")
            r = subprocess.run([args.kgen, "--arch", "gfx1100", "--emit=hip", "-o", os.devnull,
                                f], capture_output=True, text=True)
            if r.returncode != 0:
                fail(where, "kgen refuses the model", r.stdout + r.stderr)
            counts["lua"] += 1
shutil.rmtree(tmp)
if counts["c"] + counts["lua"] + counts["lit"] < 5:
    sys.exit("doc_snippets: found only %d blocks to build" % sum(counts.values()))
print("doc_snippets: %(c)d C blocks compile, %(lua)d models expand, %(lit)d lit tests pass, "
      "%(excerpt)d excerpts skipped" % counts)
