//! The safe API on the sim: the tiny Llama loaded, its weights bound from
//! the GGUF file make_tiny_llama writes ($KGEN_TINY_GGUF), a prefill and a
//! greedy decode driven from the host and again as a device loop (the same
//! tokens), profiles and timing; the caller's memory as an input and an
//! output; the paged KV pool and batch; and every error path, each an Err
//! carrying kgrt's status and message.
use kgrt::{Batch, Device, Dtype, Error, Extent, KvPool, Sampling, Status, Weights};
use kgrt_tests::{external, tiny_llama};

fn gguf() -> String {
    std::env::var("KGEN_TINY_GGUF").expect(
        "KGEN_TINY_GGUF must name the tiny Llama's GGUF file (make_tiny_llama OUT.gguf; ctest sets it)",
    )
}

/// The error's status, and that its message holds `part`.
fn expect_err<T: std::fmt::Debug>(r: Result<T, Error>, status: Status, part: &str) {
    match r {
        Ok(v) => panic!("expected {:?} ({}), got Ok({:?})", status, part, v),
        Err(e) => {
            assert_eq!(e.status, status, "{}", e);
            assert!(
                e.message.contains(part),
                "message {:?} lacks {:?}",
                e.message,
                part
            );
            assert!(e.to_string().starts_with(status.name()), "{}", e);
        }
    }
}

/// Prefill `prompt`, then `n` greedy tokens one run each, as llm.c does.
fn decode_host(m: &mut kgrt::Model, prompt: &[i32], n: usize) -> Vec<i32> {
    let run = |m: &mut kgrt::Model, toks: &[i32], pos0: i32| -> i32 {
        let t = toks.len() as i64;
        m.set_dim("T", t).unwrap();
        m.set_dim("S", pos0 as i64 + t).unwrap();
        let pos: Vec<i32> = (0..toks.len() as i32).map(|i| pos0 + i).collect();
        m.set_input("tokens", toks).unwrap();
        m.set_input("pos", &pos).unwrap();
        m.set_input("last", &[t as i32 - 1]).unwrap();
        m.set_input("seed", &[0i32]).unwrap();
        m.set_input("params", &[0f32, 0.0, 1.0, 0.0]).unwrap(); // greedy
        m.run().unwrap();
        m.output::<i32>("next_token").unwrap()[0]
    };
    let mut next = run(m, prompt, 0);
    let mut out = vec![next];
    for k in 0..n - 1 {
        next = run(m, &[next], prompt.len() as i32 + k as i32);
        out.push(next);
    }
    out
}

#[test]
fn generated_module_is_the_table() {
    let t = tiny_llama::table();
    assert_eq!(t.name(), tiny_llama::NAME);
    assert_eq!(t.arches(), tiny_llama::ARCHES.to_vec());
    assert_eq!(tiny_llama::dims::T.max, t.sym_max("T").unwrap());
    assert_eq!(tiny_llama::dims::S.max, 256);
    assert_eq!(tiny_llama::inputs::TOKENS.dtype, Dtype::I32);
    assert_eq!(tiny_llama::inputs::TOKENS.shape, &[Extent::Sym("T")]);
    assert!(tiny_llama::inputs::K_CACHE.state);
    assert_eq!(
        tiny_llama::weights::TOKEN_EMBD_WEIGHT.shape,
        &[Extent::Const(1000), Extent::Const(256)]
    );
    assert_eq!(tiny_llama::outputs::LOGITS.dtype, Dtype::F32);
    let names: Vec<String> = t.outputs().into_iter().map(|o| o.name).collect();
    assert_eq!(names, ["logits", "next_token", "next_pos"]);
    assert_eq!(t.weights().len(), 21);
}

#[test]
fn llama_on_the_sim_host_loop_and_device_loop_agree() {
    let w = Weights::open(gguf()).unwrap();
    assert_eq!(w.meta_string("general.architecture").unwrap(), b"llama");
    assert_eq!(w.vocab_size().unwrap(), 1000);
    assert_eq!(w.find("token_embd.weight").unwrap().shape, &[1000, 256]);
    assert_eq!(w.meta_strings("tokenizer.ggml.tokens").unwrap().len(), 1000);
    assert!(w.iter().count() >= 21);

    let dev = Device::open("sim:gfx1100").unwrap();
    assert_eq!(dev.name(), "sim:gfx1100");
    let need = dev.memory(tiny_llama::table()).unwrap();
    let mut m = dev.load(tiny_llama::table()).unwrap();
    assert_eq!(m.arch(), "gfx1100");
    assert_eq!(m.memory(), need);
    assert!(need.weights > 4_000_000 && need.state > 0, "{:?}", need);
    m.bind_weights(&w, false).unwrap();
    drop(w); // bound: the file may go

    let prompt = [1, 17, 423, 99, 5];
    let host = decode_host(&mut m, &prompt, 12);
    assert!(host.iter().all(|&t| (0..1000).contains(&t)), "{:?}", host);
    assert!(m.replay(), "the sim replays graphs by default");

    // the same from the device loop: the first token from a prefill, the
    // rest linked on the device, collected once
    m.reset_state().unwrap();
    let first = decode_host(&mut m, &prompt, 1)[0];
    assert_eq!(first, host[0]);
    m.set_dim("T", 1).unwrap();
    m.set_dim("S", prompt.len() as i64 + 1).unwrap();
    m.set_input("tokens", &[first]).unwrap();
    m.set_input("pos", &[prompt.len() as i32]).unwrap();
    m.set_input("last", &[0i32]).unwrap();
    m.link("next_token", "tokens").unwrap();
    m.link("next_pos", "pos").unwrap();
    m.step_dim("S", 1).unwrap();
    let mut looped = vec![0i32; 11];
    m.run_steps_collect(11, "next_token", &mut looped).unwrap();
    assert_eq!(
        &looped[..],
        &host[1..],
        "device loop {:?} vs host {:?}",
        looped,
        host
    );
    m.clear_links();

    let prof = m.profile(1).unwrap();
    assert!(
        prof.iter()
            .any(|p| p.launched && p.workgroups > 0 && p.us > 0.0 && !p.kernel.is_empty()),
        "{:?}",
        prof
    );
    assert!(m.time(0, 2).unwrap() > 0.0);

    // its errors
    expect_err(m.set_dim("nope", 1), Status::NotFound, "has no dim nope");
    expect_err(
        m.set_dim("T", 0),
        Status::OutOfRange,
        "dim T = 0 is out of range 1..64",
    );
    expect_err(
        m.set_input("tokens", &[1i32, 2]),
        Status::OutOfRange,
        "input tokens is 4 bytes",
    );
    expect_err(
        m.set_input("nope", &[1i32]),
        Status::NotFound,
        "has no input nope",
    );
    expect_err(
        m.get_output("logits", &mut [0f32; 3]),
        Status::OutOfRange,
        "output logits is 4000 bytes",
    );
    expect_err(
        m.output::<f32>("nope"),
        Status::NotFound,
        "has no tensor nope",
    );
    expect_err(m.link("nope", "tokens"), Status::NotFound, "nope");
    expect_err(
        m.run_steps_collect(2, "next_token", &mut [0i32; 3]),
        Status::OutOfRange,
        "",
    );
    expect_err(m.set_dim("T\0x", 1), Status::InvalidArgument, "NUL byte");
    m.set_dim("T", 2).unwrap(); // tokens was bound at T = 1
    expect_err(m.run(), Status::FailedPrecondition, "bind it again");
    expect_err(
        m.get_output("next_token", &mut [0i32; 1]),
        Status::FailedPrecondition,
        "before a run",
    );
    expect_err(
        unsafe { m.bind_device("k_cache", std::ptr::null_mut(), 0) },
        Status::InvalidArgument,
        "NULL",
    );
}

#[test]
fn device_and_weights_errors() {
    expect_err(
        Device::open("tpu:0"),
        Status::InvalidArgument,
        "unknown device",
    );
    expect_err(
        Device::open("auto:1"),
        Status::InvalidArgument,
        "auto takes no ':' part",
    );
    let auto = Device::open("auto").unwrap();
    let gpu = Device::open("cuda").is_ok() || Device::open("hip").is_ok();
    assert!(gpu || auto.name() == "sim", "auto chose {}", auto.name());
    let dev = Device::open("sim:gfx942").unwrap();
    expect_err(
        dev.load(tiny_llama::table()),
        Status::NoMatchingArch,
        "built for gfx1100; device is gfx942",
    );
    expect_err(
        Weights::open("/nonexistent/model.gguf"),
        Status::NotFound,
        "/nonexistent/model.gguf",
    );
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    expect_err(
        Weights::open(manifest),
        Status::InvalidArgument,
        "Cargo.toml",
    );
    // the tiny Llama's file has no weight w
    let w = Weights::open(gguf()).unwrap();
    let dev = Device::open("sim:gfx1100").unwrap();
    let mut m = dev.load(external::table()).unwrap();
    expect_err(m.bind_weights(&w, false), Status::NotFound, "w");
    expect_err(m.run(), Status::FailedPrecondition, "dim T is not set");
    expect_err(m.time(0, 1), Status::FailedPrecondition, "dim T is not set");
}

/// 256-byte aligned f32 memory, as kgrt_model_bind_device wants.
struct Aligned {
    ptr: *mut f32,
    n: usize,
}

impl Aligned {
    fn new(n: usize) -> Aligned {
        let layout = std::alloc::Layout::from_size_align(n * 4, 256).unwrap();
        // SAFETY: a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut f32;
        assert!(!ptr.is_null());
        Aligned { ptr, n }
    }
    fn slice(&mut self) -> &mut [f32] {
        // SAFETY: n initialised floats.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.n) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::from_size_align(self.n * 4, 256).unwrap();
        // SAFETY: allocated with this layout.
        unsafe { std::alloc::dealloc(self.ptr as *mut u8, layout) }
    }
}

#[test]
fn callers_memory_is_read_and_written_in_place() {
    let dev = Device::open("sim:gfx1100").unwrap();
    let mut m = dev.load(external::table()).unwrap();
    let w: Vec<f32> = (0..64).map(|c| 0.5 + c as f32 / 64.0).collect();
    m.set_weight(external::weights::W.name, &w).unwrap();
    m.set_dim(external::dims::T.name, 3).unwrap();
    let mut x = Aligned::new(3 * 64);
    let mut y = Aligned::new(3 * 64);
    // SAFETY: host memory on the sim, alive until the model is dropped.
    unsafe {
        m.bind_device("x", x.ptr as *mut _, 3 * 64 * 4).unwrap();
        m.bind_device("y", y.ptr as *mut _, 3 * 64 * 4).unwrap();
    }
    for (i, v) in x.slice().iter_mut().enumerate() {
        *v = i as f32 * 0.125 - 7.0;
    }
    m.run().unwrap();
    m.wait().unwrap();
    let xs = x.slice().to_vec();
    for (i, v) in y.slice().iter().enumerate() {
        assert_eq!(*v, xs[i] * w[i % 64] + 1.0, "y[{}]", i);
    }
    expect_err(
        unsafe { m.bind_device("y", (y.ptr as *mut u8).add(4) as *mut _, 3 * 64 * 4) },
        Status::InvalidArgument,
        "not aligned",
    );
    expect_err(
        unsafe { m.bind_device("y", y.ptr as *mut _, 64) },
        Status::OutOfRange,
        "768 bytes",
    );
    expect_err(
        unsafe { m.bind_device("w", y.ptr as *mut _, 256) },
        Status::InvalidArgument,
        "is a weight",
    );
    m.unbind_device("y").unwrap();
    m.unbind_device("x").unwrap();
    expect_err(m.run(), Status::FailedPrecondition, "input x is not bound");
    drop(m);
}

#[test]
fn kv_pool_and_batch() {
    let pool = KvPool::new(8, 16, 4).unwrap();
    assert_eq!(
        (pool.free_blocks(), pool.block_size(), pool.max_blocks()),
        (8, 16, 4)
    );
    let mut a = pool.seq().unwrap();
    a.reserve(40).unwrap();
    assert_eq!(a.blocks().len(), 3);
    assert_eq!(a.capacity(), 48);
    assert_eq!(pool.free_blocks(), 5);
    let b = a.fork(32).unwrap();
    assert_eq!(b.shared(), 32);
    assert_eq!(b.blocks(), &a.blocks()[..2]);
    expect_err(a.reserve(80), Status::OutOfRange, "");
    let mut batch = Batch::new(&pool, 8, 2).unwrap();
    let row = batch
        .add(&a, &[1, 2, 3], 37, Some(&Sampling::default()))
        .unwrap();
    assert_eq!(row, 0);
    assert_eq!((batch.tokens(), batch.sequences()), (3, 1));
    expect_err(batch.add(&a, &[4], 40, None), Status::InvalidArgument, "");
    expect_err(batch.add(&b, &[], 32, None), Status::InvalidArgument, "");
    // a table without a batch's dims
    let dev = Device::open("sim:gfx1100").unwrap();
    let mut m = dev.load(external::table()).unwrap();
    assert!(batch.bind(&mut m).is_err());
    batch.clear();
    expect_err(batch.bind(&mut m), Status::FailedPrecondition, "");
    drop(b);
    drop(a);
    assert_eq!(pool.free_blocks(), 8);
}
