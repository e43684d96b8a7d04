"""sketch_torch.py - the Python package binding PyTorch tensors on cuda with
no copies: a kgen CountSketch + SRHT table (bindings/python/examples/
sketch.lua) run on a torch input tensor into two torch output tensors,
checked by the data pointers, against torch's own computation of the same
projections and against the float64 NumPy reference, then timed beside
torch in the same process.

Two steps, as bench/build.sh does for kgbench (NVRTC on the CPU machine):
  # CPU machine: the sm_90a table as a shared library in .bench/sketch/
  KGEN=build/kgen python3 bench/sketch_torch.py --build-only
  # GPU machine (carry .bench and build/libkgrt.so):
  KGRT_LIB_DIR=build python3 bench/sketch_torch.py > bench/results/sketch_torch.md

Options: --rows 8192 --cols 4096 --width 1024 --out 1024 --seed 7
--arch sm_90a --reps 100 --compile (also torch.compile'd torch).
Exits 1 when a check fails (a pointer, a bound, auto not opening cuda).

Timing, both sides alike: the median of `reps` runs, each between two
events on the device and queued behind a 256 MiB write that evicts the L2
(kgrt_model_time does this on kgrt's stream; do_bench below on torch's), so
each run starts cold and its launches are queued before the device gets to
them. Also the host's wall time of a synchronous call (kgrt: wait for
torch's stream, run, wait; torch: the ops and torch.cuda.synchronize()).
"""
import argparse
import datetime
import os
import statistics
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "examples"))

import numpy as np  # noqa: E402

import sketch  # noqa: E402  (MODEL and the float64 reference)

OUT = os.path.join(ROOT, ".bench", "sketch")


def defines(a):
    return {"rows": a.rows, "cols": a.cols, "width": a.width, "out": a.out, "seed": a.seed}


def torch_projections(torch, a, dev):
    """torch's own CountSketch and SRHT of the same rules: the hashes
    computed once on the host (sketch.py), then index_add_ and a fast
    Walsh-Hadamard transform on the GPU; and the dense alternatives (x times
    the [cols, width] and [cols, out] matrices)."""
    h, s_cs = sketch.countsketch_plan(a.cols, a.width, a.seed)
    p, s_sr, pi = sketch.srht_plan(a.cols, a.out, a.seed)
    h_t = torch.from_numpy(h).to(dev)
    s_cs_t = torch.from_numpy(s_cs).float().to(dev)
    s_sr_t = torch.from_numpy(s_sr).float().to(dev)
    pi_t = torch.from_numpy(pi).to(dev)
    scale = 1.0 / np.sqrt(a.out)

    def countsketch(x):
        return torch.zeros(x.shape[0], a.width, device=dev).index_add_(1, h_t, x * s_cs_t)

    def srht(x):
        z = torch.nn.functional.pad(x * s_sr_t, (0, p - a.cols))
        rows, n = z.shape[0], 1
        while n < p:
            z = z.view(rows, p // (2 * n), 2, n)
            z = torch.cat([z[:, :, 0] + z[:, :, 1], z[:, :, 0] - z[:, :, 1]], dim=2).view(rows, p)
            n *= 2
        return z[:, pi_t] * scale

    cs_dense = torch.zeros(a.cols, a.width, device=dev)
    cs_dense[torch.arange(a.cols, device=dev), h_t] = s_cs_t
    hd = sketch.fwht(np.pad(np.diag(s_sr), ((0, 0), (0, p - a.cols))))  # row j: H D e_j
    sr_dense = torch.from_numpy((hd[:, pi] * scale).astype(np.float32)).to(dev)  # [cols, out]

    def dense(x):
        return x @ cs_dense, x @ sr_dense

    return (lambda x: (countsketch(x), srht(x))), dense


def do_bench(torch, fn, reps, warmup=10):
    """Median device time of fn() in microseconds, each run behind a 256 MiB
    write that evicts the L2 (as kgrt_model_time and triton's do_bench)."""
    flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def wall_us(fn, reps):
    """Median host wall time of a synchronous call, in microseconds."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--out", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    a = ap.parse_args()
    lib = os.path.join(OUT, "libsketch.so")
    if a.build_only:
        import kgen
        built = kgen.build(sketch.MODEL, [a.arch], out_dir=OUT, defines=defines(a))
        print("built %s (%s) for %s" % (built.library, built.symbol, a.arch))
        return 0

    import torch
    import kgen
    import kgrt
    fails = []
    auto = kgrt.Device("auto")
    if not auto.name.startswith("cuda"):
        fails.append("auto opened %s, not cuda" % auto.name)
    del auto
    table = kgen.Built("sketch", "kgen_sketch", lib, OUT).table()
    dev = kgrt.Device("cuda")
    m = dev.load(table)
    m.set_dim("B", a.rows)
    g = torch.Generator(device="cuda").manual_seed(a.seed)
    x = torch.randn(a.rows, a.cols, device="cuda", generator=g)
    cs = torch.full((a.rows, a.width), float("nan"), device="cuda")
    sr = torch.full((a.rows, a.out), float("nan"), device="cuda")
    m.bind("x", x)
    m.bind("cs", cs)
    m.bind("srht", sr)
    # no copies: kgrt runs on the tensors' own memory
    for name, t in (("x", x), ("cs", cs), ("srht", sr)):
        if m._bound[name].ptr != t.data_ptr():
            fails.append("%s: kgrt bound %#x, the tensor is at %#x" % (name, m._bound[name].ptr, t.data_ptr()))
    ptrs = (x.data_ptr(), cs.data_ptr(), sr.data_ptr())
    m.run()
    structured, dense = torch_projections(torch, a, "cuda")
    with torch.no_grad():
        torch.backends.cuda.matmul.allow_tf32 = False
        cs_t, sr_t = structured(x)
        cs_d, sr_d = dense(x)
    torch.cuda.synchronize()

    def err(got, ref):
        return float((got.double() - ref.double()).abs().max() / ref.double().abs().max())

    errs = {"countsketch vs torch": err(cs, cs_t), "srht vs torch": err(sr, sr_t),
            "countsketch vs torch dense": err(cs, cs_d), "srht vs torch dense": err(sr, sr_d)}
    rows64 = x[:64].cpu().numpy()
    errs["countsketch vs float64 (64 rows)"] = sketch.rel_err(cs[:64].cpu().numpy(),
                                                             sketch.countsketch_ref(rows64, a.width, a.seed))
    errs["srht vs float64 (64 rows)"] = sketch.rel_err(sr[:64].cpu().numpy(), sketch.srht_ref(rows64, a.out, a.seed))
    for k, v in errs.items():
        if not v <= 1e-5:
            fails.append("%s: error %.2e over 1e-5" % (k, v))
    # the input is read where it lies at each run: doubled in place, doubled out
    cs1 = cs.clone()
    x.mul_(2.0)
    m.run()
    if err(cs, 2 * cs1) > 1e-6:
        fails.append("x doubled in place: countsketch did not double (error %.2e)" % err(cs, 2 * cs1))
    if (x.data_ptr(), cs.data_ptr(), sr.data_ptr()) != ptrs:
        fails.append("a tensor moved")

    kgrt_us = m.time(10, a.reps)
    rows = [("kgrt (one table, both projections)", kgrt_us)]
    with torch.no_grad():
        rows.append(("torch index_add_ + FWHT", do_bench(torch, lambda: structured(x), a.reps)))
        rows.append(("torch dense matmuls (fp32)", do_bench(torch, lambda: dense(x), a.reps)))
        if a.compile:
            c = torch.compile(structured)
            c(x)
            rows.append(("torch.compile(index_add_ + FWHT)", do_bench(torch, lambda: c(x), a.reps)))
        wall = [("kgrt m.run() (syncs torch's stream, runs, waits)", wall_us(m.run, a.reps)),
                ("torch index_add_ + FWHT + synchronize",
                 wall_us(lambda: (structured(x), torch.cuda.synchronize()), a.reps))]
    moved = 4 * a.rows * (a.cols + a.width + a.out)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("# CountSketch + SRHT from PyTorch tensors (kgrt Python bindings)\n")
    print("%s on %s, torch %s. Command: `KGRT_LIB_DIR=build python3 bench/sketch_torch.py%s`"
          " (table: `--build-only` on the CPU machine).\n" % (now, dev.name, torch.__version__,
                                                             "".join(" " + s for s in sys.argv[1:])))
    print("x [%d, %d] f32 -> countsketch [%d, %d] and srht [%d, %d], seed %d; %.1f MB moved at least.\n"
          % (a.rows, a.cols, a.rows, a.width, a.rows, a.out, a.seed, moved / 1e6))
    print("| what | device us (median of %d, cold L2) | GB/s of the bytes moved |" % a.reps)
    print("| --- | ---: | ---: |")
    for name, us in rows:
        print("| %s | %.1f | %.0f |" % (name, us, moved / us / 1e3))
    print("\n| synchronous call | host wall us (median) |\n| --- | ---: |")
    for name, us in wall:
        print("| %s | %.1f |" % (name, us))
    print("\nChecks: bound pointers equal torch's data_ptr() for x, cs, srht; x doubled in place "
          "doubles cs; errors (max abs over max |ref|):")
    for k, v in errs.items():
        print("- %s: %.2e" % (k, v))
    print("\n%s" % ("FAILED:\n- " + "\n- ".join(fails) if fails else "All checks passed."))
    m.unload()
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
