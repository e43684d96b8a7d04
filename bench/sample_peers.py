#!/usr/bin/env python3
"""sample_peers.py - the sampling peers on the lent GPU, in the same device
call as kgbench's topk50_p0.9 rows: top-k 50 then top-p 0.9 over rows of
128256 f32 logits as Hugging Face's logits warpers and gpt-fast do it
(torch.topk, softmax of the k, a cumulative-sum cut, torch.multinomial), in
eager PyTorch and under torch.compile, for 1 row (a batch-1 decode step) and
32 rows; and torch.topk(50) alone. Timed with triton.testing.do_bench
(median), as attention_peers.py does. JSON lines on stdout and in
$OUT/sample_peers.json."""
import json
import os

import torch
from triton.testing import do_bench

OUT = os.environ.get("OUT", "/tmp")
results = []


def record(**kw):
    results.append(kw)
    print(json.dumps(kw), flush=True)


def top_k_top_p(logits, k=50, p=0.9):
    vals, idx = torch.topk(logits, k, dim=-1)  # sorted, largest first
    probs = torch.softmax(vals, dim=-1)
    before = probs.cumsum(dim=-1) - probs  # the weight ahead of each token
    probs = probs.masked_fill(before >= p, 0.0)
    pick = torch.multinomial(probs, 1)
    return idx.gather(-1, pick)


compiled = torch.compile(top_k_top_p)
props = torch.cuda.get_device_properties(0)
record(kind="env", gpu=props.name, torch=torch.__version__)
for rows in (1, 32):
    lg = torch.randn(rows, 128256, device="cuda") * 4
    for name, fn in (("eager", top_k_top_p), ("torch_compile", compiled),
                     ("topk_only", lambda x: torch.topk(x, 50, dim=-1))):
        try:
            fn(lg)
            ms = do_bench(lambda: fn(lg), warmup=50, rep=300, return_mode="median")
            record(op=f"topk50_p0.9_{name}_{rows}x128256", us=round(ms * 1e3, 2))
        except Exception as e:  # a backend that does not take it
            record(op=f"topk50_p0.9_{name}_{rows}x128256", error=str(e)[:160])
with open(os.path.join(OUT, "sample_peers.json"), "w") as f:
    json.dump(results, f)
