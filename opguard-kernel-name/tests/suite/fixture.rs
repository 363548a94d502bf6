//! The language-neutral parity fixture, run and linted.

use std::collections::BTreeSet;

use opguard_kernel_name::{canonicalize, matches, Field};
use serde_json::Value;

use crate::suite::common::hta_dir;

const FILE: &str = "kernel_symbols.json";
const SOURCES: &[&str] = &[
    "seed",
    "cuda_capture",
    "rocm_capture",
    "triton_capture",
    "mangled_capture",
    "mtia_capture",
    "synthetic",
    "tracelens",
];
const REASONS: &[&str] = &[
    "memory_op_differs",
    "opaque_symbol_differs",
    "degenerate_token",
    "base_differs",
    "qualification_differs",
    "template_args_differ",
];
const BASES: &[&str] = &[
    "exact",
    "base_only",
    "elided_prefix",
    "display_truncation",
    "memory_op",
    "opaque_symbol",
];

/// The fixture through the workspace's one loader, which holds its header
/// (schema, version, case counts, unique non-empty ids) to fixtures/README.md.
pub fn load() -> Value {
    opguard_testdata::load_fixture(
        "kernel-name/kernel_symbols.json",
        "opguard.kernel-name.fixture",
        3,
    )
}

fn cases<'v>(fixture: &'v Value, key: &str) -> &'v Vec<Value> {
    fixture[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is an array"))
}

/// Prints the tally and fails with every failing `<file>::<id>` listed.
fn report(kind: &str, checked: usize, failures: &[String]) {
    println!(
        "{checked} {kind} cases checked, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "failing cases:\n{}",
        failures.join("\n")
    );
}

/// One named result per symbol case: `kernel_symbols.json::<id>`.
#[test]
fn fixture_symbol_cases() {
    let fixture = load();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases(&fixture, "symbol_cases") {
        let id = case["id"].as_str().unwrap_or("<no id>");
        let symbol = case["symbol"].as_str().unwrap_or_default();
        let got = serde_json::to_value(canonicalize(symbol)).expect("serialize");
        for field in Field::FIXTURE.map(Field::name) {
            if got[field] != case["expected"][field] {
                failures.push(format!(
                    "{FILE}::{id} field `{field}`: expected {}, got {}",
                    case["expected"][field], got[field]
                ));
            }
        }
        if !case["demangled"].is_null() && got["demangled"] != case["demangled"] {
            failures.push(format!("{FILE}::{id} field `demangled` differs"));
        }
        checked += 1;
    }
    report("symbol", checked, &failures);
}

/// One named result per verdict case, in both directions (the matcher is symmetric).
#[test]
fn fixture_verdict_cases() {
    let fixture = load();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases(&fixture, "verdict_cases") {
        let id = case["id"].as_str().unwrap_or("<no id>");
        let want = case["want"].as_str().unwrap_or_default();
        let got = case["got"].as_str().unwrap_or_default();
        let forward = serde_json::to_value(matches(want, got)).expect("serialize");
        let backward = serde_json::to_value(matches(got, want)).expect("serialize");
        for key in ["is_match", "reason", "basis"] {
            if forward[key] != case["expected"][key] {
                failures.push(format!(
                    "{FILE}::{id} `{key}`: expected {}, got {}",
                    case["expected"][key], forward[key]
                ));
            }
        }
        if forward != backward {
            failures.push(format!(
                "{FILE}::{id} is not symmetric: {forward} vs {backward}"
            ));
        }
        checked += 1;
    }
    report("verdict", checked, &failures);
}

/// The fixture itself beyond its header: the crate's constants, field types,
/// coverage.
#[test]
fn fixture_lint() {
    let fixture = load();
    let mut problems: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    check(
        fixture["identity_scheme"] == opguard_kernel_name::IDENTITY_SCHEME,
        "identity_scheme matches the crate".into(),
    );
    check(
        fixture["constants"]["short_name_limit"] == opguard_kernel_name::SHORT_NAME_LIMIT,
        "short_name_limit matches the crate".into(),
    );
    check(
        fixture["constants"]["min_token_len"] == opguard_kernel_name::MIN_TOKEN_LEN,
        "min_token_len matches the crate".into(),
    );
    let symbols = cases(&fixture, "symbol_cases");
    let verdicts = cases(&fixture, "verdict_cases");
    check(
        symbols.len() >= 80,
        format!("at least 80 symbols ({})", symbols.len()),
    );
    check(
        verdicts.len() >= 80,
        format!("at least 80 verdicts ({})", verdicts.len()),
    );
    let negative = verdicts
        .iter()
        .filter(|v| v["expected"]["is_match"] == false)
        .count();
    check(
        negative * 2 >= verdicts.len(),
        format!(
            "at least half the verdicts negative ({negative}/{})",
            verdicts.len()
        ),
    );

    let mut traces_named = BTreeSet::new();
    let mut sources = BTreeSet::new();
    let is_str = |v: &Value| v.is_string();
    let is_opt_str = |v: &Value| v.is_string() || v.is_null();
    for case in symbols.iter().chain(verdicts) {
        let id = case["id"].as_str().unwrap_or_default().to_owned();
        check(
            case["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty() && !d.contains('\n')),
            format!("{FILE}::{id} one-line description"),
        );
        check(
            case["flags"]
                .as_array()
                .is_some_and(|f| !f.is_empty() && f.iter().all(is_str)),
            format!("{FILE}::{id} flags"),
        );
    }
    for case in symbols {
        let id = case["id"].as_str().unwrap_or_default();
        let e = &case["expected"];
        check(id.starts_with("sym-"), format!("{FILE}::{id} prefix"));
        check(is_str(&case["symbol"]), format!("{FILE}::{id} symbol"));
        check(
            is_opt_str(&case["demangled"]),
            format!("{FILE}::{id} demangled"),
        );
        let source = case["source"].as_str().unwrap_or_default();
        sources.insert(source.to_owned());
        check(
            SOURCES.contains(&source),
            format!("{FILE}::{id} source {source}"),
        );
        let real = source.ends_with("_capture");
        match case["traces"].as_array() {
            Some(files) => {
                check(
                    real && !files.is_empty(),
                    format!("{FILE}::{id} traces only for captures"),
                );
                traces_named.extend(files.iter().filter_map(|f| f.as_str().map(str::to_owned)));
            }
            None => check(
                !real && case["traces"].is_null(),
                format!("{FILE}::{id} capture names its trace"),
            ),
        }
        for key in ["base", "short_name", "identity"] {
            check(is_str(&e[key]), format!("{FILE}::{id} expected.{key}"));
        }
        for key in ["qualification", "annotation"] {
            check(is_opt_str(&e[key]), format!("{FILE}::{id} expected.{key}"));
        }
        for key in ["degenerate", "truncated"] {
            check(e[key].is_boolean(), format!("{FILE}::{id} expected.{key}"));
        }
        let kind = e["template"]["kind"].as_str().unwrap_or_default();
        check(
            ["none", "complete", "elided"].contains(&kind),
            format!("{FILE}::{id} template.kind"),
        );
        check(
            e["template"]["args"]
                .as_array()
                .is_some_and(|a| a.iter().all(is_str)),
            format!("{FILE}::{id} template.args"),
        );
        check(
            is_opt_str(&e["template"]["partial"])
                && (kind == "elided" || e["template"]["partial"].is_null()),
            format!("{FILE}::{id} template.partial only when elided"),
        );
        check(
            ["none", "demangled", "name_only", "opaque"]
                .contains(&e["mangling"].as_str().unwrap_or_default()),
            format!("{FILE}::{id} mangling"),
        );
        check(
            e["memory_op"].is_null()
                || (["memcpy", "memset"]
                    .contains(&e["memory_op"]["kind"].as_str().unwrap_or_default())
                    && is_opt_str(&e["memory_op"]["direction"])),
            format!("{FILE}::{id} memory_op"),
        );
        // Derived fields follow from the hand-written parts (guards typing errors).
        let base = e["base"].as_str().unwrap_or_default();
        let special = !e["memory_op"].is_null() || e["mangling"] == "opaque";
        let short_or_bare_keyword =
            base.chars().count() < opguard_kernel_name::MIN_TOKEN_LEN || base == "operator";
        check(
            e["degenerate"] == (!special && short_or_bare_keyword),
            format!("{FILE}::{id} degenerate follows from base"),
        );
        check(
            e["truncated"]
                == (!special && base.chars().count() == opguard_kernel_name::SHORT_NAME_LIMIT),
            format!("{FILE}::{id} truncated follows from base"),
        );
        check(
            e["short_name"]
                .as_str()
                .is_some_and(|s| s.chars().count() <= opguard_kernel_name::SHORT_NAME_LIMIT),
            format!("{FILE}::{id} short_name within the limit"),
        );
    }
    for case in verdicts {
        let id = case["id"].as_str().unwrap_or_default();
        let e = &case["expected"];
        check(id.starts_with("ver-"), format!("{FILE}::{id} prefix"));
        check(
            is_str(&case["want"]) && is_str(&case["got"]),
            format!("{FILE}::{id} want/got"),
        );
        check(
            case["why"].as_str().is_some_and(|w| !w.is_empty()),
            format!("{FILE}::{id} why"),
        );
        let matched = e["is_match"].as_bool();
        check(matched.is_some(), format!("{FILE}::{id} is_match"));
        let reason = e["reason"].as_str();
        let basis = e["basis"].as_str();
        check(
            match matched {
                Some(true) => e["reason"].is_null() && basis.is_some_and(|b| BASES.contains(&b)),
                Some(false) => e["basis"].is_null() && reason.is_some_and(|r| REASONS.contains(&r)),
                None => false,
            },
            format!("{FILE}::{id} reason/basis"),
        );
    }
    for source in SOURCES {
        check(
            sources.contains(*source),
            format!("some case has source {source}"),
        );
    }
    // Every trace file that holds kernel names contributes at least one case.
    if let Some(dir) = hta_dir() {
        let mut with_names = BTreeSet::new();
        for (_, files) in crate::suite::common::trace_names(&dir) {
            with_names.extend(files);
        }
        for file in &with_names {
            check(
                traces_named.contains(file),
                format!("a case comes from {file}"),
            );
        }
        for file in &traces_named {
            check(dir.join(file).is_file(), format!("trace {file} exists"));
        }
    }
    assert!(
        problems.is_empty(),
        "fixture problems:\n{}",
        problems.join("\n")
    );
}
