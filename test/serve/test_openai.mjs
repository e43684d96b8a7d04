// test_openai.mjs - kgen-serve through the official openai client (npm
// package, version 7) on loopback, with the tiny batched Llama on the sim:
//   1. completions, streaming and not: the same greedy text both ways;
//      usage; /v1/models, /health; logprobs; a stop string cuts the text
//      before it;
//   2. 16 concurrent streaming clients with different prompts and lengths
//      (the table runs 8 at once: the rest wait in the queue) each get the
//      text and token count they get alone;
//   3. a client that aborts mid-stream, and one that gives up waiting for a
//      whole answer: each request is cancelled and its blocks are free again
//      (/metrics), long before it would have ended;
//   4. chat, and prefix caching: a repeated system prompt hits (/metrics)
//      and the answer is the same as without a hit;
//   5. SIGTERM while a stream runs: the stream ends normally, new requests
//      are refused, the server exits 0 with every block free; with --drain 0
//      the stream is cancelled at once and ends with an error event.
//   6. the same model as a safetensors file (no tokenizer): token ids in,
//      token ids out through logprobs.
// Usage: node test_openai.mjs KGEN_SERVE MODEL.gguf NPM_DIR MODEL.safetensors [DEVICE]
import * as L from './serve_lib.mjs';

const [exe, model, npmDir, hfModel, device = 'sim:gfx1100'] = process.argv.slice(2);
const t0 = Date.now();
L.deadline(600000, 'test_openai');
const OpenAI = L.loadOpenAI(npmDir);
if (!OpenAI) {
  console.log(`SKIPPED: no openai package in ${npmDir} (setup_openai.sh)`);
  process.exit(L.SKIP);
}

const words = ['the king', 'a small cat', 'the river', 'once upon a time', 'the moon',
  'a good story', 'the queen said', 'light and night', 'the old house', 'three men'];
// prompt i: 1 to 3 phrases
const prompt = (i) => Array.from({ length: 1 + (i * 7) % 3 }, (_, k) => words[(i + 3 * k) % 10]).join(' ');

async function streamText(c, params) {
  const s = await c.completions.create({ ...params, stream: true,
    stream_options: { include_usage: true } });
  let text = '', finish = null, usage = null;
  for await (const ch of s) {
    if (ch.choices.length) {
      text += ch.choices[0].text;
      finish = ch.choices[0].finish_reason ?? finish;
    }
    if (ch.usage) usage = ch.usage;
  }
  return { text, finish, tokens: usage?.completion_tokens };
}

async function part1(c, url) {
  const p = { model: 'tiny', prompt: 'Once upon a time the king', max_tokens: 6, temperature: 0 };
  const whole = await c.completions.create(p);
  L.eq(whole.object, 'text_completion', 'completions: object');
  L.eq(whole.usage.completion_tokens, 6, 'completions: 6 tokens');
  L.eq(whole.choices[0].finish_reason, 'length', 'completions: finish');
  L.check(whole.choices[0].text.length > 0, 'completions: some text');
  const streamed = await streamText(c, p);
  L.eq(streamed.text, whole.choices[0].text, 'completions: streamed text is the whole one');
  L.eq(streamed.tokens, 6, 'completions: streamed usage');
  // logprobs: the sampled token's (greedy: the best of the top ones)
  const lp = await c.completions.create({ ...p, max_tokens: 2, logprobs: 2 });
  const lps = lp.choices[0].logprobs ?? {};
  L.eq(lps.token_logprobs?.length, 2, 'logprobs: one a token');
  L.check((lps.token_logprobs ?? []).every((v, i) => v <= 0 &&
    Math.abs(Math.max(...Object.values(lps.top_logprobs[i])) - v) < 1e-6),
  'logprobs: greedy is the best');
  // a stop string: the text ends before it; the same text without it goes on
  const t = whole.choices[0].text;
  const cut = t.slice(3, 5);
  if (cut.length === 2 && !t.slice(0, 3).includes(cut)) {
    const stopped = await c.completions.create({ ...p, stop: [cut] });
    L.eq(stopped.choices[0].text, t.slice(0, t.indexOf(cut)), 'stop: the text before it');
    L.eq(stopped.choices[0].finish_reason, 'stop', 'stop: finish');
  }
  const models = await c.models.list();
  L.eq(models.data.map((m) => m.id), ['tiny_llama'], '/v1/models');
  const h = await fetch(`${url}/health`);
  L.eq(h.status, 200, '/health');
}

async function part2(c) {
  const params = (i) => ({ model: 'tiny', prompt: prompt(i), max_tokens: 1 + (i % 3),
    temperature: 0 });
  const alone = [];
  const ta = Date.now();
  for (let i = 0; i < 16; ++i) alone.push(await streamText(c, params(i)));
  console.log(`16 streams: alone ${((Date.now() - ta) / 1000).toFixed(1)} s`);
  const m0 = await L.metrics(c.baseURL.replace(/\/v1$/, ''));
  const crowd = await Promise.all(Array.from({ length: 16 }, (_, i) => streamText(c, params(i))));
  for (let i = 0; i < 16; ++i) {
    L.eq(crowd[i].text, alone[i].text, `16 streams: client ${i}'s text`);
    L.eq(crowd[i].tokens, alone[i].tokens, `16 streams: client ${i}'s tokens`);
  }
  const m1 = await L.metrics(c.baseURL.replace(/\/v1$/, ''));
  const steps = m1.kgen_steps_total - m0.kgen_steps_total;
  const toks = m1.kgen_step_tokens_total - m0.kgen_step_tokens_total;
  console.log(`16 streams: ${steps} steps, ${(toks / steps).toFixed(1)} tokens a step`);
  L.check(toks / steps > 2, '16 streams: steps ran many sequences at once');
}

async function part3(c, url) {
  const before = await L.idle(url);
  const s = await c.completions.create({ model: 'tiny', prompt: 'the king and the queen',
    max_tokens: 100, temperature: 0, stream: true, ignore_eos: true });
  let n = 0, held = 0;
  for await (const ch of s) {
    if (++n === 3) {
      held = (await L.metrics(url)).kgen_kv_blocks_in_use;
      s.controller.abort();
      break;
    }
  }
  L.check(held > 0, `abort: blocks in use while streaming (${held})`);
  const t = Date.now();
  let m = await L.idle(url, 10000);
  L.eq(m.kgen_kv_blocks_in_use, 0, 'abort: every block free again');
  L.eq(m.kgen_requests_cancelled_total - before.kgen_requests_cancelled_total, 1,
    'abort: the request was cancelled');
  console.log(`abort: blocks free ${Date.now() - t} ms after the client left`);
  // a client that gives up on a whole (non-streaming) answer
  const gone = await fetch(`${url}/v1/completions`, { method: 'POST',
    body: JSON.stringify({ prompt: 'the king', max_tokens: 100, ignore_eos: true }),
    signal: AbortSignal.timeout(1500) }).then(() => 'answered').catch(() => 'aborted');
  L.eq(gone, 'aborted', 'abort whole: the client left first');
  m = await L.idle(url, 10000);
  L.eq(m.kgen_kv_blocks_in_use, 0, 'abort whole: every block free again');
  L.eq(m.kgen_requests_cancelled_total - before.kgen_requests_cancelled_total, 2,
    'abort whole: the request was cancelled');
}

async function part4(c, url) {
  // chat (the tiny model's file has no template: the server runs with
  // --chat-format chatml) with a system prompt, asked twice: the second
  // time its start is in the pool
  const msgs = [{ role: 'system', content: 'You tell short stories about kings.' },
    { role: 'user', content: 'the king' }];
  const m0 = await L.metrics(url);
  const chat = await c.chat.completions.create({ model: 'tiny', messages: msgs, max_tokens: 3,
    temperature: 0 });
  L.eq(chat.object, 'chat.completion', 'chat: object');
  L.eq(chat.choices[0].message.role, 'assistant', 'chat: role');
  L.eq(chat.usage.completion_tokens, 3, 'chat: 3 tokens');
  const m1 = await L.metrics(url);
  const cs = await c.chat.completions.create({ model: 'tiny', messages: msgs, max_tokens: 3,
    temperature: 0, stream: true, stream_options: { include_usage: true } });
  let ctext = '', role = null, cfinish = null, usage = null;
  for await (const ch of cs) {
    const d = ch.choices[0]?.delta ?? {};
    role = role ?? d.role;
    ctext += d.content ?? '';
    cfinish = ch.choices[0]?.finish_reason ?? cfinish;
    usage = ch.usage ?? usage;
  }
  const m2 = await L.metrics(url);
  L.eq(role, 'assistant', 'chat stream: role first');
  L.eq(cfinish, 'length', 'chat stream: finish');
  L.eq(ctext, chat.choices[0].message.content, 'prefix cache: the same answer with a hit');
  const hits = m2.kgen_prefix_cache_hits_total - m1.kgen_prefix_cache_hits_total;
  const hitTokens = m2.kgen_prefix_cache_hit_tokens_total - m1.kgen_prefix_cache_hit_tokens_total;
  L.eq(m1.kgen_prefix_cache_hits_total - m0.kgen_prefix_cache_hits_total, 0,
    'prefix cache: no hit the first time');
  L.eq(hits, 1, 'prefix cache: the repeated system prompt hits');
  L.check(hitTokens >= 48 && usage?.prompt_tokens_details?.cached_tokens === hitTokens,
    `prefix cache: ${hitTokens} prompt tokens shared, usage says so`);
}

async function part5(exe, args) {
  const server = await L.startServer(exe, args);
  const c = L.client(OpenAI, server.url);
  const s = await c.completions.create({ model: 'tiny', prompt: 'the king', max_tokens: 6,
    temperature: 0, stream: true, ignore_eos: true, stream_options: { include_usage: true } });
  let n = 0, tokens = 0, stopped = null, refused = null;
  for await (const ch of s) {
    if (ch.usage) tokens = ch.usage.completion_tokens;
    if (++n === 2) {
      stopped = L.stopServer(server);
      await L.sleep(300);
      refused = await fetch(`${server.url}/v1/completions`, { method: 'POST',
        body: JSON.stringify({ prompt: 'x', max_tokens: 1 }) })
        .then((r) => r.status).catch(() => 'closed');
    }
  }
  L.eq(tokens, 6, 'SIGTERM: the stream in flight finished');
  L.check(refused === 503 || refused === 'closed', `SIGTERM: a new request refused (${refused})`);
  const res = await stopped;
  L.eq(res.code, 0, 'SIGTERM: exit 0');
  L.eq(res.inUse, 0, 'SIGTERM: no block in use at the end');
}

// --drain 0: SIGTERM cancels a stream at once; it ends with an error event
async function part6(exe, args) {
  const server = await L.startServer(exe, [...args, '--drain', '0']);
  const c = L.client(OpenAI, server.url);
  const s = await c.completions.create({ model: 'tiny', prompt: 'the king', max_tokens: 100,
    temperature: 0, stream: true, ignore_eos: true });
  let n = 0, stopped = null, error = null;
  try {
    for await (const ch of s) {
      void ch;
      if (++n === 2) stopped = L.stopServer(server);
    }
  } catch (e) {
    error = e;
  }
  L.check(error !== null && /shutting down/.test(error.message),
    `--drain 0: the stream ends with an error (${error?.message})`);
  L.check(n < 20, `--drain 0: cancelled after ${n} events`);
  const res = await stopped;
  L.eq(res.code, 0, '--drain 0: exit 0');
  L.eq(res.inUse, 0, '--drain 0: no block in use at the end');
}

// A safetensors file: no tokenizer, so prompts are ids and logprobs name ids
async function part7(exe, args) {
  const server = await L.startServer(exe, [...args.slice(2), '--model', hfModel]);
  const c = L.client(OpenAI, server.url);
  const x = await c.completions.create({ model: 'tiny', prompt: [1, 300, 301, 302],
    max_tokens: 3, temperature: 0, logprobs: 1 });
  const ids = (x.choices[0].logprobs?.tokens ?? []).map((t) => /^<(\d+)>$/.exec(t)?.[1]);
  L.check(ids.length === 3 && ids.every((i) => i !== undefined && +i < 1000),
    `safetensors: 3 token ids (${x.choices[0].logprobs?.tokens})`);
  L.eq(x.choices[0].text, '', 'safetensors: no text without a tokenizer');
  const bad = await fetch(`${server.url}/v1/completions`, { method: 'POST',
    body: JSON.stringify({ prompt: 'the king' }) });
  L.eq(bad.status, 400, 'safetensors: a text prompt is refused');
  const res = await L.stopServer(server);
  L.eq(res.code, 0, 'safetensors: exit 0');
}

// steps of at most 4 tokens: the matmuls' GEMV and the attention's decode
// path (Q <= 16 / (heads / kv_heads)), bit for bit the same in any crowd (on
// the sim also far faster than the GEMM)
const args = ['--model', model, '--device', device, '--chat-format', 'chatml',
  '--step-tokens', '4'];
const server = await L.startServer(exe, args);
try {
  const c = L.client(OpenAI, server.url);
  for (const [name, fn] of [['basics', part1], ['16 streams', part2], ['abort', part3],
    ['chat and prefix cache', part4]]) {
    const t = Date.now();
    await fn(c, server.url);
    console.log(`${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const m = await L.idle(server.url);
  L.eq(m.kgen_kv_blocks_in_use, 0, 'after all: no block in use');
  L.eq(m.kgen_kv_blocks_free + m.kgen_kv_blocks_cached, m.kgen_kv_blocks_total,
    'after all: every block free or cached');
} finally {
  const res = await L.stopServer(server);
  L.eq(res.code, 0, 'exit code');
  L.eq(res.inUse, 0, 'the stop line: no block in use');
}
const t = Date.now();
await part5(exe, args);
await part6(exe, args);
await part7(exe, args);
console.log(`SIGTERM: ${((Date.now() - t) / 1000).toFixed(1)} s`);
process.exit(L.summary('test_openai', t0));
