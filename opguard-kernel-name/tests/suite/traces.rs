//! Every distinct kernel and memory symbol in the shared HTA traces.

use std::collections::BTreeMap;

use opguard_kernel_name::{canonicalize, matches, short_name, Canonical, TemplateKind};

use crate::suite::common::{hta_dir, trace_names};

/// Each real name certifies itself and is certified by its own short name
/// (seed 001: 49.5% of head rows failed this), and none is degenerate (seed
/// 001: 8 degenerate tokens, 9 kernels in the `void` bucket).
#[test]
fn every_real_name_matches_itself_and_its_short_name() {
    let Some(dir) = hta_dir() else { return };
    let names = trace_names(&dir);
    assert!(
        !names.is_empty(),
        "no kernel names found in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut identities: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, files) in &names {
        let c = canonicalize(name);
        if c.is_degenerate() {
            failures.push(format!(
                "degenerate base {:?} for {name:?} ({files:?})",
                c.base()
            ));
        }
        if c.base() == "void" {
            failures.push(format!("`void` identity for {name:?}"));
        }
        let own = matches(name, name);
        if !own.is_match {
            failures.push(format!("{name:?} does not match itself: {own:?}"));
        }
        let short = short_name(name);
        let via_short = matches(&short, name);
        if !via_short.is_match {
            failures.push(format!(
                "short name {short:?} does not match {name:?}: {via_short:?}"
            ));
        }
        identities.entry(c.identity()).or_default().push(name);
    }
    println!(
        "{} distinct real names, {} distinct identities, {} self/short-name failures",
        names.len(),
        identities.len(),
        failures.len()
    );
    for (identity, group) in identities.iter().filter(|(_, g)| g.len() > 1) {
        let shown: String = identity.chars().take(90).collect();
        println!("  identity {shown:?} is shared by {} names:", group.len());
        for name in group {
            let shown: String = name.chars().take(110).collect();
            println!("    {shown}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Real names from other producers (AMD TraceLens's test traces: H100,
/// B200, MI210, MI300; SGLang, vLLM, xDiT, CK, aiter), committed as a list:
/// each certifies itself, its own short name certifies it, its short name is
/// a name a person would write (never a cut `_Z...` string), and no two
/// distinct real names share an identity.
#[test]
fn every_real_name_from_other_producers_matches_its_own_short_name() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/kernel-name/real-names/tracelens.json");
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read the real-name list"))
            .expect("parse the real-name list");
    let names: Vec<&str> = list["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len() as u64, list["count"].as_u64().unwrap());
    assert!(names.len() > 500, "{} names", names.len());
    let mut failures = Vec::new();
    let mut identities: BTreeMap<String, &str> = BTreeMap::new();
    for name in &names {
        let c = canonicalize(name);
        let short = short_name(name);
        if c.is_degenerate() {
            failures.push(format!("degenerate base {:?} for {name:?}", c.base()));
        }
        if short.starts_with("_Z") {
            failures.push(format!("short name {short:?} is a cut mangled string"));
        }
        if !matches(name, name).is_match {
            failures.push(format!("{name:?} does not match itself"));
        }
        let via_short = matches(&short, name);
        if !via_short.is_match {
            failures.push(format!(
                "short name {short:?} does not match {name:?}: {via_short:?}"
            ));
        }
        if let Some(other) = identities.insert(c.qualified_identity(), name) {
            failures.push(format!("{name:?} and {other:?} share an identity"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn both_complete_and_different(a: &Canonical<'_>, b: &Canonical<'_>) -> bool {
    a.template().kind() == TemplateKind::Complete
        && b.template().kind() == TemplateKind::Complete
        && (a.template().len() != b.template().len()
            || !a.template().args().eq(b.template().args()))
}

/// No two real names with different complete template arguments match, and
/// none share an identity; the matcher is symmetric on every real pair.
/// Prints which distinct names do match each other (and on what basis), and
/// how many names each short name stands for (the seam verdict's ambiguity).
#[test]
fn different_complete_template_arguments_never_match() {
    let Some(dir) = hta_dir() else { return };
    let names = trace_names(&dir);
    let canon: Vec<Canonical<'_>> = names.iter().map(|(n, _)| canonicalize(n)).collect();
    let mut failures = Vec::new();
    let mut matched_pairs: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut pairs = 0usize;
    for i in 0..canon.len() {
        for j in (i + 1)..canon.len() {
            pairs += 1;
            let (a, b) = (&canon[i], &canon[j]);
            let forward = a.matches(b);
            if forward != b.matches(a) {
                failures.push(format!(
                    "asymmetric verdict for {:?} / {:?}",
                    names[i].0, names[j].0
                ));
            }
            if both_complete_and_different(a, b) {
                if forward.is_match {
                    failures.push(format!(
                        "different arguments match: {:?} / {:?}",
                        names[i].0, names[j].0
                    ));
                }
                if a.identity() == b.identity() {
                    failures.push(format!(
                        "different arguments, same identity: {:?}",
                        a.identity()
                    ));
                }
            }
            if forward.is_match {
                *matched_pairs
                    .entry(forward.basis.map_or("?", |b| b.code()))
                    .or_default() += 1;
                let shown = |s: &str| s.chars().take(80).collect::<String>();
                println!(
                    "  distinct names match ({:?}): {} | {}",
                    forward.basis,
                    shown(&names[i].0),
                    shown(&names[j].0)
                );
            }
        }
    }
    println!("{pairs} distinct pairs; matching pairs by basis: {matched_pairs:?}");
    let mut ambiguous = 0;
    for (name, _) in &names {
        let short = short_name(name);
        let short_c = canonicalize(&short);
        let hits = canon.iter().filter(|c| short_c.matches(c).is_match).count();
        if hits > 1 {
            ambiguous += 1;
        }
    }
    println!(
        "{ambiguous} of {} short names stand for more than one distinct name",
        names.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const MTIA_TRACE: &str = "mtia_trace_single_rank__mtia_rank_0.json.gz";

/// MTIA's device ops (`add-dtype_Float`, `aten::mul.out-dtype_Float`, ...)
/// each have their own identity and certify only themselves. Identity v1
/// split them at `-` and `.`, so 29 different ops shared the identity
/// `dtype_Float` and matched each other exactly (527 matching distinct pairs
/// among the 70 names): the degenerate shared token of seed 001.
#[test]
fn mtia_device_ops_certify_only_themselves() {
    let Some(dir) = hta_dir() else { return };
    let names: Vec<String> = trace_names(&dir)
        .into_iter()
        .filter(|(_, files)| files.iter().any(|f| f == MTIA_TRACE))
        .map(|(name, _)| name)
        .collect();
    assert!(
        names.iter().any(|n| n == "aten::mul.out-dtype_Float"),
        "the MTIA trace's device ops were not read ({} names)",
        names.len()
    );
    let canon: Vec<Canonical<'_>> = names.iter().map(|n| canonicalize(n)).collect();
    let mut failures = Vec::new();
    let mut buckets: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, c) in names.iter().zip(&canon) {
        if !c.matches(c).is_match {
            failures.push(format!(
                "{name:?} does not certify itself: {:?}",
                c.matches(c)
            ));
        }
        buckets.entry(c.identity()).or_default().push(name);
    }
    let mut matching = 0usize;
    for i in 0..canon.len() {
        for j in (i + 1)..canon.len() {
            let v = canon[i].matches(&canon[j]);
            if v.is_match {
                matching += 1;
                failures.push(format!(
                    "{:?} certifies {:?} ({:?})",
                    names[i], names[j], v.basis
                ));
            }
        }
    }
    let largest = buckets.iter().max_by_key(|(_, g)| g.len());
    for (identity, group) in buckets.iter().filter(|(_, g)| g.len() > 1) {
        failures.push(format!(
            "identity {identity:?} is shared by {} ops: {group:?}",
            group.len()
        ));
    }
    println!(
        "{} MTIA device op names, {} identities, largest bucket {:?}, {matching} matching distinct pairs",
        names.len(),
        buckets.len(),
        largest.map(|(identity, g)| (identity, g.len()))
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
