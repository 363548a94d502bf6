//! Every call is reentrant: many threads call at once and each gets exactly
//! the answer a lone caller gets.

use std::ffi::CString;
use std::sync::Barrier;

use opguard_capi::ffi::*;
use serde_json::{json, Value};

use crate::suite::support::{call, fixtures, kernel_fixture, Entry};

#[test]
fn concurrent_calls_from_several_threads_agree_with_a_lone_caller() {
    let fixture = kernel_fixture();
    let capture = std::fs::read_to_string(fixtures().join("census/hint_guard_w2.capture.json"))
        .expect("census fixture");
    let wide = std::fs::read_to_string(fixtures().join("census/hint_guard_w8.capture.json"))
        .expect("census fixture");
    let mut requests: Vec<(Entry, String)> = Vec::new();
    for case in fixture["symbol_cases"].as_array().unwrap().iter().take(40) {
        requests.push((
            opguard_kernel_canonicalize,
            json!({ "symbol": case["symbol"] }).to_string(),
        ));
    }
    for case in fixture["verdict_cases"].as_array().unwrap().iter().take(40) {
        requests.push((
            opguard_kernel_match_json,
            json!({ "want": case["want"], "got": case["got"] }).to_string(),
        ));
    }
    requests.push((opguard_census, format!(r#"{{"capture": {capture}}}"#)));
    requests.push((
        opguard_census_compare_widths,
        format!(r#"{{"first": {capture}, "second": {wide}}}"#),
    ));
    requests.push((
        opguard_trace_info,
        json!({ "text": r#"{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2}]}"# }).to_string(),
    ));
    requests.push((opguard_kernel_canonicalize, "{".to_owned()));
    let expected: Vec<Value> = requests.iter().map(|(e, r)| call(*e, r)).collect();
    let pairs: Vec<(CString, CString)> = fixture["verdict_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                CString::new(c["want"].as_str().unwrap()).unwrap(),
                CString::new(c["got"].as_str().unwrap()).unwrap(),
            )
        })
        .collect();
    let direct: Vec<i32> = pairs
        .iter()
        // SAFETY: NUL-terminated strings.
        .map(|(w, g)| unsafe { opguard_kernel_match(w.as_ptr(), g.as_ptr()) })
        .collect();

    const THREADS: usize = 8;
    const ROUNDS: usize = 5;
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (requests, expected, pairs, direct, barrier) =
                (&requests, &expected, &pairs, &direct, &barrier);
            s.spawn(move || {
                barrier.wait();
                for round in 0..ROUNDS {
                    // Each thread walks the requests from a different start.
                    for k in 0..requests.len() {
                        let i = (k + t * 7 + round) % requests.len();
                        let (entry, request) = &requests[i];
                        assert_eq!(call(*entry, request), expected[i], "thread {t} request {i}");
                    }
                    for (i, (w, g)) in pairs.iter().enumerate() {
                        // SAFETY: NUL-terminated strings shared read-only across threads.
                        let got = unsafe { opguard_kernel_match(w.as_ptr(), g.as_ptr()) };
                        assert_eq!(got, direct[i], "thread {t} pair {i}");
                    }
                }
            });
        }
    });
}
