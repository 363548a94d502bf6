//! The host-resolution log against a declared set (seed 004 finding 1): asserted as
//! a multiset, so a seventeenth line fails and so does a line converting twice.

use opguard_census::{
    host_resolutions_by_line, Capture, Census, DeclaredHostResolutions, NO_FRAME,
};
use serde_json::json;

use crate::support::builder::parse;
use crate::support::fixture;
use crate::support::seed004::{families, symbolic, NARROW, WIDE};

fn declared() -> DeclaredHostResolutions {
    DeclaredHostResolutions::from_path(fixture("seed004_host_resolutions.declared.json")).unwrap()
}

fn push_conversion(v: &mut serde_json::Value, line: &str) {
    v["host_resolutions"].as_array_mut().unwrap().push(json!({
        "frames": ["atom/model_engine/model_runner.py:3254 in run_model", line],
        "value": 2
    }));
}

#[test]
fn declared_set_of_20_conversions_over_16_lines_matches_at_both_widths_and_tps() {
    let d = declared();
    assert_eq!((d.conversions(), d.lines().len()), (20, 16));
    for tp in [1, 2] {
        for w in [NARROW, WIDE] {
            let c = Census::compute(&parse(&symbolic(tp, w)), &families());
            let diff = c.host_resolution_diff(&d);
            assert!(diff.matches, "tp{tp} w{w}: {}", diff.summary());
            assert_eq!((diff.observed_conversions, diff.observed_lines), (20, 16));
        }
    }
}

#[test]
fn a_seventeenth_line_breaks_the_declared_set() {
    let mut v = symbolic(1, NARROW);
    let line = "atom/utils/forward_context.py:448 in assert_shape_contract";
    push_conversion(&mut v, line);
    let c = Census::compute(&parse(&v), &families());
    let diff = c.host_resolution_diff(&declared());
    assert!(!diff.matches);
    assert_eq!(diff.extra.len(), 1);
    assert_eq!(
        (diff.extra[0].line.as_str(), diff.extra[0].observed),
        (line, 1)
    );
    assert!(diff.missing.is_empty() && diff.changed.is_empty());
    assert_eq!((diff.observed_conversions, diff.observed_lines), (21, 17));
    let err = c.require_host_resolutions(&declared()).unwrap_err();
    assert!(err.to_string().contains(line), "{err}");
}

#[test]
fn a_line_converting_twice_breaks_the_declared_set() {
    let mut v = symbolic(1, NARROW);
    let line = "atom/model_ops/attentions/aiter_attention.py:1115 in prepare_decode";
    push_conversion(&mut v, line);
    let c = Census::compute(&parse(&v), &families());
    let diff = c.host_resolution_diff(&declared());
    assert!(!diff.matches);
    assert!(diff.extra.is_empty() && diff.missing.is_empty());
    assert_eq!(diff.changed.len(), 1);
    assert_eq!(
        (
            diff.changed[0].line.as_str(),
            diff.changed[0].declared,
            diff.changed[0].observed
        ),
        (line, 1, 2)
    );
    // A set comparison would have passed this: the lines are the same 16.
    let observed: std::collections::BTreeSet<_> = c.host_resolutions_by_line.keys().collect();
    let d = declared();
    let expected: std::collections::BTreeSet<_> = d.lines().keys().collect();
    assert_eq!(observed, expected);
}

#[test]
fn a_missing_line_breaks_the_declared_set() {
    let mut v = symbolic(1, NARROW);
    v["host_resolutions"]
        .as_array_mut()
        .unwrap()
        .retain(|h| !h["frames"][1].as_str().unwrap().contains(":1237 in"));
    let c = Census::compute(&parse(&v), &families());
    let diff = c.host_resolution_diff(&declared());
    assert_eq!(diff.missing.len(), 1);
    assert!(diff.missing[0]
        .line
        .ends_with("gdn_attn.py:1237 in _attach_gdn_decode_metadata"));
}

#[test]
fn frames_order_innermost_first_keys_the_other_end() {
    let base = json!({
        "format": "opguard.census/capture-v1", "label": "order", "step_axis": "s0",
        "step_hint": 2, "ops": [], "guards": [], "replacements": {},
        "host_resolutions": [{"frames": ["pkg/a.py:1106 in prepare_decode", "pkg/b.py:40 in step"], "value": 2}]
    });
    let last = parse(&base);
    assert_eq!(
        host_resolutions_by_line(&last)
            .into_iter()
            .collect::<Vec<_>>(),
        vec![("pkg/b.py:40 in step".to_string(), 1)]
    );
    let mut first = base.clone();
    first["frames_order"] = json!("innermost_first");
    let first = parse(&first);
    assert_eq!(
        host_resolutions_by_line(&first)
            .into_iter()
            .collect::<Vec<_>>(),
        vec![("pkg/a.py:1106 in prepare_decode".to_string(), 1)]
    );
}

#[test]
fn a_conversion_without_frames_is_counted_not_dropped() {
    let v = json!({
        "format": "opguard.census/capture-v1", "label": "no-frame", "step_axis": "s0",
        "step_hint": 2, "ops": [], "guards": [], "replacements": {},
        "host_resolutions": [{"frames": [], "value": 2}]
    });
    let c: Capture = parse(&v);
    let by_line = host_resolutions_by_line(&c);
    assert_eq!(by_line.get(NO_FRAME), Some(&1));
    let empty = DeclaredHostResolutions::from_slice(b"{}").unwrap();
    let census = Census::compute(&c, &families());
    assert!(!census.host_resolution_diff(&empty).matches);
}
