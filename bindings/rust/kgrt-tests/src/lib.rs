//! The tables the tests in tests/ run, built by kgen-build (build.rs).

/// examples/llm/tiny_llama.lua: a 2-layer Llama, bf16, context 256.
pub mod tiny_llama {
    include!(concat!(env!("OUT_DIR"), "/tiny_llama.rs"));
}

/// test/unit/external.lua: y = x * w + 1 over rows of 64, T rows.
pub mod external {
    include!(concat!(env!("OUT_DIR"), "/external.rs"));
}
