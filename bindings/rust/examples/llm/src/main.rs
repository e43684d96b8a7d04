//! kgrt-llm: examples/llm/llm.c's whole-model path in Rust on the safe API.
//! It loads the tiny Llama's weights (GGUF) into the table kgen-build built
//! from examples/llm/tiny_llama.lua, encodes the prompt with the file's own
//! tokenizer (examples/llm's, through src/text.c), prefills it in chunks of
//! the table's T, then decodes greedily, one run a token as llm.c does, or
//! with --device-loop as one kgrt device loop (the sampled token and the
//! position linked on the device, the tokens read back once). stdout is the
//! text llm.c prints for the same file and prompt; the summary goes to
//! stderr. Errors are one line and exit code 1.
//!
//!   kgrt-llm [--device SPEC] [--prompt TEXT | --tokens ID,...] [-n N]
//!            [--device-loop] MODEL.gguf
use std::io::Write;
use std::os::raw::{c_char, c_int};
use std::process::ExitCode;
use std::time::Instant;

mod tiny_llama {
    include!(concat!(env!("OUT_DIR"), "/tiny_llama.rs"));
}

#[repr(C)]
struct Text {
    _private: [u8; 0],
}

extern "C" {
    fn kgrt_llm_text_new(
        w: *const kgrt_sys::kgrt_weights_t,
        why: *mut c_char,
        size: usize,
    ) -> *mut Text;
    fn kgrt_llm_text_free(t: *mut Text);
    fn kgrt_llm_text_encode(
        t: *const Text,
        text: *const c_char,
        len: usize,
        ids: *mut i32,
        cap: c_int,
    ) -> c_int;
    fn kgrt_llm_text_is_eog(t: *const Text, id: i32) -> c_int;
    fn kgrt_llm_text_put(t: *mut Text, id: i32, out: *mut c_char, cap: usize) -> usize;
    fn kgrt_llm_text_flush(t: *mut Text, out: *mut c_char, cap: usize) -> usize;
}

const MAX_PROMPT: usize = 4096;
const PUT_CAP: usize = 3 * 1024 + 4;

/// The file's tokenizer (examples/llm/llm_tokenizer.c), freed when dropped.
struct Tokenizer {
    raw: *mut Text,
}

impl Tokenizer {
    fn load(w: &kgrt::Weights) -> Result<Tokenizer, String> {
        let mut why = [0 as c_char; 256];
        // SAFETY: valid weights and buffer.
        let raw = unsafe { kgrt_llm_text_new(w.as_raw(), why.as_mut_ptr(), why.len()) };
        if raw.is_null() {
            let bytes: Vec<u8> = why
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            return Err(String::from_utf8_lossy(&bytes).into_owned());
        }
        Ok(Tokenizer { raw })
    }

    fn encode(&self, text: &str) -> Option<Vec<i32>> {
        let mut ids = vec![0i32; MAX_PROMPT];
        // SAFETY: text's bytes and room for MAX_PROMPT ids.
        let n = unsafe {
            kgrt_llm_text_encode(
                self.raw,
                text.as_ptr() as *const c_char,
                text.len(),
                ids.as_mut_ptr(),
                MAX_PROMPT as c_int,
            )
        };
        if n <= 0 {
            return None;
        }
        ids.truncate(n as usize);
        Some(ids)
    }

    fn is_eog(&self, id: i32) -> bool {
        // SAFETY: valid tokenizer.
        unsafe { kgrt_llm_text_is_eog(self.raw, id) != 0 }
    }

    /// Token id's text, as llm.c's put_token writes it.
    fn put(&mut self, id: i32, out: &mut impl Write) {
        let mut buf = [0 as c_char; PUT_CAP];
        // SAFETY: a buffer of PUT_CAP bytes.
        let n = unsafe { kgrt_llm_text_put(self.raw, id, buf.as_mut_ptr(), buf.len()) };
        let bytes: Vec<u8> = buf[..n].iter().map(|&c| c as u8).collect();
        out.write_all(&bytes).ok();
    }

    fn flush(&mut self, out: &mut impl Write) {
        let mut buf = [0 as c_char; 4];
        // SAFETY: a buffer of 4 bytes.
        let n = unsafe { kgrt_llm_text_flush(self.raw, buf.as_mut_ptr(), buf.len()) };
        let bytes: Vec<u8> = buf[..n].iter().map(|&c| c as u8).collect();
        out.write_all(&bytes).ok();
    }
}

impl Drop for Tokenizer {
    fn drop(&mut self) {
        // SAFETY: not used after this.
        unsafe { kgrt_llm_text_free(self.raw) }
    }
}

struct Args {
    device: String,
    prompt: Option<String>,
    tokens: Option<String>,
    n: usize,
    device_loop: bool,
    path: String,
}

const USAGE: &str = "usage: kgrt-llm [--device SPEC] [--prompt TEXT | --tokens ID,...] [-n N] [--device-loop] MODEL.gguf";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        device: "sim:gfx1100".into(),
        prompt: None,
        tokens: None,
        n: 32,
        device_loop: false,
        path: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--device" => a.device = it.next().ok_or(USAGE)?,
            "--prompt" => a.prompt = Some(it.next().ok_or(USAGE)?),
            "--tokens" => a.tokens = Some(it.next().ok_or(USAGE)?),
            "--device-loop" => a.device_loop = true,
            "-n" => {
                let v = it.next().ok_or(USAGE)?;
                a.n = match v.parse::<usize>() {
                    Ok(n) if (1..=1 << 20).contains(&n) => n,
                    _ => return Err(format!("-n takes a count from 1 to {}, got {}", 1 << 20, v)),
                };
            }
            _ if arg.starts_with('-') || !a.path.is_empty() => return Err(USAGE.into()),
            _ => a.path = arg,
        }
    }
    if a.path.is_empty() || (a.prompt.is_some() && a.tokens.is_some()) {
        return Err(USAGE.into());
    }
    Ok(a)
}

/// Runs tokens at positions pos0.. and gives the next token.
fn run(m: &mut kgrt::Model, tokens: &[i32], pos0: usize) -> kgrt::Result<i32> {
    let t = tokens.len();
    let pos: Vec<i32> = (pos0..pos0 + t).map(|p| p as i32).collect();
    m.set_dim("T", t as i64)?;
    m.set_dim("S", (pos0 + t) as i64)?;
    m.set_input("tokens", tokens)?;
    m.set_input("pos", &pos)?;
    m.set_input("last", &[t as i32 - 1])?;
    m.set_input("seed", &[0i32])?;
    // temperature 0: the argmax (top_k 0, top_p 1, min_p 0: off)
    m.set_input("params", &[0f32, 0.0, 1.0, 0.0])?;
    m.run()?;
    let mut next = [0i32];
    m.get_output("next_token", &mut next)?;
    Ok(next[0])
}

fn generate(a: &Args) -> Result<(), String> {
    let weights = kgrt::Weights::open(&a.path).map_err(|e| e.message)?;
    let mut tok = match Tokenizer::load(&weights) {
        Ok(t) => Some(t),
        Err(why) if a.tokens.is_some() => {
            let _ = why;
            None
        }
        Err(why) => {
            return Err(format!(
                "{}: {}; give the prompt with --tokens",
                a.path, why
            ))
        }
    };
    let ids: Vec<i32> = match &a.tokens {
        Some(list) => list
            .split(',')
            .map(|s| s.parse::<i32>().ok().filter(|&v| v >= 0))
            .collect::<Option<Vec<_>>>()
            .filter(|v| !v.is_empty() && v.len() <= MAX_PROMPT)
            .ok_or_else(|| format!("--tokens takes ids separated by commas, got '{}'", list))?,
        None => {
            let text = a.prompt.as_deref().unwrap_or("Once upon a time");
            tok.as_ref().unwrap().encode(text).ok_or_else(|| {
                format!(
                    "{}: the tokenizer cannot encode the prompt; give --tokens",
                    a.path
                )
            })?
        }
    };
    let table = tiny_llama::table();
    let (t_max, s_max) = (
        tiny_llama::dims::T.max as usize,
        tiny_llama::dims::S.max as usize,
    );
    if let Ok(vocab) = weights.vocab_size() {
        if let Some(&bad) = ids.iter().find(|&&id| id as i64 >= vocab) {
            return Err(format!(
                "token id {} is past the vocabulary ({})",
                bad, vocab
            ));
        }
    }
    if ids.len() >= s_max {
        return Err(format!(
            "the prompt's {} tokens do not fit the table's context of {}",
            ids.len(),
            s_max
        ));
    }

    let device = kgrt::Device::open(&a.device).map_err(|e| e.message)?;
    let mut m = device
        .load(table)
        .map_err(|e| format!("{}: {}", a.path, e.message))?;
    m.bind_weights(&weights, false)
        .map_err(|e| format!("{}: {}", a.path, e.message))?;
    let mem = m.memory();
    eprintln!(
        "kgrt-llm: {} on {}: {:.1} MB (weights {:.1} MB, KV cache {:.1} MB)",
        table.name(),
        device.name(),
        mem.total as f64 / 1e6,
        mem.weights as f64 / 1e6,
        mem.state as f64 / 1e6
    );

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(t) = tok.as_mut() {
        for &id in &ids {
            t.put(id, &mut out);
        }
    }
    out.flush().ok();
    let t0 = Instant::now();
    let mut next = 0;
    for at in (0..ids.len()).step_by(t_max) {
        let end = (at + t_max).min(ids.len());
        next = run(&mut m, &ids[at..end], at).map_err(|e| e.message)?;
    }
    let prefill = t0.elapsed().as_secs_f64();

    // the generated tokens, the first from the prefill
    let t0 = Instant::now();
    let budget = a.n.min(s_max - ids.len());
    let mut made = vec![next];
    if a.device_loop && budget > 1 {
        m.set_dim("T", 1).map_err(|e| e.message)?;
        m.set_dim("S", ids.len() as i64 + 1)
            .map_err(|e| e.message)?;
        m.set_input("tokens", &[next]).map_err(|e| e.message)?;
        m.set_input("pos", &[ids.len() as i32])
            .map_err(|e| e.message)?;
        m.set_input("last", &[0i32]).map_err(|e| e.message)?;
        m.link("next_token", "tokens").map_err(|e| e.message)?;
        m.link("next_pos", "pos").map_err(|e| e.message)?;
        m.step_dim("S", 1).map_err(|e| e.message)?;
        let mut rest = vec![0i32; budget - 1];
        m.run_steps_collect(rest.len() as u32, "next_token", &mut rest)
            .map_err(|e| e.message)?;
        made.extend(rest);
    } else {
        while made.len() < budget
            && !tok
                .as_ref()
                .map_or(false, |t| t.is_eog(*made.last().unwrap()))
        {
            let pos = ids.len() + made.len() - 1;
            made.push(run(&mut m, &[*made.last().unwrap()], pos).map_err(|e| e.message)?);
        }
    }
    // stop where llm.c stops: after an end-of-generation token
    if let Some(t) = tok.as_ref() {
        if let Some(i) = made.iter().position(|&id| t.is_eog(id)) {
            made.truncate(i + 1);
        }
    }
    let gen = t0.elapsed().as_secs_f64();
    match tok.as_mut() {
        Some(t) => {
            for &id in &made {
                t.put(id, &mut out);
            }
            t.flush(&mut out);
        }
        None => {
            let list: Vec<String> = made.iter().map(|id| id.to_string()).collect();
            out.write_all(list.join(",").as_bytes()).ok();
        }
    }
    writeln!(out).ok();
    out.flush().ok();
    eprintln!(
        "kgrt-llm: prompt {} tokens ({:.2} s); generated {} tokens ({:.2} s, {})",
        ids.len(),
        prefill,
        made.len(),
        gen,
        if a.device_loop {
            "device loop"
        } else {
            "a run a token"
        }
    );
    Ok(())
}

fn main() -> ExitCode {
    let r = parse_args().and_then(|a| generate(&a));
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kgrt-llm: {}", e);
            ExitCode::from(1)
        }
    }
}
