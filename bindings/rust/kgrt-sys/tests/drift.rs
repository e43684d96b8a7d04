//! drift: kgrt-sys against kgrt's headers, as the system C compiler sees them.
//!
//! From the records kgrt-sys keeps of its declarations (FUNCTIONS, CONSTANTS,
//! TYPES, STRUCTS, OPAQUE) this writes a C program that includes the headers
//! and prints every constant's value, every type's size and alignment and
//! every struct field's offset and size, and asserts (at compile time) that
//! each function's type equals the one Rust declares. It compiles and runs
//! it with `$CC` (default `cc`) and compares with Rust's own view; and it
//! reads the headers for the names they declare (functions, constants,
//! enums, structs and their fields, opaque types), which must be exactly
//! those kgrt-sys declares. Any difference fails the test with a list of
//! every one of them.
use kgrt_sys as sys;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const HEADERS: &[&str] = &[
    "kgrt_alloc.h",
    "kgrt_table.h",
    "kgrt.h",
    "kgrt_weights.h",
    "kgrt_paged.h",
];

fn include_dir() -> PathBuf {
    PathBuf::from(env!("KGRT_SYS_INCLUDE_DIR"))
}

/// The text with comments removed and continued lines joined.
fn clean(text: &str) -> String {
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out.replace("\\\n", " ")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifiers of s, in order.
fn idents(s: &str) -> Vec<String> {
    s.split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty() && !w.as_bytes()[0].is_ascii_digit())
        .map(String::from)
        .collect()
}

/// What the headers declare.
#[derive(Default)]
struct Declared {
    functions: BTreeSet<String>,
    constants: BTreeSet<String>,
    enums: BTreeSet<String>,
    structs: Vec<(String, Vec<String>)>,
    opaque: BTreeSet<String>,
}

fn parse_header(text: &str, d: &mut Declared) {
    let text = clean(text);
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("#define") {
            let rest = rest.trim_start();
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            let after = &rest[name.len()..];
            if name.starts_with("KGRT_") && !after.starts_with('(') && !after.trim().is_empty() {
                d.constants.insert(name);
            }
        } else if line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && !line.starts_with("typedef")
        {
            // a declaration starts at column 0: "type *kgrt_name(" on its first line
            if let Some(p) = line.find('(') {
                if let Some(name) = idents(&line[..p]).last() {
                    if name.starts_with("kgrt_") {
                        d.functions.insert(name.clone());
                    }
                }
            }
        }
    }
    let mut at = 0;
    while let Some(p) = text[at..].find("typedef ") {
        let start = at + p;
        let end = start + text[start..].find(';').unwrap();
        let brace = text[start..end].find('{').map(|b| start + b);
        let decl_end = match brace {
            Some(b) => {
                let close = b + text[b..].find('}').unwrap();
                close + text[close..].find(';').unwrap()
            }
            None => end,
        };
        let head = &text[start..brace.unwrap_or(end)];
        let words = idents(head);
        let typedef_name = idents(&text[start..decl_end]).last().cloned().unwrap();
        match (words.get(1).map(String::as_str), brace) {
            (Some("enum"), Some(b)) => {
                let close = b + text[b..].find('}').unwrap();
                for item in text[b + 1..close].split(',') {
                    if let Some(name) = idents(item).first() {
                        d.constants.insert(name.clone());
                    }
                }
                d.enums.insert(typedef_name);
            }
            (Some("struct"), Some(b)) => {
                let close = b + text[b..].find('}').unwrap();
                let mut fields = Vec::new();
                for decl in text[b + 1..close].split(';') {
                    let decl = decl.trim();
                    if decl.is_empty() {
                        continue;
                    }
                    if let Some(fp) = decl.find("(*") {
                        let name: String = decl[fp + 2..]
                            .chars()
                            .take_while(|&c| is_ident(c))
                            .collect();
                        fields.push(name);
                        continue;
                    }
                    let mut no_arrays = String::new();
                    let mut depth = 0;
                    for c in decl.chars() {
                        match c {
                            '[' => depth += 1,
                            ']' => depth -= 1,
                            _ if depth == 0 => no_arrays.push(c),
                            _ => {}
                        }
                    }
                    for (k, part) in no_arrays.split(',').enumerate() {
                        let ids = idents(part);
                        let name = if k == 0 { ids.last() } else { ids.first() };
                        fields.push(name.cloned().unwrap());
                    }
                }
                d.structs.push((typedef_name, fields));
            }
            (Some("struct"), None) => {
                d.opaque.insert(typedef_name);
            }
            _ => {}
        }
        at = decl_end;
    }
}

/// The C spelling of a Rust type as kgrt-sys writes it.
fn c_type(rust: &str) -> String {
    let t: String = rust.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(inner) = t.strip_prefix("*mut") {
        return format!("{} *", c_type(inner));
    }
    if let Some(inner) = t.strip_prefix("*const") {
        return format!("{} const *", c_type(inner));
    }
    match t.as_str() {
        "()" => "void".into(),
        "c_void" => "void".into(),
        "c_char" => "char".into(),
        "c_int" => "int".into(),
        "u8" => "uint8_t".into(),
        "i16" => "int16_t".into(),
        "u32" => "uint32_t".into(),
        "i32" => "int32_t".into(),
        "u64" => "uint64_t".into(),
        "i64" => "int64_t".into(),
        "usize" => "size_t".into(),
        "f32" => "float".into(),
        "f64" => "double".into(),
        _ if t.starts_with("kgrt_") => t,
        _ => panic!("drift: no C spelling for the Rust type {}", rust),
    }
}

fn c_field(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// The C program and the lines it must print.
fn program() -> (String, Vec<String>) {
    let mut c = String::new();
    let mut want = Vec::new();
    c.push_str("#include <stddef.h>\n#include <stdio.h>\n");
    for h in HEADERS {
        writeln!(c, "#include \"{}\"", h).unwrap();
    }
    for f in sys::FUNCTIONS {
        let params: Vec<String> = f.params.iter().map(|p| c_type(p)).collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        writeln!(
            c,
            "_Static_assert(__builtin_types_compatible_p(__typeof__(&{n}), {r} (*)({p})), \
             \"{n}: the header's type is not {r} (*)({p})\");",
            n = f.name,
            r = c_type(f.ret),
            p = params
        )
        .unwrap();
    }
    c.push_str("int main(void) {\n");
    for (name, value) in sys::CONSTANTS {
        writeln!(
            c,
            "  printf(\"const {n} %lld\\n\", (long long)({n}));",
            n = name
        )
        .unwrap();
        want.push(format!("const {} {}", name, value));
    }
    for (name, size, align) in sys::TYPES {
        writeln!(
            c,
            "  printf(\"type {n} %zu %zu\\n\", sizeof({n}), _Alignof({n}));",
            n = name
        )
        .unwrap();
        want.push(format!("type {} {} {}", name, size, align));
    }
    for s in sys::structs() {
        writeln!(
            c,
            "  printf(\"struct {n} %zu %zu\\n\", sizeof({n}), _Alignof({n}));",
            n = s.name
        )
        .unwrap();
        want.push(format!("struct {} {} {}", s.name, s.size, s.align));
        for (f, offset, size) in &s.fields {
            writeln!(
                c,
                "  printf(\"field {n}.{f} %zu %zu\\n\", offsetof({n}, {f}), sizeof((({n} *)0)->{f}));",
                n = s.name,
                f = c_field(f)
            )
            .unwrap();
            want.push(format!(
                "field {}.{} {} {}",
                s.name,
                c_field(f),
                offset,
                size
            ));
        }
    }
    c.push_str("  return 0;\n}\n");
    (c, want)
}

fn compare_names(
    what: &str,
    header: &BTreeSet<String>,
    rust: &BTreeSet<String>,
    bad: &mut Vec<String>,
) {
    for n in header.difference(rust) {
        bad.push(format!(
            "{} {} is in the headers but not in kgrt-sys",
            what, n
        ));
    }
    for n in rust.difference(header) {
        bad.push(format!(
            "{} {} is in kgrt-sys but not in the headers",
            what, n
        ));
    }
}

#[test]
fn kgrt_sys_matches_the_headers() {
    let dir = include_dir();
    let mut d = Declared::default();
    for h in HEADERS {
        let path = dir.join(h);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("drift: {}: {}", path.display(), e));
        parse_header(&text, &mut d);
    }
    let mut bad = Vec::new();
    let set = |v: Vec<&str>| v.into_iter().map(String::from).collect::<BTreeSet<_>>();
    compare_names(
        "function",
        &d.functions,
        &set(sys::FUNCTIONS.iter().map(|f| f.name).collect()),
        &mut bad,
    );
    compare_names(
        "constant",
        &d.constants,
        &set(sys::CONSTANTS.iter().map(|c| c.0).collect()),
        &mut bad,
    );
    compare_names(
        "enum",
        &d.enums,
        &set(sys::TYPES.iter().map(|t| t.0).collect()),
        &mut bad,
    );
    compare_names(
        "opaque type",
        &d.opaque,
        &set(sys::OPAQUE.to_vec()),
        &mut bad,
    );
    let rust_structs = sys::structs();
    compare_names(
        "struct",
        &d.structs.iter().map(|s| s.0.clone()).collect(),
        &set(rust_structs.iter().map(|s| s.name).collect()),
        &mut bad,
    );
    for (name, fields) in &d.structs {
        if let Some(r) = rust_structs.iter().find(|s| s.name == name) {
            let rf: Vec<&str> = r.fields.iter().map(|f| c_field(f.0)).collect();
            if rf != fields.iter().map(String::as_str).collect::<Vec<_>>() {
                bad.push(format!(
                    "struct {}: the headers' fields are {:?}, kgrt-sys's {:?}",
                    name, fields, rf
                ));
            }
        }
    }

    let (c, want) = program();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = tmp.join("kgrt_sys_drift.c");
    let exe = tmp.join("kgrt_sys_drift");
    std::fs::write(&src, &c).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("drift: cannot run the C compiler {}: {}", cc, e));
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        for line in msg.lines().filter(|l| l.contains("error")) {
            bad.push(format!("C compiler: {}", line.trim()));
        }
        if bad.is_empty() {
            bad.push(format!("C compiler failed on {}: {}", src.display(), msg));
        }
    } else {
        let run = Command::new(Path::new(&exe))
            .output()
            .expect("drift: run the C program");
        let got = String::from_utf8(run.stdout).unwrap();
        let got: Vec<&str> = got.lines().collect();
        assert_eq!(
            got.len(),
            want.len(),
            "drift: the C program printed {} lines, not {}",
            got.len(),
            want.len()
        );
        for (g, w) in got.iter().zip(&want) {
            if g != w {
                bad.push(format!("C says `{}`, kgrt-sys `{}`", g, w));
            }
        }
        // every record reached the C compiler
        assert!(
            want.len() > 100 && sys::FUNCTIONS.len() >= 50,
            "drift: too few records"
        );
    }
    if !bad.is_empty() {
        panic!(
            "kgrt-sys and the headers in {} differ:\n  {}",
            dir.display(),
            bad.join("\n  ")
        );
    }
}
