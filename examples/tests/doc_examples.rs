//! Each example under `examples/examples/` is the example that opens its
//! crate's documentation: this test extracts the first code block of the
//! crate's `lib.rs` docs and compares it, line by line, with the example's
//! `main` (hidden `# ` lines shown, the closing `Ok::<..>(())` and the final
//! `println!` set aside, indentation ignored).

use std::path::Path;

const PAIRS: &[(&str, &str)] = &[
    ("opguard-model", "model"),
    ("opguard-trace", "trace"),
    ("opguard-formats", "formats"),
    ("opguard-kernel-name", "kernel_name"),
    ("opguard-select", "select"),
    ("opguard-align", "align"),
    ("opguard-census", "census"),
    ("opguard-scaling", "scaling"),
    ("opguard-job", "job"),
    ("opguard-report", "report"),
];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn doc_example(krate: &str) -> Vec<String> {
    let src = std::fs::read_to_string(root().join(krate).join("src/lib.rs")).unwrap();
    let doc: Vec<&str> = src
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let open = doc
        .iter()
        .position(|l| l.trim().starts_with("```"))
        .unwrap();
    let close = open
        + 1
        + doc[open + 1..]
            .iter()
            .position(|l| l.trim().starts_with("```"))
            .unwrap();
    doc[open + 1..close]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.starts_with("# Ok::<"))
        .map(|l| {
            l.strip_prefix("# ")
                .unwrap_or(if l == "#" { "" } else { l })
        })
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn example_body(name: &str) -> Vec<String> {
    let src = std::fs::read_to_string(root().join("examples/examples").join(format!("{name}.rs")))
        .unwrap();
    let start = src.find("fn main()").unwrap();
    let body = &src[src[start..].find('{').unwrap() + start + 1..src.rfind('}').unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Ok(())" && !l.starts_with("println!("))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_example_is_its_crates_opening_doc_example() {
    for (krate, name) in PAIRS {
        let doc = doc_example(krate);
        assert!(doc.len() > 3, "{krate} opens with no example");
        assert_eq!(
            example_body(name),
            doc,
            "examples/examples/{name}.rs differs from the example opening {krate}/src/lib.rs"
        );
    }
}
