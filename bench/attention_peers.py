#!/usr/bin/env python3
"""attention_peers.py - the attention issue's peers on the lent GPU, in the
same device call as attn_bench: PyTorch SDPA's flash, cuDNN and
memory-efficient backends (enable_gqa) at the issue's shapes, and a pure
read of the decode's K and V bytes (an f32 sum over them), each timed with
triton.testing.do_bench (median; do_bench writes 256 MB before each run,
which evicts the L2, as kgrt_model_time does for kgen). JSON lines on stdout
and in $OUT/attention_peers.json; prefill in TFLOP/s (4 T S H D / 2, causal),
decode in GB/s of K and V."""
import json
import os

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

OUT = os.environ.get("OUT", "/tmp")
results = []


def record(**kw):
    results.append(kw)
    print(json.dumps(kw), flush=True)


def timed(name, fn, flops=0.0, nbytes=0.0):
    try:
        ms = do_bench(fn, warmup=50, rep=300, return_mode="median")
    except Exception as e:  # a backend that does not take the shape
        record(op=name, error=str(e)[:160])
        return
    r = {"op": name, "us": round(ms * 1e3, 2)}
    if flops:
        r["TFLOPs"] = round(flops / ms / 1e9, 1)
    if nbytes:
        r["GBps"] = round(nbytes / ms / 1e6, 1)
    record(**r)


dev, bf = "cuda", torch.bfloat16
props = torch.cuda.get_device_properties(0)
record(kind="env", gpu=props.name, torch=torch.__version__)
backends = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
H, KVH, D = 32, 8, 128

# prefill: one sequence of 4096 tokens, causal
T = 4096
q = torch.randn(1, H, T, D, device=dev, dtype=bf)
k = torch.randn(1, KVH, T, D, device=dev, dtype=bf)
v = torch.randn_like(k)
for be in backends:
    def run(be=be):
        with sdpa_kernel([be]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    timed(f"gqa_prefill_sdpa_{be.name}_causal", run, flops=4.0 * H * T * T * D / 2)
del q, k, v

# decode: one token over 32768 keys
S = 32768
q = torch.randn(1, H, 1, D, device=dev, dtype=bf)
k = torch.randn(1, KVH, S, D, device=dev, dtype=bf)
v = torch.randn_like(k)
kv_bytes = 2.0 * k.numel() * k.element_size()
for be in backends + [SDPBackend.MATH]:
    def run(be=be):
        with sdpa_kernel([be]):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    timed(f"gqa_decode_sdpa_{be.name}", run, nbytes=kv_bytes)
both = torch.stack([k.flatten(), v.flatten()])
timed("gqa_decode_pure_read_same_bytes", lambda: both.sum(dtype=torch.float32), nbytes=kv_bytes)

with open(os.path.join(OUT, "attention_peers.json"), "w") as f:
    json.dump(results, f, indent=1)
