#!/usr/bin/env python3
"""loadgen.py - a load generator for OpenAI-compatible servers (kgen-serve,
llama.cpp's llama-server): C concurrent streams of /v1/completions, each
request a prompt of P random token ids (the same ids for every server: a
fixed seed, which --seed changes, so that no run's prompt is an earlier
run's, which a server's prompt cache would skip) and O generated tokens (temperature 0, ignore_eos), streamed
with server-sent events. Prints one JSON line: output tokens/s over the
run's wall time, time to first token and inter-token latency (the gaps
between a stream's events) at p50 and p99, and for kgen-serve the step
time and the server's share of each step from /metrics (the time between
steps over the whole step period: HTTP, JSON, scheduling).

  python3 loadgen.py URL --concurrency 64 [--prompt 512] [--output 128]
                     [--requests N] [--vocab 128256] [--seed S] [--label TEXT]

The streams are split over up to 8 processes (asyncio and aiohttp in each),
so that reading 64 streams does not make the client the bottleneck."""
import argparse
import asyncio
import json
import multiprocessing as mp
import random
import sys
import time
import urllib.request


def prompts(n, length, vocab, seed=1234):
    r = random.Random(seed)
    # ids past the control and byte pieces (bench/llama_gguf's vocabulary)
    return [[1] + [r.randrange(259, vocab) for _ in range(length - 1)] for _ in range(n)]


async def one(session, url, prompt, output, out):
    body = {"model": "m", "prompt": prompt, "max_tokens": output, "temperature": 0,
            "ignore_eos": True, "stream": True, "stream_options": {"include_usage": True}}
    t0 = time.perf_counter()
    times, tokens = [], None
    async with session.post(url + "/v1/completions", json=body) as resp:
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}: {(await resp.text())[:200]}")
        buf = b""
        async for chunk in resp.content.iter_any():
            now = time.perf_counter()
            buf += chunk
            while b"\n\n" in buf:
                event, buf = buf.split(b"\n\n", 1)
                if not event.startswith(b"data: ") or event == b"data: [DONE]":
                    continue
                d = json.loads(event[6:])
                if d.get("usage"):
                    tokens = d["usage"].get("completion_tokens", tokens)
                if "tokens_predicted" in d:  # llama-server's last event
                    tokens = d["tokens_predicted"]
                ch = d.get("choices") or []
                if ch and (ch[0].get("text") or "") != "":
                    times.append(now)
    if not times:
        raise RuntimeError("no tokens came back")
    out.append({"ttft": times[0] - t0,
                "gaps": [b - a for a, b in zip(times, times[1:])],
                "tokens": tokens if tokens is not None else len(times),
                "events": len(times), "end": times[-1]})


async def worker_main(url, jobs, concurrency, output, start_at):
    import aiohttp
    out = []
    queue = asyncio.Queue()
    for j in jobs:
        queue.put_nowait(j)
    # a connection a request: llama-server dropped a kept-alive one between
    # requests (ServerDisconnected, serve.md 2026-12-07)
    conn = aiohttp.TCPConnector(limit=0, force_close=True)
    timeout = aiohttp.ClientTimeout(total=3600)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as session:
        await asyncio.sleep(max(0.0, start_at - time.time()))

        async def stream():
            while not queue.empty():
                await one(session, url, queue.get_nowait(), output, out)
        await asyncio.gather(*(stream() for _ in range(concurrency)))
    return out


def worker(args):
    url, jobs, concurrency, output, start_at = args
    return asyncio.run(worker_main(url, jobs, concurrency, output, start_at))


def metrics(url):
    try:
        text = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
    except Exception:
        return None
    m = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            m[k] = float(v)
    return m if "kgen_steps_total" in m else None


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--concurrency", type=int, required=True)
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--output", type=int, default=128)
    ap.add_argument("--requests", type=int, default=0, help="default 2 x concurrency, at least 4")
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    n = a.requests or max(4, 2 * a.concurrency)
    ps = prompts(n, a.prompt, a.vocab, a.seed)
    procs = min(8, a.concurrency)
    start_at = time.time() + 1.0
    chunks = [(a.url, ps[i::procs], len(range(i, a.concurrency, procs)), a.output, start_at)
              for i in range(procs)]
    m0 = metrics(a.url)
    with mp.Pool(procs) as pool:
        results = pool.map(worker, chunks)
    t1 = time.time()
    m1 = metrics(a.url)
    reqs = [r for part in results for r in part]
    wall = t1 - start_at
    tokens = sum(r["tokens"] for r in reqs)
    gaps = [g for r in reqs for g in r["gaps"]]
    ttft = [r["ttft"] for r in reqs]
    res = {"label": a.label, "concurrency": a.concurrency, "requests": len(reqs),
           "prompt": a.prompt, "output": a.output, "wall_s": round(wall, 3),
           "output_tok_s": round(tokens / wall, 1), "tokens": tokens,
           "events": sum(r["events"] for r in reqs),
           "ttft_ms_p50": round(1e3 * pct(ttft, 50), 2), "ttft_ms_p99": round(1e3 * pct(ttft, 99), 2),
           "itl_ms_p50": round(1e3 * pct(gaps, 50), 2), "itl_ms_p99": round(1e3 * pct(gaps, 99), 2)}
    if m0 and m1:
        steps = m1["kgen_steps_total"] - m0["kgen_steps_total"]
        busy = m1["kgen_step_seconds_total"] - m0["kgen_step_seconds_total"]
        if steps > 0:
            res["steps"] = int(steps)
            res["step_ms"] = round(1e3 * busy / steps, 3)
            res["step_tokens"] = round((m1["kgen_step_tokens_total"] - m0["kgen_step_tokens_total"]) / steps, 1)
            # the steps run back to back while any stream is open: the rest of
            # the wall time is the server's own (HTTP, JSON, scheduling)
            res["server_share"] = round(max(0.0, 1 - busy / wall), 4)
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    sys.exit(main())
