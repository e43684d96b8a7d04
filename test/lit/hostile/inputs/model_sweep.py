#!/usr/bin/env python3
"""model_sweep.py KGEN WORK_DIR [--full] DIR... [--mutate DIR...]: runs kgen
on every model of the DIRs as it is, and of the DIRs after --mutate on its
mutants too (each attribute value `key = v` of an op call replaced by a
hostile value); --full mutates every DIR, with more values and each number
literal too. kgen runs up to the generated HIP (--emit=hip, no compile)
under small limits. Every run must end with exit 0, or exit 1 and one line that
starts with the model's own path (a model line, or the model file; after
the lines of the model's print()s, if it prints) and
says nothing of an internal error: a model file can reach no kgen bug
("internal error", a position in kgen's own lua/) and no error without
its position. Prints each offending run and exits 1 if there is one.

lit's hostile/no_internal_error (errors/, hostile/ as they are, ops/
mutated: about 500 runs) takes about 6 s on 2 cores; --full (or
KGEN_SWEEP=full) over every lit folder, about 12,700 runs, about 5 minutes."""
import concurrent.futures
import os
import re
import subprocess
import sys

QUICK_VALUES = ["0", "1.5", '"x"']
FULL_VALUES = QUICK_VALUES + ["-1", "true", "{}", "1e300", "0/0", "math.maxinteger",
                              "{ 0 }", "{ bm = 0 }", '"\\27[2J\\n"']
FULL_NUMBERS = ["0", "-1", "1.5", "2147483648", "1099511627776", "3"]
# `key = value` inside a table constructor: a value up to , } or a newline,
# or a flat table
PAIR = re.compile(r"([{,]\s*)([A-Za-z_]\w*)(\s*=\s*)([^,{}\n]+|\{[^{}\n]*\})")
NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def mutants(path, mutate, full, targets):
    """(arch, text, what) for the model at path and, with mutate, its
    mutants: the first target its RUN lines name that kgen knows, else
    gfx1100."""
    src = open(path, encoding="utf-8", errors="surrogateescape").read()
    arch = next((a for a in re.findall(r"--arch (\w+)", src) if a in targets), "gfx1100")
    yield arch, src, "as it is"
    if not mutate:
        return
    lines = src.split("\n")
    values = FULL_VALUES if full else QUICK_VALUES
    for i, line in enumerate(lines):
        if line.lstrip().startswith("--"):
            continue
        edits = []
        for k in range(len(line)):
            pm = PAIR.match(line, k)
            if pm:
                edits += [(pm.start(4), pm.end(4), v, pm.group(2)) for v in values]
        if full:
            edits += [(nm.start(), nm.end(), v, nm.group()) for nm in NUMBER.finditer(line)
                      for v in FULL_NUMBERS]
        for start, end, value, what in edits:
            new = line[:start] + value + line[end:]
            yield arch, "\n".join(lines[:i] + [new] + lines[i + 1:]), \
                f"line {i + 1}: {what} -> {value}"


def check(job):
    kgen, path, arch, printing = job
    try:
        p = subprocess.run([kgen, "--arch", arch, "--emit=hip", "-o", "/dev/null",
                            "--max-seconds=0.5", "--max-instructions=10000000",
                            "--max-memory=64", path], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "no answer in 60 s", ""
    out = (p.stdout + p.stderr).decode("utf-8", "backslashreplace")
    if p.returncode == 0:
        return None, out
    lines = out.rstrip("\n").split("\n")
    if p.returncode != 1:
        return f"exit {p.returncode}", out
    if len(lines) != 1 and not printing:
        return f"{len(lines)} lines", out
    lines = lines[-1:]  # the lines before are the model's print()s
    if not lines[0].startswith(os.path.dirname(path) + "/"):
        return "no position in the model", out
    # what it says, but the paths of the sweep's own files
    message = lines[0].split(": error: ", 1)[-1].replace(os.path.dirname(path), "")
    if "internal" in message or "kgen:lua/" in message:
        return "an internal error", out
    return None, out


def main():
    args = sys.argv[1:]
    full = "--full" in args or os.environ.get("KGEN_SWEEP") == "full"
    args = [a for a in args if a != "--full"]
    kgen, work, dirs = args[0], args[1], args[2:]
    mutated = dirs[dirs.index("--mutate") + 1:] if "--mutate" in dirs else []
    dirs = [d for d in dirs if d != "--mutate"]
    os.makedirs(work, exist_ok=True)
    targets = set(subprocess.run([kgen, "--list-targets"], capture_output=True, text=True,
                                 check=True).stdout.split())
    jobs, whats = [], []
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".lua"):
                continue
            for arch, text, what in mutants(os.path.join(d, name), full or d in mutated, full, targets):
                path = os.path.join(work, f"m{len(jobs)}.lua")
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
                jobs.append((kgen, path, arch, "print(" in text))
                whats.append(f"{os.path.join(d, name)} ({what})")
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for (why, out), job, what in zip(pool.map(check, jobs), jobs, whats):
            if why:
                bad += 1
                print(f"{what}: {why}: {job[1]}: {out.strip()[:400]}")
            else:
                os.unlink(job[1])
    print(f"model_sweep: {len(jobs)} runs, {bad} bad", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
