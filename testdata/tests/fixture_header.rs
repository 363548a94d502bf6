//! The one header every `fixtures/` case file opens with, checked by the one
//! loader the Rust fixture runners read their case files through: each
//! committed case file passes, and each kind of header fault is refused with
//! the file named (the same faults the bindings' loaders are held to).

use opguard_testdata::fixture::{header_faults, read_json, HeaderFault};
use opguard_testdata::{check_fixture_header, fixtures_dir, load_fixture};
use serde_json::json;

const CASE_FILES: [(&str, &str, u64); 4] = [
    (
        "kernel-name/kernel_symbols.json",
        "opguard.kernel-name.fixture",
        3,
    ),
    ("select/cases.json", "opguard.select.fixture", 2),
    ("scaling/cases.json", "opguard.scaling.fixture", 2),
    ("align/map_cases.json", "opguard.align.fixture", 2),
];

fn header(relative: &str) -> (&'static str, u64) {
    let (_, schema, version) = CASE_FILES
        .iter()
        .find(|(file, _, _)| *file == relative)
        .expect("a listed case file");
    (schema, *version)
}

#[test]
fn every_case_file_has_the_one_header() {
    for (relative, schema, version) in CASE_FILES {
        let doc = load_fixture(relative, schema, version);
        assert!(doc.is_object(), "{relative}");
    }
}

#[test]
fn a_header_fault_is_refused_naming_the_file() {
    let more = [
        HeaderFault {
            file: "align/map_cases.json",
            fault: |d| d["schema"] = json!("opguard.select.fixture"),
            says: "schema is \"opguard.select.fixture\"",
        },
        HeaderFault {
            file: "scaling/cases.json",
            fault: |d| d["cases"] = json!({}),
            says: "cases is not an array",
        },
    ];
    for HeaderFault { file, fault, says } in header_faults().into_iter().chain(more) {
        let (schema, version) = header(file);
        let mut doc = read_json(&fixtures_dir().join(file));
        check_fixture_header(&doc, schema, version, file)
            .unwrap_or_else(|e| panic!("the committed file is refused before the fault: {e}"));
        fault(&mut doc);
        let e = check_fixture_header(&doc, schema, version, file)
            .expect_err(&format!("{file}: a fault saying {says:?} is accepted"));
        let text = e.to_string();
        assert!(text.starts_with(&format!("{file}: ")), "{text}");
        assert!(text.contains(says), "{text} does not say {says:?}");
    }
}

#[test]
fn a_document_that_is_not_an_object_is_refused() {
    let e = check_fixture_header(&json!([]), "s", 1, "x.json").unwrap_err();
    assert_eq!(e.to_string(), "x.json: not a JSON object");
}

#[test]
#[should_panic(
    expected = "select/cases.json: schema is \"opguard.select.fixture\", expected \"opguard.scaling.fixture\""
)]
fn the_loader_panics_on_a_file_it_does_not_implement() {
    load_fixture("select/cases.json", "opguard.scaling.fixture", 2);
}
