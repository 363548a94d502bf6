//! `include/opguard.h` matches the library: the same symbols with the same
//! signatures as the source's `#[no_mangle]` functions, the same symbols as
//! the built library exports, and the same constants.

use std::collections::BTreeMap;
use std::process::Command;

use crate::suite::support::{artifact_dir, crate_dir, shared_lib_name};

/// `name -> "ret name(params)"` with whitespace normalized.
type Signatures = BTreeMap<String, String>;

fn normalize(sig: &str) -> String {
    let mut s = sig.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (" *", "*"),
        ("* ", "*"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s.replace('*', " *").replace("( *", "(*").replace("  ", " ")
}

fn header_text() -> String {
    std::fs::read_to_string(crate_dir().join("include/opguard.h")).expect("read include/opguard.h")
}

/// Every `opguard_*` function declared in the header (one per line).
fn header_declarations() -> Signatures {
    let mut out = Signatures::new();
    let mut in_comment = false;
    // The Arrow C interface structs' members are function pointers, not
    // declarations.
    let mut in_struct = false;
    for line in header_text().lines() {
        let t = line.trim();
        if in_comment {
            in_comment = !t.contains("*/");
            continue;
        }
        if in_struct || (t.starts_with("struct ") && t.ends_with('{')) {
            in_struct = !t.starts_with('}');
            continue;
        }
        if t.starts_with("/*") {
            in_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with('#') || !t.ends_with(");") {
            continue;
        }
        let open = t.find('(').expect("a declaration has a parameter list");
        let head = &t[..open];
        let name = head
            .rsplit([' ', '*'])
            .next()
            .expect("a declaration names a function")
            .to_owned();
        assert!(
            name.starts_with("opguard_"),
            "header declares {name} without the prefix"
        );
        let sig = normalize(t.trim_end_matches(';'));
        assert!(
            out.insert(name.clone(), sig).is_none(),
            "{name} declared twice"
        );
    }
    out
}

fn c_type(rust: &str) -> String {
    match rust.trim() {
        "*const c_char" => "const char *".into(),
        "*mut c_char" => "char *".into(),
        "c_int" => "int".into(),
        "u32" => "uint32_t".into(),
        "*mut FFI_ArrowArrayStream" => "struct ArrowArrayStream *".into(),
        "usize" => "size_t".into(),
        "" => "void".into(),
        other => panic!("no C type known for Rust type {other:?}; extend c_type"),
    }
}

/// The direct `#[no_mangle]` functions of `src/ffi.rs`, as C signatures.
fn source_declarations() -> Signatures {
    let src = std::fs::read_to_string(crate_dir().join("src/ffi.rs")).expect("read src/ffi.rs");
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Signatures::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "#[no_mangle]" {
            continue;
        }
        // The signature, however rustfmt wrapped it, up to its body.
        let def = lines[i + 1..]
            .iter()
            .take_while(|l| !l.trim_end().ends_with('{'))
            .chain(lines[i + 1..].iter().find(|l| l.trim_end().ends_with('{')))
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
            .replace("( ", "(")
            .replace(", )", ")");
        let def = def.as_str();
        let rest = def
            .strip_prefix("pub unsafe extern \"C\" fn ")
            .or_else(|| def.strip_prefix("pub extern \"C\" fn "))
            .unwrap_or_else(|| panic!("#[no_mangle] without a pub extern \"C\" fn: {def}"));
        if rest.starts_with('$') {
            continue; // the json_entries! template: see json_entry_points()
        }
        let open = rest.find('(').expect("parameter list");
        let close = rest.find(')').expect("parameter list");
        let name = &rest[..open];
        let params: Vec<String> = rest[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let (pname, ty) = p.split_once(':').expect("name: type");
                format!("{} {}", c_type(ty), pname.trim())
            })
            .collect();
        let ret = rest[close + 1..]
            .split('{')
            .next()
            .unwrap_or("")
            .trim()
            .trim_start_matches("->")
            .trim();
        let params = if params.is_empty() {
            "void".to_owned()
        } else {
            params.join(", ")
        };
        let sig = normalize(&format!("{} {name}({params})", c_type(ret)));
        assert!(out.insert(name.to_owned(), sig).is_none());
    }
    for name in opguard_capi::json_entry_points() {
        out.insert(
            name.to_owned(),
            normalize(&format!("char *{name}(const char *request)")),
        );
    }
    out
}

#[test]
fn header_declares_exactly_the_source_functions_with_their_signatures() {
    let header = header_declarations();
    let source = source_declarations();
    assert!(
        header.len() >= 14,
        "too few declarations parsed: {header:?}"
    );
    let only_header: Vec<_> = header.keys().filter(|k| !source.contains_key(*k)).collect();
    let only_source: Vec<_> = source.keys().filter(|k| !header.contains_key(*k)).collect();
    assert!(
        only_header.is_empty() && only_source.is_empty(),
        "declared but not defined: {only_header:?}; defined but not declared: {only_source:?}"
    );
    for (name, sig) in &source {
        assert_eq!(&header[name], sig, "signature of {name}");
    }
}

#[test]
fn every_symbol_has_the_prefix() {
    for name in source_declarations().keys() {
        assert!(name.starts_with("opguard_"), "{name}");
    }
}

#[test]
fn header_declares_exactly_the_exported_symbols() {
    let lib = artifact_dir().join(shared_lib_name());
    assert!(lib.is_file(), "{} was not built", lib.display());
    let args: &[&str] = if cfg!(target_os = "macos") {
        &["-gU"]
    } else {
        &["-D", "--defined-only"]
    };
    let out = match Command::new("nm").args(args).arg(&lib).output() {
        Ok(out) => out,
        Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipping: nm is not available ({e}); the C test still links every symbol");
            return;
        }
        Err(e) => panic!("nm is required under CI=true: {e}"),
    };
    assert!(
        out.status.success(),
        "nm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exported: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|s| s.trim_start_matches('_').to_owned())
        .filter(|s| s.starts_with("opguard_"))
        .collect();
    let declared: Vec<String> = header_declarations().into_keys().collect();
    let mut exported_sorted = exported.clone();
    exported_sorted.sort();
    exported_sorted.dedup();
    assert_eq!(exported_sorted, declared, "exported symbols vs header");
}

fn define(name: &str) -> String {
    let text = header_text();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("#define {name} ")))
        .unwrap_or_else(|| panic!("header defines {name}"));
    line[format!("#define {name} ").len()..]
        .split("/*")
        .next()
        .unwrap_or("")
        .trim()
        .trim_matches(|c| c == '(' || c == ')')
        .to_owned()
}

#[test]
fn header_constants_match_the_library() {
    assert_eq!(
        define("OPGUARD_ABI_VERSION"),
        opguard_capi::ABI_VERSION.to_string()
    );
    assert_eq!(
        define("OPGUARD_ABI_VERSION"),
        opguard_capi::ffi::opguard_abi_version().to_string()
    );
    let mut statuses = 0;
    for code in opguard_capi::CAPI_CODES {
        let Some(status) = code.status else { continue };
        statuses += 1;
        let macro_name = format!(
            "OPGUARD_STATUS_{}",
            code.code.trim_start_matches("capi.").to_uppercase()
        );
        assert_eq!(define(&macro_name), status.to_string(), "{macro_name}");
        let line = header_text()
            .lines()
            .find(|l| l.starts_with(&format!("#define {macro_name} ")))
            .map(str::to_owned)
            .unwrap_or_default();
        assert!(line.contains(&format!("\"{}\"", code.code)), "{line}");
    }
    assert_eq!(statuses, 3);
}
