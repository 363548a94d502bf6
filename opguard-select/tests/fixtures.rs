//! The request examples in `fixtures/select/`: a generated capture trace and
//! the requests that select on it, with the outcome each must produce.
//!
//! The trace is regenerated here and must be byte-identical to the
//! checked-in file (set `OPGUARD_BLESS=1` to rewrite it).

use std::path::PathBuf;

use opguard_select::verdict_from_request_file;
use opguard_testdata::{fixtures_dir, load_fixture};

use crate::support::*;

fn dir() -> PathBuf {
    fixtures_dir().join("select")
}

#[test]
fn the_fixture_trace_is_the_generated_one() {
    let bytes = attention_trace((4242, 4242), 4, AttentionCall::default())
        .to_gzip()
        .unwrap();
    let path = dir().join("attention.pid-4242.json.gz");
    if std::env::var("OPGUARD_BLESS").is_ok() {
        std::fs::write(&path, &bytes).unwrap();
    }
    assert_eq!(
        std::fs::read(&path).expect("fixture trace"),
        bytes,
        "regenerate with OPGUARD_BLESS=1"
    );
}

#[test]
fn every_fixture_case_gives_its_expected_outcome() {
    let cases = load_fixture("select/cases.json", "opguard.select.fixture", 2);
    for case in cases["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let path = dir().join(case["request"].as_str().unwrap());
        let expect = &case["expect"];
        match verdict_from_request_file(&path) {
            Ok(v) => {
                let got = to_json(&v);
                for (k, want) in expect.as_object().unwrap() {
                    assert_eq!(&got[k], want, "{id}: {k}");
                }
            }
            Err(e) => {
                assert_eq!(expect["error"], e.code(), "{id}: {e}");
            }
        }
    }
}
