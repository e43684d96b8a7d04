//! The tests' tables: examples/llm/tiny_llama.lua (the main job's Llama) and
//! test/unit/external.lua (y = x * w + 1), for gfx1100 (run on the sim).
use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap()).join("../../..");
    kgen_build::Build::new(root.join("examples/llm/tiny_llama.lua"))
        .arch("gfx1100")
        .compile();
    kgen_build::Build::new(root.join("test/unit/external.lua"))
        .arch("gfx1100")
        .compile();
}
