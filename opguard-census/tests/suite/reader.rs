//! The reader refuses what it cannot read faithfully, saying where and why.

use opguard_census::{Capture, DeclaredHostResolutions, FamilyTable, DEFAULT_MAX_BYTES};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "format": "opguard.census/capture-v1", "label": "t", "step_axis": "s0", "step_hint": 2,
        "ops": (0..13).map(|_| json!({"name": "aten.mm.default", "shapes": [["s0", 64], [64, 64]]})).collect::<Vec<_>>(),
        "guards": [], "replacements": {}, "host_resolutions": []
    })
}

fn err(v: &Value) -> opguard_census::Error {
    Capture::from_slice(&serde_json::to_vec(v).unwrap()).unwrap_err()
}

#[test]
fn errors_carry_a_json_path_and_a_stable_code() {
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (
            Box::new(|v| v["ops"][12]["shapes"][1][0] = json!(-1)),
            "invalid_value",
            "ops[12].shapes[1][0]",
        ),
        (
            Box::new(|v| v["ops"][12]["shapes"][1][0] = json!(1.5)),
            "invalid_value",
            "ops[12].shapes[1][0]",
        ),
        (
            Box::new(|v| v["ops"][12]["shapes"][1][0] = json!("64")),
            "invalid_value",
            "ops[12].shapes[1][0]",
        ),
        (
            Box::new(|v| v["ops"][12]["shapes"][1][0] = json!(true)),
            "wrong_type",
            "ops[12].shapes[1][0]",
        ),
        (
            Box::new(|v| v["ops"][12]["shapes"][1][0] = json!("s0 # 1")),
            "invalid_expression",
            "ops[12].shapes[1][0]",
        ),
        (
            Box::new(|v| v["ops"][3]["dtype"] = json!("bf16")),
            "unknown_field",
            "ops[3].dtype",
        ),
        (
            Box::new(|v| v["shape_env_var_to_val"] = json!({})),
            "unknown_field",
            "shape_env_var_to_val",
        ),
        (
            // The seed's name for `guards`, given beside it.
            Box::new(|v| v["shape_env_guards"] = json!([])),
            "conflicting_fields",
            "shape_env_guards",
        ),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("host_resolutions");
            }),
            "missing_field",
            "host_resolutions",
        ),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("replacements");
            }),
            "missing_field",
            "replacements",
        ),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("step_axis");
            }),
            "missing_field",
            "step_axis",
        ),
        (
            Box::new(|v| v["ops"][2]["name"] = json!("aten..mm")),
            "invalid_value",
            "ops[2].name",
        ),
        (
            Box::new(|v| v["replacements"] = json!({"s52 + 1": "s0"})),
            "invalid_value",
            "replacements[\"s52 + 1\"]",
        ),
        (
            Box::new(|v| v["host_resolutions"] = json!([{"frames": ["a.py:1 in f"]}])),
            "missing_field",
            "host_resolutions[0].value",
        ),
        (
            Box::new(|v| v["frames_order"] = json!("outermost")),
            "invalid_value",
            "frames_order",
        ),
        (
            Box::new(|v| v["step_axis_hint"] = json!(8)),
            "conflicting_fields",
            "step_axis_hint",
        ),
        (
            Box::new(|v| v["format"] = json!("opguard.census/capture-v2")),
            "wrong_format",
            "capture-v2",
        ),
    ];
    for (mutate, code, needle) in cases {
        let mut v = base();
        mutate(&mut v);
        let e = err(&v);
        assert_eq!(e.code(), code, "{needle}: {e}");
        assert!(e.to_string().contains(needle), "{needle} not in: {e}");
    }
}

#[test]
fn step_axis_hint_is_accepted_for_step_hint() {
    let mut v = base();
    v.as_object_mut().unwrap().remove("step_hint");
    v["step_axis_hint"] = json!(2);
    assert_eq!(
        Capture::from_slice(&serde_json::to_vec(&v).unwrap())
            .unwrap()
            .step_hint(),
        2
    );
    v["step_hint"] = json!(2);
    assert_eq!(
        Capture::from_slice(&serde_json::to_vec(&v).unwrap())
            .unwrap()
            .step_hint(),
        2
    );
    v.as_object_mut().unwrap().remove("step_hint");
    v.as_object_mut().unwrap().remove("step_axis_hint");
    assert_eq!(err(&v).code(), "missing_field");
}

#[test]
fn duplicate_keys_are_refused_not_resolved() {
    let text = br#"{"format": "opguard.census/capture-v1", "label": "t", "step_axis": "s0",
        "step_axis": null, "step_hint": 2, "ops": [], "guards": [], "replacements": {},
        "host_resolutions": []}"#;
    let e = Capture::from_slice(text).unwrap_err();
    assert_eq!(e.code(), "duplicate_key");
    assert!(e.to_string().contains("step_axis"), "{e}");
}

#[test]
fn syntax_errors_say_line_and_column() {
    let e = Capture::from_slice(b"{\n  \"format\": ,\n}").unwrap_err();
    assert_eq!(e.code(), "json_syntax");
    assert!(e.to_string().contains("line 2"), "{e}");
    let e = Capture::from_slice(b"[]").unwrap_err();
    assert_eq!(e.code(), "wrong_type");
}

#[test]
fn a_reader_limit_at_n_passes_and_at_n_minus_one_fails() {
    let bytes = serde_json::to_vec(&base()).unwrap();
    let n = bytes.len() as u64;
    assert!(Capture::from_reader(&bytes[..], n).is_ok());
    let e = Capture::from_reader(&bytes[..], n - 1).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
    assert_eq!(DEFAULT_MAX_BYTES, 256 * 1024 * 1024);
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let e = Capture::from_path("/nonexistent/capture.json").unwrap_err();
    assert_eq!(e.code(), "io");
    assert!(e.to_string().contains("/nonexistent/capture.json"));
}

#[test]
fn family_tables_refuse_overloads_prefixes_and_duplicates() {
    let t = |families: Value| {
        FamilyTable::from_slice(
            &serde_json::to_vec(
                &json!({"format": "opguard.census/families-v1", "families": families}),
            )
            .unwrap(),
        )
    };
    let cases = [
        (
            json!([{"family": "x", "operators": ["aten.add.Tensor"]}]),
            "invalid_value",
            "names an overload",
        ),
        (
            json!([{"family": "x", "operators": ["_c10d_functional."]}]),
            "invalid_value",
            "prefixes",
        ),
        (
            json!([{"family": "x", "operators": ["aten.*"]}]),
            "invalid_value",
            "wildcards",
        ),
        (
            json!([{"family": "x", "operators": ["aten.mm"]}, {"family": "y", "operators": ["aten.mm"]}]),
            "duplicate_operator",
            "families[1].operators[0]",
        ),
        (
            json!([{"family": "x", "operators": []}, {"family": "x", "operators": []}]),
            "duplicate_family",
            "families[1].family",
        ),
        (
            json!([{"family": "unclassified", "operators": []}]),
            "invalid_value",
            "reserved",
        ),
        (
            json!([{"family": "x", "operators": [], "match": "prefix"}]),
            "unknown_field",
            "families[0].match",
        ),
    ];
    for (fams, code, needle) in cases {
        let e = t(fams).unwrap_err();
        assert_eq!(e.code(), code, "{e}");
        assert!(e.to_string().contains(needle), "{needle} not in: {e}");
    }
    let e = FamilyTable::from_slice(br#"{"format": "opguard.census/capture-v1", "families": []}"#)
        .unwrap_err();
    assert_eq!(e.code(), "wrong_format");
    let built = FamilyTable::from_families([("gemm", ["aten.mm", "aten.bmm"])]).unwrap();
    assert_eq!(built.family_of("aten.bmm.default"), Some("gemm"));
    assert_eq!(
        FamilyTable::from_families([("gemm", ["aten.mm.default"])])
            .unwrap_err()
            .code(),
        "invalid_value"
    );
}

#[test]
fn declared_sets_refuse_zero_counts_and_non_integers() {
    let e = DeclaredHostResolutions::from_slice(br#"{"a.py:1 in f": 0}"#).unwrap_err();
    assert_eq!(e.code(), "invalid_value");
    let e = DeclaredHostResolutions::from_slice(br#"{"a.py:1 in f": "2"}"#).unwrap_err();
    assert_eq!(e.code(), "wrong_type");
    let e = DeclaredHostResolutions::from_slice(br#"{"a.py:1 in f": 1, "a.py:1 in f": 2}"#)
        .unwrap_err();
    assert_eq!(e.code(), "duplicate_key");
    let d = DeclaredHostResolutions::from_lines([("a.py:1 in f", 2), ("b.py:2 in g", 1)]).unwrap();
    assert_eq!(d.conversions(), 3);
}

/// Seed 004's own record names read as the capture-v1 fields they mean, and
/// refused when they contradict them.
#[test]
fn the_seeds_record_names_read_as_capture_v1_fields() {
    use crate::support::builder::parse;
    use crate::support::seed004::{symbolic, NARROW};
    let ours = symbolic(1, NARROW);
    let mut seeds = ours.clone();
    let obj = seeds.as_object_mut().unwrap();
    for (from, to) in [
        ("guards", "shape_env_guards"),
        ("replacements", "shape_env_replacements"),
        ("step_hint", "step_axis_hint"),
    ] {
        let v = obj.remove(from).unwrap_or_else(|| panic!("{from}"));
        obj.insert(to.into(), v);
    }
    obj.insert("step_symbol".into(), serde_json::json!(true));
    let (a, b) = (parse(&ours), parse(&seeds));
    assert!(!a.guards().is_empty() && !a.replacements().is_empty());
    assert_eq!(a.guards(), b.guards());
    assert_eq!(a.replacements(), b.replacements());
    assert_eq!(a.step_hint(), b.step_hint());
    assert_eq!(a.step_axis(), b.step_axis());
    let table = opguard_census::FamilyTable::default();
    assert_eq!(
        serde_json::to_value(opguard_census::Census::compute(&a, &table)).unwrap(),
        serde_json::to_value(opguard_census::Census::compute(&b, &table)).unwrap()
    );

    let code = |v: &serde_json::Value| {
        opguard_census::Capture::from_slice(&serde_json::to_vec(v).unwrap())
            .unwrap_err()
            .code()
    };
    let mut both = seeds.clone();
    both["guards"] = ours["guards"].clone();
    assert_eq!(code(&both), "conflicting_fields");
    let mut concrete_claim = seeds.clone();
    concrete_claim["step_symbol"] = serde_json::json!(false);
    assert_eq!(code(&concrete_claim), "conflicting_fields");
    let mut not_bool = seeds.clone();
    not_bool["step_symbol"] = serde_json::json!("yes");
    assert_eq!(code(&not_bool), "wrong_type");
    // Seed 004's finding 5: the record a width of 1 wrote.
    let mut finding5 = seeds;
    finding5["step_axis"] = serde_json::json!("1");
    finding5["step_axis_hint"] = serde_json::json!(1);
    assert_eq!(code(&finding5), "step_axis_not_symbolic");
}
