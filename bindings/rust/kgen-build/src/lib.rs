//! kgen-build: compiles a kgen model into a crate from its `build.rs`.
//!
//! ```text
//! // build.rs
//! fn main() {
//!     kgen_build::Build::new("models/tiny_llama.lua").arch("gfx1100").compile();
//! }
//! // src/main.rs
//! mod tiny_llama {
//!     include!(concat!(env!("OUT_DIR"), "/tiny_llama.rs"));
//! }
//! // let model = device.load(tiny_llama::table())?;
//! ```
//!
//! [`Build::compile`] runs the `kgen` executable on the model for the
//! arches, compiles the generated C with the system C compiler (`$CC`,
//! default `cc`) into a static library `kgen_<model>` (`$AR`, default `ar`),
//! tells cargo to link it, and writes `$OUT_DIR/<model>.rs`: `table()` (the
//! `kgrt::Table<'static>`), `NAME`, `ARCHES` and the modules `dims`,
//! `inputs`, `weights` and `outputs` of typed constants
//! (`kgrt::SymDecl`, `kgrt::TensorDecl`), read from the generated table
//! itself by a small C program linked with it. It prints
//! `cargo:rerun-if-changed` for the model, its folder (what it may
//! `require`), each `--define`d file, and the kgen executable (which embeds
//! kgen's Lua library, templates and targets), and
//! `cargo:rerun-if-env-changed` for `KGEN`, `CC` and `AR`.
//!
//! kgen is [`Build::kgen`]'s path, else `$KGEN`, else `kgen` on `PATH`.
//! Nothing here comes from crates.io: processes and the standard library.
use std::env;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What went wrong, as one message (the command and what it printed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// A model to build.
#[derive(Clone, Debug)]
pub struct Build {
    model: PathBuf,
    arches: Vec<String>,
    kgen: Option<PathBuf>,
    args: Vec<String>,
    watch: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    link_kgrt: bool,
    cargo: bool,
}

/// What [`Build::run`] made.
#[derive(Clone, Debug)]
pub struct Built {
    /// The model's C identifier ("tiny_llama").
    pub name: String,
    /// The table's C symbol ("kgen_tiny_llama").
    pub symbol: String,
    /// The folder of kgen's output, the objects and the library.
    pub dir: PathBuf,
    /// The static library's name (`-l` form, "kgen_tiny_llama").
    pub lib: String,
    /// The generated Rust module.
    pub module: PathBuf,
    /// Every file the build depends on (the rerun-if-changed paths).
    pub inputs: Vec<PathBuf>,
}

impl Build {
    pub fn new(model: impl AsRef<Path>) -> Build {
        Build {
            model: model.as_ref().to_path_buf(),
            arches: Vec::new(),
            kgen: None,
            args: Vec::new(),
            watch: Vec::new(),
            out_dir: None,
            link_kgrt: false,
            cargo: true,
        }
    }

    /// Adds a target ("gfx1100", "gfx942", "sm_90").
    pub fn arch(&mut self, arch: &str) -> &mut Build {
        self.arches.push(arch.to_string());
        self
    }

    pub fn arches<'a>(&mut self, arches: impl IntoIterator<Item = &'a str>) -> &mut Build {
        for a in arches {
            self.arch(a);
        }
        self
    }

    /// The kgen executable to run.
    pub fn kgen(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.kgen = Some(path.as_ref().to_path_buf());
        self
    }

    /// `--define NAME=VALUE` (a value that names a file is watched too).
    pub fn define(&mut self, name: &str, value: &str) -> &mut Build {
        self.args.push("--define".into());
        self.args.push(format!("{}={}", name, value));
        if Path::new(value).is_file() {
            self.watch.push(PathBuf::from(value));
        }
        self
    }

    /// Any other kgen option ("--no-sim", "--compiler=clang").
    pub fn flag(&mut self, arg: &str) -> &mut Build {
        self.args.push(arg.to_string());
        self
    }

    /// Where the output goes (default `$OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Also link libkgrt.a from `$KGRT_LIB_DIR`, for a crate that uses its
    /// own FFI instead of the `kgrt` crate (which links it through kgrt-sys).
    pub fn link_kgrt(&mut self, yes: bool) -> &mut Build {
        self.link_kgrt = yes;
        self
    }

    /// Whether to print `cargo:` lines (default true; false outside build.rs).
    pub fn cargo_metadata(&mut self, yes: bool) -> &mut Build {
        self.cargo = yes;
        self
    }

    /// [`Build::run`], panicking with its message on failure (the usual
    /// ending of a build script).
    pub fn compile(&mut self) -> Built {
        match self.run() {
            Ok(b) => b,
            Err(e) => panic!("kgen-build: {}", e),
        }
    }

    /// Runs kgen, compiles and archives the table, writes the Rust module
    /// and prints the cargo lines.
    pub fn run(&self) -> Result<Built, Error> {
        if self.arches.is_empty() {
            return err(format!(
                "{}: no arch given (Build::arch)",
                self.model.display()
            ));
        }
        let model = fs::canonicalize(&self.model)
            .map_err(|e| Error(format!("{}: {}", self.model.display(), e)))?;
        let stem = model
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("model");
        let name = c_identifier(stem);
        let out = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| {
                Error("OUT_DIR is not set: run from build.rs or call out_dir".into())
            })?),
        };
        let dir = out.join("kgen").join(&name);
        let kgen = self.find_kgen()?;

        // 1 kgen: the table as C, per arch
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| Error(format!("{}: {}", dir.display(), e)))?;
        }
        fs::create_dir_all(&dir).map_err(|e| Error(format!("{}: {}", dir.display(), e)))?;
        let mut cmd = Command::new(&kgen);
        cmd.arg("--arch")
            .arg(self.arches.join(","))
            .args(&self.args)
            .arg(&model)
            .arg("-o")
            .arg(&dir);
        let listing = run(&mut cmd)?;
        fs::write(dir.join(format!("{}.kernels.txt", name)), listing).ok();
        let header = fs::read_to_string(dir.join(format!("{}.h", name))).map_err(|e| {
            Error(format!(
                "kgen wrote no {}.h in {}: {}",
                name,
                dir.display(),
                e
            ))
        })?;
        let symbol = header
            .lines()
            .find_map(|l| {
                l.strip_prefix("extern const kgrt_model_table_t ")
                    .and_then(|s| s.strip_suffix(';'))
            })
            .ok_or_else(|| {
                Error(format!(
                    "{}/{}.h declares no kgrt_model_table_t",
                    dir.display(),
                    name
                ))
            })?
            .to_string();

        // 2 the system C compiler: objects, a static library
        let cc = tool("CC", "cc");
        let mut sources = vec![dir.join(format!("{}.c", name))];
        for a in &self.arches {
            sources.push(dir.join(format!("{}_{}.c", name, a)));
        }
        let mut objects = Vec::new();
        for src in &sources {
            let obj = src.with_extension("o");
            run(Command::new(&cc)
                .args(["-std=c11", "-O1", "-fPIC", "-c", "-I"])
                .arg(&dir)
                .arg("-o")
                .arg(&obj)
                .arg(src))?;
            objects.push(obj);
        }
        let lib = format!("kgen_{}", name);
        let archive = dir.join(format!("lib{}.a", lib));
        run(Command::new(tool("AR", "ar"))
            .arg("crs")
            .arg(&archive)
            .args(&objects))?;

        // 3 the Rust module, printed by a C program linked with the table
        let printer = dir.join("kgen_build_print.c");
        fs::write(
            &printer,
            PRINTER
                .replace("@HEADER@", &format!("{}.h", name))
                .replace("@SYMBOL@", &symbol),
        )
        .map_err(|e| Error(format!("{}: {}", printer.display(), e)))?;
        let exe = dir.join("kgen_build_print");
        run(Command::new(&cc)
            .args(["-std=c11", "-O0", "-I"])
            .arg(&dir)
            .arg("-o")
            .arg(&exe)
            .arg(&printer)
            .args(&objects))?;
        let mut module = format!(
            "// Generated by kgen-build from {}.lua for {}; do not edit.\n",
            name,
            self.arches.join(", ")
        );
        module.push_str(&run(&mut Command::new(&exe))?);
        module.push_str(&format!(
            "\nextern \"C\" {{\n    #[link_name = \"{sym}\"]\n    static TABLE: kgrt::sys::kgrt_model_table_t;\n}}\n\n\
             /// The kernel table kgen built (static data, linked from lib{lib}.a).\n\
             #[allow(dead_code)]\npub fn table() -> kgrt::Table<'static> {{\n    \
             // SAFETY: a table kgen generated, linked into this program.\n    \
             unsafe {{ kgrt::Table::from_raw(&*std::ptr::addr_of!(TABLE)) }}\n}}\n",
            sym = symbol,
            lib = lib
        ));
        let module_path = out.join(format!("{}.rs", name));
        fs::write(&module_path, module)
            .map_err(|e| Error(format!("{}: {}", module_path.display(), e)))?;

        // 4 what cargo must know
        let mut inputs = vec![model.clone()];
        if let Some(folder) = model.parent() {
            inputs.push(folder.to_path_buf());
        }
        inputs.extend(self.watch.iter().cloned());
        inputs.push(kgen.clone());
        if self.cargo {
            for p in &inputs {
                println!("cargo:rerun-if-changed={}", p.display());
            }
            for v in ["KGEN", "CC", "AR"] {
                println!("cargo:rerun-if-env-changed={}", v);
            }
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static={}", lib);
            if self.link_kgrt {
                println!("cargo:rerun-if-env-changed=KGRT_LIB_DIR");
                let d = env::var("KGRT_LIB_DIR").map_err(|_| {
                    Error(
                        "link_kgrt: KGRT_LIB_DIR is not set (the folder holding libkgrt.a)".into(),
                    )
                })?;
                println!("cargo:rustc-link-search=native={}", d);
                println!("cargo:rustc-link-lib=static=kgrt");
                for l in ["dl", "pthread", "m"] {
                    println!("cargo:rustc-link-lib=dylib={}", l);
                }
            }
        }
        Ok(Built {
            name,
            symbol,
            dir,
            lib,
            module: module_path,
            inputs,
        })
    }

    /// The kgen executable: given, $KGEN, or found on PATH (an absolute path,
    /// so that cargo can watch it).
    fn find_kgen(&self) -> Result<PathBuf, Error> {
        if let Some(k) = &self.kgen {
            return Ok(k.clone());
        }
        if let Some(k) = env::var_os("KGEN") {
            return Ok(PathBuf::from(k));
        }
        let path = env::var_os("PATH").unwrap_or_default();
        env::split_paths(&path)
            .map(|d| d.join("kgen"))
            .find(|p| p.is_file())
            .ok_or_else(|| Error("no kgen: give Build::kgen, set KGEN, or put kgen on PATH".into()))
    }
}

fn tool(var: &str, default: &str) -> OsString {
    env::var_os(var).unwrap_or_else(|| default.into())
}

/// Runs a command; its stdout, or an error with the command and its stderr.
fn run(cmd: &mut Command) -> Result<String, Error> {
    let out = cmd
        .output()
        .map_err(|e| Error(format!("cannot run {:?}: {}", cmd, e)))?;
    if !out.status.success() {
        return err(format!(
            "{:?} failed ({}):\n{}",
            cmd,
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A file stem as a C identifier, as kgen and CMake's kgen_add_model name
/// the generated files: every byte outside [A-Za-z0-9_] is '_', and a
/// leading digit gets a '_' before it.
pub fn c_identifier(stem: &str) -> String {
    let mut s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The C program that prints a table's interface as Rust constants. It
/// reads the table kgen wrote (one source of truth), so it needs no parser
/// of kgen's output; names are C identifiers, which Rust accepts upper-cased.
const PRINTER: &str = r#"#include <ctype.h>
#include <stdio.h>
#include "@HEADER@"

static const char *dtype(kgrt_dtype_t d) {
  static const char *const names[] = {"F32", "F16", "BF16", "I32", "Q8_0", "Q4_0", "Q4_K", "Q6_K"};
  return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "F32 /* unknown */";
}

static void upper(const char *s) {
  for (; *s; ++s)
    putchar(toupper((unsigned char)*s));
}

static void tensors(const char *mod, const char *what, const kgrt_tensor_info_t *t, unsigned n,
                    const kgrt_model_table_t *m) {
  printf("\n/// The table's %s.\n#[allow(dead_code)]\npub mod %s {\n    #[allow(unused_imports)]\n    use kgrt::{Dtype, Extent, TensorDecl};\n", what, mod);
  for (unsigned i = 0; i < n; ++i) {
    printf("    /// %s%s\n    pub const ", t[i].name, t[i].flags & KGRT_TENSOR_STATE ? " (state)" : "");
    upper(t[i].name);
    printf(": TensorDecl = TensorDecl { name: \"%s\", dtype: Dtype::%s, shape: &[", t[i].name, dtype(t[i].dtype));
    for (unsigned d = 0; d < t[i].rank && d < KGRT_MAX_DIMS; ++d) {
      if (t[i].dims[d].sym >= 0 && (unsigned)t[i].dims[d].sym < m->num_syms)
        printf("%sExtent::Sym(\"%s\")", d ? ", " : "", m->syms[t[i].dims[d].sym].name);
      else
        printf("%sExtent::Const(%lld)", d ? ", " : "", (long long)t[i].dims[d].value);
    }
    printf("], state: %s };\n", t[i].flags & KGRT_TENSOR_STATE ? "true" : "false");
  }
  printf("}\n");
}

int main(void) {
  const kgrt_model_table_t *m = &@SYMBOL@;
  printf("\n/// The model's name.\n#[allow(dead_code)]\npub const NAME: &str = \"%s\";\n", m->name);
  printf("/// The arches built into the table.\n#[allow(dead_code)]\npub const ARCHES: &[&str] = &[");
  for (unsigned i = 0; i < m->num_arches; ++i)
    printf("%s\"%s\"", i ? ", " : "", m->arches[i]->arch);
  printf("];\n\n/// The table's run-time dims and their maxima.\n#[allow(dead_code)]\npub mod dims {\n    #[allow(unused_imports)]\n    use kgrt::SymDecl;\n");
  for (unsigned i = 0; i < m->num_syms; ++i) {
    printf("    /// 1 ..= %lld\n    pub const ", (long long)m->syms[i].max);
    upper(m->syms[i].name);
    printf(": SymDecl = SymDecl { name: \"%s\", max: %lld };\n", m->syms[i].name, (long long)m->syms[i].max);
  }
  printf("}\n");
  tensors("inputs", "inputs", m->inputs, m->num_inputs, m);
  tensors("weights", "weights", m->weights, m->num_weights, m);
  tensors("outputs", "outputs", m->outputs, m->num_outputs, m);
  return 0;
}
"#;

/// Compiles C `sources` (with `includes`) into a static library `lib` in
/// `$OUT_DIR` with the system C compiler and tells cargo to link it and to
/// rerun when a source changes: for a crate's own C glue beside a table.
pub fn compile_c(lib: &str, sources: &[&Path], includes: &[&Path]) -> Result<PathBuf, Error> {
    let out = PathBuf::from(
        env::var_os("OUT_DIR")
            .ok_or_else(|| Error("OUT_DIR is not set: run from build.rs".into()))?,
    );
    let dir = out.join("c").join(lib);
    fs::create_dir_all(&dir).map_err(|e| Error(format!("{}: {}", dir.display(), e)))?;
    let cc = tool("CC", "cc");
    let mut objects = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let obj = dir.join(format!(
            "{}_{}.o",
            i,
            src.file_stem().and_then(|s| s.to_str()).unwrap_or("src")
        ));
        let mut cmd = Command::new(&cc);
        cmd.args([
            "-std=c11",
            "-O2",
            "-fPIC",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-D_GNU_SOURCE",
            "-c",
        ]);
        for inc in includes {
            cmd.arg("-I").arg(inc);
        }
        run(cmd.arg("-o").arg(&obj).arg(src))?;
        println!("cargo:rerun-if-changed={}", src.display());
        objects.push(obj);
    }
    let archive = dir.join(format!("lib{}.a", lib));
    let _ = fs::remove_file(&archive);
    run(Command::new(tool("AR", "ar"))
        .arg("crs")
        .arg(&archive)
        .args(&objects))?;
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static={}", lib);
    Ok(archive)
}
