#!/usr/bin/env python3
"""report.py SERVE.jsonl - run.sh's JSON lines as a Markdown table: each
server and format at each concurrency, with kgen-serve's step time, tokens
a step and the server's share, and kgen-serve's throughput over
llama-server's beside it."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
best = {(r["label"], r["concurrency"]): r for r in rows}
print("| server | streams | output tok/s | TTFT p50 / p99 ms | ITL p50 / p99 ms "
      "| step ms | tokens a step | server share | vs llama-server |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    peer = best.get((r["label"].replace("kgen-serve", "llama-server"), r["concurrency"]))
    ratio = (f"{r['output_tok_s'] / peer['output_tok_s']:.2f}x"
             if r["label"].startswith("kgen-serve") and peer else "")
    step = f"{r['step_ms']:.2f}" if "step_ms" in r else ""
    share = f"{100 * r['server_share']:.1f} %" if "server_share" in r else ""
    print(f"| {r['label']} | {r['concurrency']} | {r['output_tok_s']:.0f} "
          f"| {r['ttft_ms_p50']:.0f} / {r['ttft_ms_p99']:.0f} "
          f"| {r['itl_ms_p50']:.1f} / {r['itl_ms_p99']:.1f} | {step} "
          f"| {r.get('step_tokens', '')} | {share} | {ratio} |")
