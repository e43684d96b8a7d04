//! Links the static libkgrt.a of kgen's CMake build (or of an installed kgen)
//! and says where kgrt's headers are.
//!
//! - `KGRT_LIB_DIR`: the folder holding libkgrt.a (the CMake build folder);
//!   else `pkg-config --variable=libdir kgrt` (an installed kgen).
//! - `KGRT_INCLUDE_DIR`: the folder holding kgrt.h; else the source tree's
//!   runtime/ beside this crate, else pkg-config's includedir/kgrt.
//!
//! Gives dependents' build scripts `DEP_KGRT_INCLUDE` and `DEP_KGRT_LIB_DIR`,
//! and this crate's tests `KGRT_SYS_INCLUDE_DIR`.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pkg_config(var: &str) -> Option<PathBuf> {
    let out = Command::new("pkg-config")
        .args([&format!("--variable={}", var), "kgrt"])
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    if out.status.success() && !s.is_empty() {
        Some(PathBuf::from(s))
    } else {
        None
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=KGRT_LIB_DIR");
    println!("cargo:rerun-if-env-changed=KGRT_INCLUDE_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let lib_dir = match env::var_os("KGRT_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => pkg_config("libdir").unwrap_or_else(|| {
            panic!(
                "kgrt-sys: KGRT_LIB_DIR is not set and pkg-config knows no kgrt: set \
                 KGRT_LIB_DIR to the folder of kgen's CMake build that holds libkgrt.a \
                 (e.g. KGRT_LIB_DIR=$PWD/build after `cmake --build build --target kgrt`)"
            )
        }),
    };
    let lib = lib_dir.join("libkgrt.a");
    if !lib.is_file() {
        panic!(
            "kgrt-sys: {} not found: KGRT_LIB_DIR must name the folder holding libkgrt.a \
             (build it with `cmake --build <build> --target kgrt`)",
            lib.display()
        );
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let tree = manifest.join("../../../runtime");
    let include = match env::var_os("KGRT_INCLUDE_DIR") {
        Some(d) => PathBuf::from(d),
        None if tree.join("kgrt.h").is_file() => tree,
        None => pkg_config("includedir")
            .map(|d| d.join("kgrt"))
            .unwrap_or_else(|| {
                panic!("kgrt-sys: set KGRT_INCLUDE_DIR to the folder holding kgrt.h")
            }),
    };
    let include = include.canonicalize().unwrap_or(include);
    if !Path::new(&include).join("kgrt.h").is_file() {
        panic!(
            "kgrt-sys: {}/kgrt.h not found (KGRT_INCLUDE_DIR)",
            include.display()
        );
    }
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=static=kgrt");
    for l in ["dl", "pthread", "m"] {
        println!("cargo:rustc-link-lib=dylib={}", l);
    }
    println!("cargo:include={}", include.display());
    println!("cargo:lib_dir={}", lib_dir.display());
    println!("cargo:rustc-env=KGRT_SYS_INCLUDE_DIR={}", include.display());
}
