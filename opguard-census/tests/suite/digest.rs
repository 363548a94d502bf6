//! The digest sets symbol names aside and nothing else.

use opguard_census::{Capture, Census, FamilyTable};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Ent {
    Int(i64),
    Sym(usize),
    Lin(i64, usize, i64),
    Two(usize, usize),
    Null,
}

fn ent() -> impl Strategy<Value = Ent> {
    prop_oneof![
        (0i64..5000).prop_map(Ent::Int),
        (0usize..4).prop_map(Ent::Sym),
        (2i64..40, 0usize..4, 0i64..5).prop_map(|(a, s, b)| Ent::Lin(a, s, b)),
        (0usize..4, 0usize..4).prop_map(|(a, b)| Ent::Two(a, b)),
        Just(Ent::Null),
    ]
}

type Ops = Vec<(u8, Vec<Vec<Ent>>)>;

fn ops() -> impl Strategy<Value = Ops> {
    prop::collection::vec(
        (
            0u8..4,
            prop::collection::vec(prop::collection::vec(ent(), 0..4), 0..4),
        ),
        1..20,
    )
}

const NAMES: [&str; 4] = [
    "aten.mm.default",
    "aten.add.Tensor",
    "aten.view.default",
    "aiter.gemm_a16w16.default",
];

fn to_json(ops: &Ops, names: &[String]) -> Value {
    let e = |x: &Ent| match x {
        Ent::Int(v) => json!(v),
        Ent::Sym(s) => json!(names[*s]),
        Ent::Lin(a, s, b) if *b == 0 => json!(format!("{a}*{}", names[*s])),
        Ent::Lin(a, s, b) => json!(format!("{a}*{} + {b}", names[*s])),
        Ent::Two(a, b) => json!(format!("{} + {}", names[*a], names[*b])),
        Ent::Null => Value::Null,
    };
    json!({
        "format": "opguard.census/capture-v1", "label": "p", "step_axis": names[0], "step_hint": 2,
        "ops": ops.iter().map(|(n, shapes)| json!({
            "name": NAMES[*n as usize],
            "shapes": shapes.iter().map(|s| s.iter().map(e).collect::<Vec<_>>()).collect::<Vec<_>>()
        })).collect::<Vec<_>>(),
        "guards": [], "replacements": {}, "host_resolutions": []
    })
}

fn digest(v: &Value) -> String {
    let c = Capture::from_slice(&serde_json::to_vec(v).unwrap()).unwrap();
    Census::compute(&c, &FamilyTable::default()).digest
}

proptest! {
    #[test]
    fn digest_ignores_symbol_names(ops in ops(), perm in Just(()).prop_perturb(|_, mut rng| {
        let mut names: Vec<String> = (0..4).map(|i| format!("s{}", i * 7 + 3)).collect();
        // A renaming that also changes the names' sort order.
        for i in (1..names.len()).rev() {
            let j = (rng.next_u32() as usize) % (i + 1);
            names.swap(i, j);
        }
        names.iter().map(|n| format!("{n}{}", rng.next_u32() % 90 + 10)).collect::<Vec<_>>()
    })) {
        let plain: Vec<String> = (0..4).map(|i| format!("s{i}")).collect();
        prop_assert_eq!(digest(&to_json(&ops, &plain)), digest(&to_json(&ops, &perm)));
    }

    #[test]
    fn digest_sees_any_single_concrete_entry_change(ops in ops(), pick in any::<prop::sample::Index>()) {
        let plain: Vec<String> = (0..4).map(|i| format!("s{i}")).collect();
        let v = to_json(&ops, &plain);
        let mut positions = Vec::new();
        for (i, op) in v["ops"].as_array().unwrap().iter().enumerate() {
            for (s, shape) in op["shapes"].as_array().unwrap().iter().enumerate() {
                for (e, ent) in shape.as_array().unwrap().iter().enumerate() {
                    if ent.is_i64() { positions.push((i, s, e)); }
                }
            }
        }
        prop_assume!(!positions.is_empty());
        let (i, s, e) = positions[pick.index(positions.len())];
        let mut w = v.clone();
        let old = w["ops"][i]["shapes"][s][e].as_i64().unwrap();
        w["ops"][i]["shapes"][s][e] = json!(old + 1);
        prop_assert_ne!(digest(&v), digest(&w));
    }
}

#[test]
fn term_order_of_a_linear_expression_does_not_matter() {
    let doc = |e: &str| {
        json!({
            "format": "opguard.census/capture-v1", "label": "t", "step_axis": "s0", "step_hint": 2,
            "ops": [{"name": "aten.mm.default", "shapes": [["s0", "s1"], [e]]}],
            "guards": [], "replacements": {}, "host_resolutions": []
        })
    };
    assert_eq!(digest(&doc("s0 + s1")), digest(&doc("s1 + s0")));
    assert_eq!(digest(&doc("2*s0 + 1")), digest(&doc("1 + 2*s0")));
    assert_ne!(digest(&doc("s0 + s1")), digest(&doc("s0 + 2*s1")));
    assert_ne!(digest(&doc("s0 + 1")), digest(&doc("s1 + 1")));
}

#[test]
fn a_symbol_and_a_number_never_digest_alike() {
    let doc = |e: Value, name: &str| {
        json!({
            "format": "opguard.census/capture-v1", "label": "t", "step_axis": "s0", "step_hint": 2,
            "ops": [{"name": name, "shapes": [[e]]}],
            "guards": [], "replacements": {}, "host_resolutions": []
        })
    };
    let base = digest(&doc(json!("s0"), "aten.mm.default"));
    assert_ne!(base, digest(&doc(json!(2), "aten.mm.default")));
    assert_ne!(base, digest(&doc(Value::Null, "aten.mm.default")));
    assert_ne!(base, digest(&doc(json!("s0"), "aten.mm.out")));
}

fn junk_text() -> impl Strategy<Value = String> {
    prop::string::string_regex(r"[ s0-9a-zA-Z_+\-*/%()<>=!,.Eq]{0,24}").unwrap()
}

proptest! {
    // Libraries never panic on input: arbitrary entries, guards and replacements
    // either parse into a capture whose census and comparison complete, or are
    // refused with an error.
    #[test]
    fn arbitrary_input_is_refused_or_computed_never_a_panic(
        entries in prop::collection::vec(prop_oneof![
            any::<i64>().prop_map(|v| json!(v)),
            junk_text().prop_map(|s| json!(s)),
            Just(Value::Null),
        ], 0..12),
        guards in prop::collection::vec(junk_text(), 0..6),
        repl in prop::collection::vec((junk_text(), prop_oneof![
            junk_text().prop_map(|s| json!(s)),
            any::<i64>().prop_map(|v| json!(v)),
        ]), 0..4),
        hint in 0u64..20,
    ) {
        let doc = |axis: &str, hint: u64| json!({
            "format": "opguard.census/capture-v1", "label": "fuzz", "step_axis": axis,
            "step_hint": hint,
            "ops": [{"name": "aten.mm.default", "shapes": [entries.clone()]}],
            "guards": guards.clone(),
            "replacements": repl.iter().cloned().collect::<serde_json::Map<String, Value>>(),
            "host_resolutions": []
        });
        let a = Capture::from_slice(&serde_json::to_vec(&doc("s0", hint)).unwrap());
        let b = Capture::from_slice(&serde_json::to_vec(&doc("s1", hint + 3)).unwrap());
        if let (Ok(a), Ok(b)) = (a, b) {
            let c = Census::compute(&a, &FamilyTable::default());
            prop_assert_eq!(c.totals.ops, 1);
            let cmp = opguard_census::WidthComparison::compare(&a, &b, None).unwrap();
            prop_assert_eq!(cmp.free_symbol, cmp.evidence.checks().iter().all(|(_, c)| c.held));
        }
    }
}
