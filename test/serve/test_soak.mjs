// test_soak.mjs - kgen-serve under bad input and load, on loopback, for a
// bounded time: a small pool (5 KV blocks, 3 sequences, a queue of 2) so
// that requests wait, are refused with 429 and are preempted (that the
// preempted get their tokens is test_sched's).
//   1. a burst of 8 requests: those past the queue are refused with 429 and
//      an error object, the rest answered;
//   2. a slow client (half a request, then nothing) is closed by the
//      server's timeout; a 10 MB body is answered 413;
//   3. several clients for SECONDS seconds, each request a random pick of
//      valid ones (completions and chat, streaming or not, some aborted
//      mid-stream) and malformed ones (bad JSON, wrong types, values out of
//      range, prompts past the context, unknown routes, wrong methods):
//      every malformed one answered with its 4xx and an OpenAI error object,
//      every valid one 200 or 429;
//   4. then nothing running or held (/metrics), SIGTERM exits 0 with every
//      block free, and the server never printed a failed step.
// Usage: node test_soak.mjs KGEN_SERVE MODEL.gguf NPM_DIR [SECONDS] [CLIENTS]
import net from 'node:net';
import * as L from './serve_lib.mjs';

const [exe, model, npmDir, secArg = '30', clientArg = '4'] = process.argv.slice(2);
const seconds = Number(secArg), clients = Number(clientArg);
const t0 = Date.now();
L.deadline((seconds + 240) * 1000, 'test_soak');
const OpenAI = L.loadOpenAI(npmDir);
if (!OpenAI) {
  console.log(`SKIPPED: no openai package in ${npmDir} (setup_openai.sh)`);
  process.exit(L.SKIP);
}

// a fixed sequence of picks (xorshift), one stream per client
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

const words = ['the', 'king', 'queen', 'cat', 'dog', 'sun', 'moon', 'river', 'tree', 'house'];
const text = (r, n) => Array.from({ length: n }, () => words[Math.floor(r() * 10)]).join(' ');

async function post(url, path, body, { method = 'POST', type = 'application/json' } = {}) {
  const r = await fetch(url + path, { method, body, headers: { 'Content-Type': type },
    signal: AbortSignal.timeout(120000) });
  let json = null;
  const raw = await r.text();
  try { json = JSON.parse(raw); } catch { /* checked by the caller */ }
  return { status: r.status, json, raw };
}

// The malformed requests: [path, body, status, what] (body a string).
const bad = [
  ['/v1/completions', '{"prompt": "the king", ', 400, 'truncated JSON'],
  ['/v1/completions', '[]', 400, 'an array body'],
  ['/v1/completions', '', 400, 'an empty body'],
  ['/v1/completions', '{"prompt": 5}', 400, 'prompt a number'],
  ['/v1/completions', '{"prompt": "x", "max_tokens": "ten"}', 400, 'max_tokens a string'],
  ['/v1/completions', '{"prompt": "x", "max_tokens": 0}', 400, 'max_tokens 0'],
  ['/v1/completions', '{"prompt": "x", "max_tokens": 100000}', 400, 'max_tokens too large'],
  ['/v1/completions', '{"prompt": "x", "max_tokens": 255}', 400, 'past the context'],
  ['/v1/completions', '{"prompt": "x", "temperature": 7}', 400, 'temperature 7'],
  ['/v1/completions', '{"prompt": "x", "n": 3}', 400, 'n 3'],
  ['/v1/completions', '{"prompt": "x", "best_of": 2}', 400, 'best_of 2'],
  ['/v1/completions', '{"prompt": "x", "stop": [1, 2]}', 400, 'stop numbers'],
  ['/v1/completions', '{"prompt": "x", "stream": "yes"}', 400, 'stream a string'],
  ['/v1/completions', '{"prompt": "x", "presence_penalty": 1}', 400, 'a penalty'],
  ['/v1/completions', '{"prompt": [99999]}', 400, 'a token id past the vocabulary'],
  ['/v1/completions', JSON.stringify({ prompt: Array(300).fill(5) }), 400, '300 token ids'],
  ['/v1/completions', JSON.stringify({ prompt: 'the king '.repeat(200) }), 400,
    'a prompt past the context'],
  ['/v1/completions', '{"prompt": "x", "prompt": "y"}', 400, 'a repeated field'],
  ['/v1/completions', '['.repeat(50000), 400, 'nesting 50000 deep'],
  ['/v1/completions', Buffer.concat([Buffer.from('{"prompt": "'), Buffer.from([0xff, 0xfe]),
    Buffer.from('"}')]), 400, 'not UTF-8'],
  ['/v1/chat/completions', '{"messages": "hi"}', 400, 'messages a string'],
  ['/v1/chat/completions', '{"messages": []}', 400, 'no messages'],
  ['/v1/chat/completions', '{"messages": [{"role": "robot", "content": "x"}]}', 400,
    'an unknown role'],
  ['/v1/chat/completions', '{"messages": [{"role": "user", "content": 7}]}', 400,
    'content a number'],
  ['/v1/chat/completions', '{"messages": [{"role": "user", "content": "x"}], "logprobs": 3}',
    400, 'chat logprobs a number'],
  ['/v1/nope', '{}', 404, 'an unknown route'],
];

const tally = { valid: 0, ok: 0, busy: 0, aborted: 0, bad: 0 };

function checkError(res, status, what) {
  tally.bad++;
  return L.check(res.status === status && typeof res.json?.error?.message === 'string' &&
    typeof res.json?.error?.type === 'string',
  `${what}: want ${status} and an error object, got ${res.status} ${res.raw.slice(0, 120)}`);
}

async function oneValid(c, url, r) {
  tally.valid++;
  const kind = Math.floor(r() * 5);
  const sampling = r() < 0.5 ? { temperature: 0 } : { temperature: 0.8, top_p: 0.9, top_k: 40,
    seed: Math.floor(r() * 1000) };
  const max_tokens = 1 + Math.floor(r() * 6);
  const prompt = text(r, 1 + Math.floor(r() * 8));
  try {
    if (kind === 0) {
      const x = await c.completions.create({ model: 'm', prompt, max_tokens, ...sampling });
      L.check(x.usage.completion_tokens >= 1, 'valid completion: tokens');
    } else if (kind === 1) {
      const x = await c.chat.completions.create({ model: 'm', max_tokens, ...sampling,
        messages: [{ role: 'user', content: prompt }] });
      L.check(x.choices[0].message.role === 'assistant', 'valid chat: an answer');
    } else {
      const s = await c.completions.create({ model: 'm', prompt, max_tokens: max_tokens + 4,
        ...sampling, stream: true });
      let n = 0;
      for await (const ch of s) {
        if (kind === 4 && ++n === 2) { /* a client that leaves mid-stream */
          s.controller.abort();
          tally.aborted++;
          break;
        }
        void ch;
      }
    }
    tally.ok++;
  } catch (e) {
    if (e.status === 429) {
      tally.busy++;
      L.check(typeof e.error?.message === 'string', '429: an error object');
      await L.sleep(100 + Math.floor(r() * 200)); /* as a client backs off */
    } else {
      L.check(false, `a valid request failed: ${e.status} ${e.message}`);
    }
  }
}

async function oneBad(url, r) {
  const [path, body, status, what] = bad[Math.floor(r() * bad.length)];
  checkError(await post(url, path, body), status, what);
  if (r() < 0.1)
    checkError(await post(url, '/v1/completions', null, { method: 'GET' }), 405, 'GET');
}

async function client(c, url, k, until) {
  const r = rng(1000 + k);
  while (Date.now() < until) {
    if (r() < 0.5) await oneValid(c, url, r);
    else await oneBad(url, r);
  }
}

// Half a request, then silence: the server closes it after its timeout.
function slowClient(port) {
  return new Promise((resolve) => {
    const t = Date.now();
    const s = net.connect(port, '127.0.0.1', () => {
      s.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"pro');
    });
    s.on('error', () => {});
    s.on('close', () => resolve((Date.now() - t) / 1000));
    setTimeout(() => { s.destroy(); resolve(null); }, 30000).unref();
  });
}

const server = await L.startServer(exe, ['--model', model, '--chat-format', 'chatml',
  '--step-tokens', '8', '--max-sequences', '3', '--max-queue', '2', '--kv-blocks', '5',
  '--max-body', '65536', '--timeout', '3']);
const port = Number(new URL(server.url).port);
try {
  const c = L.client(OpenAI, server.url);
  let t = Date.now();
  const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => post(server.url,
    '/v1/completions', JSON.stringify({ prompt: text(rng(i + 1), 3), max_tokens: 2 }))));
  const refused = burst.filter((r) => r.status === 429);
  L.check(refused.length >= 1 && refused.every((r) => typeof r.json?.error?.message === 'string'),
    `burst: ${refused.length} of 8 refused with 429 and an error object`);
  L.check(burst.every((r) => r.status === 429 || (r.status === 200 &&
    r.json?.usage?.completion_tokens === 2)), 'burst: the others answered');
  console.log(`burst: ${((Date.now() - t) / 1000).toFixed(1)} s, ${refused.length} refused`);
  t = Date.now();
  const slow = slowClient(port);
  const big = await post(server.url, '/v1/completions',
    JSON.stringify({ prompt: 'x'.repeat(10 << 20) }));
  checkError(big, 413, 'a 10 MB body');
  const closedAfter = await slow;
  L.check(closedAfter !== null && closedAfter < 15,
    `a slow client is closed by the server (after ${closedAfter} s)`);
  console.log(`slow client and 10 MB: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, (_, k) => client(c, server.url, k, until)));
  const m0 = await L.metrics(server.url);
  console.log(`soak: ${((Date.now() - t) / 1000).toFixed(1)} s, ${JSON.stringify(tally)}, ` +
    `${m0.kgen_preemptions_total} preempted, ${m0.kgen_requests_rejected_total} refused (429)`);
  L.check(tally.ok > 0 && tally.bad > 0, 'soak: valid and malformed requests ran');
  const m = await L.idle(server.url);
  L.eq(m.kgen_kv_blocks_in_use, 0, 'soak: no block in use');
  L.eq(m.kgen_running_sequences + m.kgen_queue_depth, 0, 'soak: nothing running or waiting');
  L.eq(m.kgen_kv_blocks_free + m.kgen_kv_blocks_cached, m.kgen_kv_blocks_total,
    'soak: every block free or cached');
  const h = await fetch(`${server.url}/health`);
  L.eq(h.status, 200, 'soak: still healthy');
} finally {
  const res = await L.stopServer(server);
  L.eq(res.code, 0, 'exit code');
  L.eq(res.inUse, 0, 'the stop line: no block in use');
  L.check(!/step failed|runtime error|AddressSanitizer/.test(server.log), 'no failed step');
}
process.exit(L.summary('test_soak', t0));
