#!/usr/bin/env python3
"""report.py - the bench table: kgen's results (kgbench JSON lines) beside the
peers measured in the same device call (peers.py's results.json).

    report.py KGEN.jsonl PEERS.json > table.md

Columns: op, shape, dtype, us, GB/s, fraction of the same-run device-to-device
copy bandwidth (torch copy_ of the same size class), and the ratio of the
peer's time to kgen's (> 1: kgen is faster) for torch eager and torch.compile."""
import json
import sys

# kgen op -> (copy yardstick, eager peer, torch.compile peer) in peers.py's names
PEERS = {
    "copy 4096x8192": ("d2d_copy_4096x8192", "d2d_copy_4096x8192", None),
    "copy 16384x8192": ("d2d_copy_16384x8192", "d2d_copy_16384x8192", None),
    "residual_add 16384x8192": ("d2d_copy_16384x8192", "residual_add_16384x8192", None),
    "silu 16384x8192": ("d2d_copy_16384x8192", None, None),
    "cast_bf16_f16 16384x8192": ("d2d_copy_16384x8192", None, None),
    "swiglu 4096x14336": ("d2d_copy_16384x8192", "swiglu_eager", "swiglu_torch_compile"),
    "rmsnorm 4096x8192": ("d2d_copy_4096x8192", "rmsnorm_eager_hf", "rmsnorm_torch_compile"),
    "softmax 4096x8192": ("d2d_copy_4096x8192", "softmax_eager", "softmax_torch_compile"),
    "rope 4096x32x128": ("d2d_copy_4096x8192", "rope_eager_hf", "rope_torch_compile"),
    "embedding 4096 of 128256x4096": ("d2d_copy_4096x8192", "embedding_gather", None),
    "gemv 1x4096 . 14336x4096": ("d2d_copy_4096x8192", "gemv_bs1_14336x4096", None),
    "gemv_down 1x14336 . 4096x14336": ("d2d_copy_4096x8192", "gemv_bs1_4096x14336", None),
    "gemv_lm_head 1x4096 . 128256x4096": ("d2d_copy_16384x8192", "gemv_bs1_128256x4096", None),
    # GGUF weights: bytes are the quantized ones; the bf16 GEMV is no peer
    "gemv_q8_0 1x4096 . 14336x4096": ("d2d_copy_4096x8192", None, None),
    "gemv_q4_0 1x4096 . 14336x4096": ("d2d_copy_4096x8192", None, None),
    "gemv_q4_0_m8 8x4096 . 14336x4096": ("d2d_copy_4096x8192", None, None),
    # GEMM: the time ratio to cuBLAS (A @ B, same call) is the column that counts
    "gemm 4096x4096x4096": (None, "cublas_bf16_gemm_4096", None),
    "swiglu_gemv 1x4096 . 2x14336x4096": ("d2d_copy_4096x8192", None, None),
    "swiglu_gemv_unfused 1x4096 . 2x14336x4096": ("d2d_copy_4096x8192", None, None),
    "norm_qkv_gemv 1x4096 . (4096+1024+1024)x4096": ("d2d_copy_4096x8192", None, None),
    "norm_qkv_gemv_unfused 1x4096 . (4096+1024+1024)x4096": ("d2d_copy_4096x8192", None, None),
    "norm_swiglu_gemv 1x4096 . 2x14336x4096": ("d2d_copy_4096x8192", None, None),
    "norm_swiglu_gemv_unfused 1x4096 . 2x14336x4096": ("d2d_copy_4096x8192", None, None),
    "topk50 32x128256": (None, "topk50_fp32_32x128256", None),
    "topp0.9 32x128256": (None, "topp_sort_eager_32x128256", None),
}


def main():
    ours = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
    peers = {r["op"]: r for r in json.load(open(sys.argv[2])) if "op" in r}
    env = next((r for r in json.load(open(sys.argv[2])) if r.get("kind") == "env"), {})
    print(f"GPU: {env.get('gpu', '?')}, torch {env.get('torch', '?')}, "
          f"triton {env.get('triton', '?')}\n")
    print("| op | shape | dtype | check | us | GB/s | x copy BW | vs torch eager | vs torch.compile |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in ours:
        key = f"{r['op']} {r['shape']}"
        copy, eager, comp = PEERS.get(key, (None, None, None))

        def frac(name):
            p = peers.get(name) if name else None
            return f"{p['GBps'] and r['GBps'] / p['GBps']:.2f}" if p and "GBps" in p else "-"

        def speedup(name):
            p = peers.get(name) if name else None
            return f"{p['us'] / r['us']:.2f}x" if p and "us" in p else "-"

        print(f"| {r['op']} | {r['shape']} | {r['dtype']} | {r['check']} (nmse {r['nmse']:.1e}) "
              f"| {r['us']:.1f} | {r['GBps']:.0f} | {frac(copy)} | {speedup(eager)} "
              f"| {speedup(comp)} |")


if __name__ == "__main__":
    main()
