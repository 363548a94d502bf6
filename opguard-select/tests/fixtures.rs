//! The request examples in `fixtures/select/`: a generated capture trace and
//! the requests that select on it, with the outcome each must produce.
//!
//! The trace is regenerated here and must be byte-identical to the
//! checked-in file (set `OPGUARD_BLESS=1` to rewrite it).

use std::path::PathBuf;

use opguard_select::verdict_from_request_file;
use serde_json::Value;

use crate::support::*;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/select")
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
    let cases: Value =
        serde_json::from_slice(&std::fs::read(dir().join("cases.json")).unwrap()).unwrap();
    assert_eq!(cases["schema"], "opguard.select.fixture");
    assert_eq!(cases["schema_version"], 2);
    let list = cases["cases"].as_array().unwrap();
    assert_eq!(list.len() as u64, cases["case_count"].as_u64().unwrap());
    let mut ids = std::collections::HashSet::new();
    for case in list {
        let id = case["id"].as_str().unwrap();
        assert!(ids.insert(id), "duplicate id {id}");
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
