# bench/prefill_peers.py - on the GPU machine: the prefill of 512 tokens at
# llama_decode.c's shapes done by torch's own kernels, cuBLAS for every
# projection (bf16, x [512, K] . W^T, the QKV projection as one GEMM, gate
# and up as one) and SDPA for causal GQA attention, each timed alone with
# triton's do_bench (L2 flushed between runs) and summed over the layers; the
# LM head for the last row. No norm, RoPE, KV write or residual: a floor for
# the same FLOPs llama_decode.c counts. Prints JSON lines.
#   python3 prefill_peers.py
import json, torch
import torch.nn.functional as F
from triton.testing import do_bench

dev, bf = "cuda", torch.bfloat16
T = 512
CFG = {
    "llama3_8b": dict(E=4096, F=14336, L=32, H=32, KVH=8, D=128, V=128256),
    "llama3_2_1b": dict(E=2048, F=8192, L=16, H=32, KVH=8, D=64, V=128256),
}


def gemm_us(m, n, k):
    a = torch.randn(m, k, device=dev, dtype=bf)
    w = torch.randn(n, k, device=dev, dtype=bf)
    return 1e3 * do_bench(lambda: a @ w.T, warmup=25, rep=100)


for name, c in CFG.items():
    E, Fd, L, H, KVH, D, V = c["E"], c["F"], c["L"], c["H"], c["KVH"], c["D"], c["V"]
    shapes = [(T, (H + 2 * KVH) * D, E), (T, E, H * D), (T, 2 * Fd, E), (T, E, Fd)]
    layer_us = sum(gemm_us(*s) for s in shapes)
    q = torch.randn(1, H, T, D, device=dev, dtype=bf)
    k = torch.randn(1, KVH, T, D, device=dev, dtype=bf)
    v = torch.randn(1, KVH, T, D, device=dev, dtype=bf)
    attn_us = 1e3 * do_bench(
        lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
        warmup=25, rep=100)
    head_us = gemm_us(1, V, E)
    us = L * (layer_us + attn_us) + head_us
    mm_flops = L * sum(2 * m * n * k for m, n, k in shapes) + 2 * V * E
    attn_flops = 4.0 * L * H * D * (T * (T + 1) / 2)
    print(json.dumps(dict(kind="prefill_peer", model=name, tokens=T, mode="cublas+sdpa",
                          us=round(us, 1), gemm_us_layer=round(layer_us, 2),
                          attn_us_layer=round(attn_us, 2),
                          TFLOPs=round((mm_flops + attn_flops) / (us * 1e-6) / 1e12, 1))),
          flush=True)
