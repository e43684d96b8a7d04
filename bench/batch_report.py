#!/usr/bin/env python3
"""bench/batch_report.py - the tables of bench/results/batch_decode.md from one
device call of bench/run_batch.sh: kgen's decode lines (llama_batch, JSON),
optionally an earlier build's (prev) and llama.cpp's llama-batched-bench
tables of the same call (peer_bf16.txt, peer_q4_0.txt).

  python3 bench/batch_report.py DIR      (DIR: the call's folder)

Prints markdown: per model, the decode rate at each batch size, its step
time against the roofline llama_batch states (weights once + every
sequence's KV bytes over the call's copy bandwidth), and the ratios to prev
and to llama.cpp's S_TG where those are there; then prefill and the
profiles' largest kernels."""
import json
import os
import sys

PEER = {"llama3_8b_batch": "bf16", "llama3_8b_q4_0_batch": "q4_0"}


def lines(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def peer(path):
    """llama-batched-bench's table: batch -> S_TG (output tok/s)."""
    rates = {}
    if not os.path.exists(path):
        return rates
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 10 and cells[2].isdigit():
                rates[int(cells[2])] = float(cells[7])
    return rates


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: batch_report.py DIR")
    d = sys.argv[1]
    kg, prev = lines(os.path.join(d, "kgen.jsonl")), lines(os.path.join(d, "prev.jsonl"))
    if not kg:
        sys.exit("batch_report.py: no decode lines in %s/kgen.jsonl" % d)
    copy = [r["GBps"] for r in kg if r.get("kind") == "copy"]
    if copy:
        print("Copy bandwidth of the call: %.0f GB/s.\n" % copy[0])
    for model in [m for m in PEER if any(r.get("model") == m for r in kg)]:
        pv = {r["batch"]: r["tok_s"] for r in prev
              if r.get("model") == model and r.get("kind") == "decode"}
        pr = peer(os.path.join(d, "peer_%s.txt" % PEER[model]))
        head = "| sequences | tok/s | step ms | roofline ms | of roofline |"
        rule = "| ---: | ---: | ---: | ---: | ---: |"
        if pv:
            head += " prev tok/s | vs prev |"
            rule += " ---: | ---: |"
        if pr:
            head += " llama.cpp S_TG | vs llama.cpp |"
            rule += " ---: | ---: |"
        print("%s (%s), decode after 512-token prompts:\n" % (model, PEER[model]))
        print(head)
        print(rule)
        for r in kg:
            if r.get("model") != model or r.get("kind") != "decode":
                continue
            b = r["batch"]
            row = "| %d | %.1f | %.3f | %.3f | %.3f |" % (
                b, r["tok_s"], r["step_ms"], r["roofline_ms"], r["frac_roofline"])
            if pv:
                row += (" %.1f | %.2f |" % (pv[b], r["tok_s"] / pv[b])) if b in pv else " | |"
            if pr:
                row += (" %.1f | %.2f |" % (pr[b], r["tok_s"] / pr[b])) if b in pr else " | |"
            print(row)
        for r in kg:
            if r.get("model") == model and r.get("kind") == "prefill":
                print("\nPrefill: %d sequences of %d tokens in %.2f s, %.0f tok/s."
                      % (r["sequences"], r["tokens"], r["s"], r["tok_s"]))
        for b in sorted({r["batch"] for r in kg
                         if r.get("model") == model and r.get("kind") == "profile_kernel"}):
            ks = [r for r in kg if r.get("model") == model and r.get("kind") == "profile_kernel"
                  and r.get("batch") == b]
            ks.sort(key=lambda r: -r["us"])
            tot = sum(r["us"] for r in ks)
            top = ", ".join("%s %.0f" % (r["kernel"].replace(model + "_", ""), r["us"])
                            for r in ks[:5])
            print("\nProfile at %d sequences (us a step, all layers; %.0f in all): %s."
                  % (b, tot, top))
        print()


if __name__ == "__main__":
    main()
