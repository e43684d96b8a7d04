//! kgrt-llm's table and text side: examples/llm/tiny_llama.lua built for
//! gfx1100 and gfx942 by kgen-build; src/text.c (the tokenizer glue) over
//! the CMake build's libllm_text.a, whose folder KGEN_LLM_TEXT_LIB_DIR
//! names (cmake --build <build> --target llm_text: examples/llm).
use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../../../..");
    kgen_build::Build::new(root.join("examples/llm/tiny_llama.lua"))
        .arches(["gfx1100", "gfx942"])
        .compile();
    let include =
        PathBuf::from(env::var_os("DEP_KGRT_INCLUDE").expect("kgrt-sys gives its include folder"));
    let llm = root.join("examples/llm");
    kgen_build::compile_c(
        "kgrt_llm_text",
        &[&manifest.join("src/text.c")],
        &[&llm, &include],
    )
    .unwrap_or_else(|e| panic!("kgrt-llm: {}", e));
    println!(
        "cargo:rerun-if-changed={}",
        llm.join("llm_tokenizer.h").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        llm.join("llm_utf8.h").display()
    );
    println!("cargo:rerun-if-env-changed=KGEN_LLM_TEXT_LIB_DIR");
    let dir = env::var_os("KGEN_LLM_TEXT_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
            "kgrt-llm: set KGEN_LLM_TEXT_LIB_DIR to the folder of the CMake build's libllm_text.a \
             (<build>/examples/llm after `cmake --build <build> --target llm_text`)"
        )
        });
    if !dir.join("libllm_text.a").is_file() {
        panic!(
            "kgrt-llm: {}/libllm_text.a not found (KGEN_LLM_TEXT_LIB_DIR)",
            dir.display()
        );
    }
    println!(
        "cargo:rerun-if-changed={}",
        dir.join("libllm_text.a").display()
    );
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=llm_text");
}
