"""sketch.py - a training project's random projections from kgen tables:
a batch of rows (gradients, activations) through CountSketch and SRHT
(sketch.lua), checked against a float64 NumPy reference of the same rules
(templates/countsketch.hip, templates/srht.hip). The reference functions
are what the tests and bench/sketch_torch.py import.

    python3 sketch.py [--device SPEC] [--rows B] [--cols C] [--width W] [--out K] [--seed S]

On the sim (the default where no GPU opens) the batch goes in and out as
NumPy arrays; on a GPU see bench/sketch_torch.py, which binds PyTorch
tensors with no copy. Prints the largest error against the reference,
relative to each output's largest magnitude, and exits 1 above 1e-5.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "sketch.lua")


def hash32(v):
    """kg_hash32 (templates/lib_sample.hip) on uint32 arrays."""
    v = np.asarray(v, dtype=np.uint32).copy()
    v ^= v >> np.uint32(16)
    v *= np.uint32(0x7FEB352D)
    v ^= v >> np.uint32(15)
    v *= np.uint32(0x846CA68B)
    v ^= v >> np.uint32(16)
    return v


def countsketch_plan(cols, width, seed):
    """Each column's bucket h(j) and sign s(j)."""
    v = hash32(np.arange(cols, dtype=np.uint32) ^ hash32(seed))
    return (v % np.uint32(width)).astype(np.int64), np.where(v >> np.uint32(31), -1.0, 1.0)


def srht_plan(cols, out, seed):
    """The padded size P, each column's sign s(j) and the coordinates
    pi(0 .. out-1) of the transform that are kept."""
    p, logp = 1, 0
    while p < cols:
        p, logp = p * 2, logp + 1
    key = hash32(seed)
    sign = np.where(hash32(np.arange(cols, dtype=np.uint32) ^ key) >> np.uint32(31), -1.0, 1.0)
    v = np.arange(out, dtype=np.uint32)
    shift = np.uint32(logp // 2 + 1)
    for t in range(1, 5):
        kt = hash32(np.uint32((int(key) + t) & 0xFFFFFFFF))
        v = ((v ^ kt) * (kt | np.uint32(1))) & np.uint32(p - 1)
        v ^= v >> shift
    return p, sign, v.astype(np.int64)


def countsketch_ref(x, width, seed):
    """y[r, b] = sum over h(j) = b of s(j) x[r, j], in float64."""
    h, s = countsketch_plan(x.shape[1], width, seed)
    y = np.zeros((x.shape[0], width))
    np.add.at(y.T, h, (x.astype(np.float64) * s).T)
    return y


def fwht(z):
    """The unnormalised Walsh-Hadamard transform (Sylvester order) of each row."""
    rows, p = z.shape
    h = z.copy()
    n = 1
    while n < p:
        h = h.reshape(rows, p // (2 * n), 2, n)
        h = np.concatenate([h[:, :, 0] + h[:, :, 1], h[:, :, 0] - h[:, :, 1]], axis=2)
        h = h.reshape(rows, p)
        n *= 2
    return h


def srht_ref(x, out, seed):
    """y[r, k] = (H D x_r)[pi(k)] / sqrt(out), x_r zero-padded to P, in float64."""
    p, s, pi = srht_plan(x.shape[1], out, seed)
    z = np.zeros((x.shape[0], p))
    z[:, :x.shape[1]] = x.astype(np.float64) * s
    return fwht(z)[:, pi] / np.sqrt(out)


def rel_err(got, ref):
    """The largest error relative to the reference's largest magnitude (inf
    for a NaN or a shape mismatch)."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != ref.shape or not np.all(np.isfinite(got)):
        return float("inf")
    return float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--rows", type=int, default=32)
    ap.add_argument("--cols", type=int, default=1000)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--out", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(HERE, ".."))
    import kgen
    import kgrt
    dev = kgrt.Device(a.device)
    arch = dev.name.split(" (")[-1].split(",")[0].rstrip(")") if dev.kind != "sim" else "gfx1100"
    built = kgen.build(MODEL, [arch], defines={"rows": a.rows, "cols": a.cols, "width": a.width,
                                                "out": a.out, "seed": a.seed})
    model = dev.load(built.table())
    x = np.random.default_rng(a.seed).standard_normal((a.rows, a.cols)).astype(np.float32)
    model.set_dim("B", a.rows)
    model.set_input("x", x)
    model.run()
    e_cs = rel_err(model.output("cs"), countsketch_ref(x, a.width, a.seed))
    e_sr = rel_err(model.output("srht"), srht_ref(x, a.out, a.seed))
    print("%s on %s: %d rows of %d -> countsketch %d (error %.2e), srht %d (error %.2e)"
          % (built.name, dev.name, a.rows, a.cols, a.width, e_cs, a.out, e_sr))
    return 0 if max(e_cs, e_sr) <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
