// serve_lib.mjs - what kgen-serve's tests share: start the server on a
// free loopback port, the official openai client (npm, setup_openai.sh)
// pointed at it, /metrics read back, SIGTERM and the exit checked. Every
// wait is bounded; a test that runs past its deadline kills the server and
// fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const SKIP = 77;

let failures = 0, checks = 0;
export function check(ok, what) {
  checks++;
  if (!ok) {
    failures++;
    console.log(`FAIL: ${what}`);
  }
  return ok;
}
export function eq(got, want, what) {
  return check(JSON.stringify(got) === JSON.stringify(want),
    `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}
export function summary(name, t0) {
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(`${name}: ${checks - failures} passed, ${failures} failed (${s} s)`);
  return failures === 0 ? 0 : 1;
}

// The openai package from DIR/node_modules, or null.
export function loadOpenAI(dir) {
  if (!existsSync(path.join(dir, 'node_modules', 'openai', 'package.json'))) return null;
  const req = createRequire(path.resolve(dir, 'index.js'));
  return req('openai');
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts `exe args...` with --port 0 and waits for its "listening on" line.
export async function startServer(exe, args, { timeoutMs = 120000, env } = {}) {
  const child = spawn(exe, [...args, '--port', '0'], {
    stdio: ['ignore', 'inherit', 'pipe'], env: { ...process.env, ...env } });
  let log = '';
  const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('kgen-serve did not start in time')),
      timeoutMs);
    child.stderr.on('data', (d) => {
      const s = d.toString();
      log += s;
      process.stderr.write(s);
      const m = /listening on (http:\/\/[^\s]+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`kgen-serve exited ${code}`)); });
  });
  const server = { child, url, exited, get log() { return log; } };
  // a test that overruns its budget leaves no server behind
  process.on('exit', () => { if (server.child.exitCode === null) server.child.kill('SIGKILL'); });
  return server;
}

// SIGTERM; the exit code, the stop line's figures, within timeoutMs.
export async function stopServer(server, timeoutMs = 30000) {
  server.child.kill('SIGTERM');
  const timer = new Promise((r) => setTimeout(() => r(null), timeoutMs));
  const res = await Promise.race([server.exited, timer]);
  if (res === null) {
    server.child.kill('SIGKILL');
    return { code: null, inUse: null };
  }
  const m = /KV blocks: (\d+) of (\d+) free, (\d+) cached, (\d+) in use/.exec(server.log);
  return { code: res.code, sig: res.sig,
    free: m ? +m[1] : null, total: m ? +m[2] : null, cached: m ? +m[3] : null,
    inUse: m ? +m[4] : null };
}

// /metrics as { name: value } (labels kept in the name).
export async function metrics(url) {
  const r = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10000) });
  const out = {};
  for (const line of (await r.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return out;
}

// Waits until /metrics shows nothing running, queued or held: the metrics.
export async function idle(url, timeoutMs = 20000) {
  const until = Date.now() + timeoutMs;
  let m;
  do {
    m = await metrics(url);
    if (m.kgen_kv_blocks_in_use === 0 && m.kgen_running_sequences === 0 &&
        m.kgen_queue_depth === 0) return m;
    await sleep(100);
  } while (Date.now() < until);
  return m;
}

// The openai client on the server, no retries, bounded.
export function client(OpenAI, url, timeoutMs = 120000) {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'none', maxRetries: 0, timeout: timeoutMs });
}

// Runs fn() but fails the process past ms.
export function deadline(ms, what) {
  const t = setTimeout(() => {
    console.log(`FAIL: ${what} did not finish in ${ms / 1000} s`);
    process.exit(1);
  }, ms);
  t.unref();
}
