//! `opguard fixtures run`: the language-neutral parity fixtures through this
//! build.
//!
//! A user feature, not a test of the workspace: whoever builds or packages
//! `opguard` (or patches a crate) proves the binary they ship agrees with the
//! fixtures every other implementation runs, and sees which case does not.
//! Its contract (output lines, `--json` objects, exit status, the header
//! check) is README.md's "`opguard fixtures run`"; `tests/fixtures.rs` holds
//! it to that. It holds no contract logic of its own: it reads each case
//! file, calls the library function the case is about
//! ([`opguard_kernel_name::canonicalize`] / [`opguard_kernel_name::matches`],
//! [`opguard_select::verdict_from_request_file`],
//! [`opguard_scaling::run_trials_file`], [`opguard_align::export_records`] /
//! [`opguard_align::apply`]) and compares the JSON it answers with what the
//! case expects, the way the Python runner (`bindings/python/tests/`) does:
//! the same fields compared, the same error codes (without the C ABI's
//! `<crate>.` or `document.` prefix), the same case names `<file>::<id>`.
//!
//! Every file is read and checked before any case runs, so a malformed file
//! stops the run with status 2 and nothing on stdout.
//!
//! Why this lives in the binary and not in a library crate (issue 32): its
//! contract is the command's (lines, `--json` objects, exit status), and the
//! library contracts it exercises are already libraries; what is left here is
//! reading case files and comparing JSON, which every runner writes in its
//! own language on purpose: the Python and Node runners are independent
//! readers of the same files, and a shared Rust runner behind the C ABI would
//! make them prove agreement with themselves. A crate would have this command
//! as its only user. Should a second Rust user appear (a downstream crate
//! running the fixtures from `cargo test`), the loaders and `run_*` functions
//! move as they are into an `opguard-fixtures` library returning
//! [`CaseResult`]s, with [`CliError`]'s fixture codes as its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use opguard_kernel_name::{canonicalize, matches, short_name, Field, IDENTITY_SCHEME};
use opguard_scaling::Metric;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::cli::FixturesRunArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::Out;
use crate::scratch::ScratchDir;
use crate::style::Style;

/// One case file: its label (as the Python and Node runners name it), its
/// path under DIR, and the header it must open with (`fixtures/README.md`).
struct CaseFile {
    label: &'static str,
    path: &'static str,
    schema: &'static str,
    /// The `schema_version`s this runner reads.
    versions: &'static [u64],
}

/// `kernel_symbols.json`: versions 2 and 3 changed the identity rules, not
/// the fields.
const KERNEL_NAME: CaseFile = CaseFile {
    label: "kernel_symbols.json",
    path: "kernel-name/kernel_symbols.json",
    schema: "opguard.kernel-name.fixture",
    versions: &[1, 2, 3],
};
const SELECT: CaseFile = CaseFile {
    label: "select/cases.json",
    path: "select/cases.json",
    schema: "opguard.select.fixture",
    versions: &[2],
};
const SCALING: CaseFile = CaseFile {
    label: "scaling/cases.json",
    path: "scaling/cases.json",
    schema: "opguard.scaling.fixture",
    versions: &[2],
};
const ALIGN: CaseFile = CaseFile {
    label: "align/map_cases.json",
    path: "align/map_cases.json",
    schema: "opguard.align.fixture",
    versions: &[2],
};
/// Scaling fields compared with a relative tolerance of 1e-12 (its README).
const FLOAT_FIELDS: &[&str] = &["spearman_rho", "p_value", "adjusted_p_value"];
/// Per-operation expectations of an align case.
const ALIGN_PER_OPERATION: &[&str] = &[
    "statuses",
    "validation",
    "peers",
    "differences",
    "not_compared",
    "selectors",
    "basis",
    "superseded",
    "original_status",
    "displaced_by",
    "review_ids",
    "review_history_ids",
    "alternative_count",
    "evidence_references",
];
/// Whole-response expectations of an align case.
const ALIGN_RESPONSE: &[&str] = &[
    "result",
    "code",
    "pairs",
    "counts",
    "decisions",
    "validation_counts",
    "new_mappings",
    "displaced",
    "active_reviews",
    "reviews",
    "first_differences",
    "absent_paths",
];

/// One case's result: a `--json` line.
#[derive(Debug, Serialize)]
pub struct CaseResult {
    /// The case file's label, e.g. `select/cases.json`.
    pub file: &'static str,
    /// The case id.
    pub id: String,
    /// Whether the implementation agrees with the case.
    pub ok: bool,
    /// Why not (`null` when ok).
    pub message: Option<String>,
}

/// A fixture file this run did not run.
#[derive(Debug, Serialize)]
pub struct Skipped {
    /// The file or folder, relative to DIR.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// The last `--json` line.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Cases that passed.
    pub passed: u64,
    /// Cases that failed.
    pub failed: u64,
    /// Files not run.
    pub skipped: Vec<Skipped>,
}

/// Runs `opguard fixtures run`.
pub fn run(args: &FixturesRunArgs) -> Result<u8, CliError> {
    let dir = fixtures_dir(args.dir.as_deref())?;
    let mut skipped = Vec::new();
    let mut suites: Vec<Suite> = Vec::new();
    type Load = fn(&Path) -> Result<Suite, CliError>;
    let files: [(&CaseFile, Load); 4] = [
        (&KERNEL_NAME, |p| load_kernel_name(p).map(Suite::KernelName)),
        (&SELECT, |p| load_select(p).map(Suite::Select)),
        (&SCALING, |p| load_scaling(p).map(Suite::Scaling)),
        (&ALIGN, |p| load_align(p).map(Suite::Align)),
    ];
    for (file, load) in files {
        let path = dir.join(file.path);
        if !path.exists() {
            skipped.push(Skipped {
                file: file.path.to_owned(),
                reason: "not in this directory".to_owned(),
            });
            continue;
        }
        suites.push(load(&path)?);
    }
    if dir.join("census").is_dir() {
        skipped.push(Skipped {
            file: "census/".to_owned(),
            reason: "no case file: its expectations are prose in census/README.md".to_owned(),
        });
    }
    if suites.is_empty() {
        return Err(CliError::new(
            "no_fixtures",
            format!(
                "no fixture file in {} (expected {}, {}, {} or {})",
                dir.display(),
                KERNEL_NAME.path,
                SELECT.path,
                SCALING.path,
                ALIGN.path
            ),
        ));
    }

    let style = Style::for_stdout();
    let mut out = Out::new();
    let mut summary = Summary {
        passed: 0,
        failed: 0,
        skipped,
    };
    let mut emit = |r: CaseResult| -> Result<(), CliError> {
        if r.ok {
            summary.passed += 1;
        } else {
            summary.failed += 1;
        }
        if args.output.json {
            out.json_line(&r)
        } else {
            match &r.message {
                None => out.text(&format!("{}::{} ok\n", r.file, r.id)),
                Some(m) => out.text(&format!(
                    "{}::{} {} ({m})\n",
                    r.file,
                    r.id,
                    style.error("FAILED")
                )),
            }
        }
    };
    for suite in &suites {
        match suite {
            Suite::KernelName(f) => run_kernel_name(f, &mut emit)?,
            Suite::Select(f) => run_select(f, &mut emit)?,
            Suite::Scaling(f) => run_scaling(f, &mut emit)?,
            Suite::Align(f) => run_align(f, &mut emit)?,
        }
    }
    if args.output.json {
        out.json_line(&summary)?;
    } else {
        for s in &summary.skipped {
            out.text(&format!("skipped {}: {}\n", s.file, s.reason))?;
        }
        out.text(&format!(
            "{} passed, {} failed\n",
            summary.passed, summary.failed
        ))?;
    }
    out.flush()?;
    Ok(if summary.failed == 0 {
        exit::OK
    } else {
        exit::NEGATIVE
    })
}

/// DIR, else `./fixtures`, else the source tree's `fixtures/`.
fn fixtures_dir(given: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(d) = given {
        if d.is_dir() {
            return Ok(d.to_path_buf());
        }
        return Err(
            CliError::new("no_fixtures", "the fixtures directory does not exist")
                .in_input(d.display().to_string()),
        );
    }
    let candidates = [
        PathBuf::from("fixtures"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"),
    ];
    candidates
        .iter()
        .find(|d| d.is_dir())
        .cloned()
        .ok_or_else(|| {
            CliError::new(
                "no_fixtures",
                format!(
                    "no fixtures directory: neither ./fixtures nor {} exists; give DIR",
                    candidates[1].display()
                ),
            )
        })
}

enum Suite {
    KernelName(KernelNameFile),
    Select(SelectFile),
    Scaling(ScalingFile),
    Align(AlignFile),
}

// ---------------------------------------------------------------- loading

fn malformed(path: &Path, message: impl Into<String>) -> CliError {
    CliError::new("fixture_malformed", message).in_input(path.display().to_string())
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| malformed(path, format!("cannot read the fixture file: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| malformed(path, format!("not a valid fixture file: {e}")))
}

fn require(path: &Path, holds: bool, what: impl FnOnce() -> String) -> Result<(), CliError> {
    if holds {
        Ok(())
    } else {
        Err(malformed(path, what()))
    }
}

/// Reads a case file through the header every case file opens with
/// (`fixtures/README.md`): `schema` is `file`'s, `schema_version` one this
/// runner reads, `description` a string; every case list (`cases`,
/// `<kind>_cases`) is as long as its `case_count` / `<kind>_case_count` says
/// and every case id is non-empty and unique across the lists. Then the
/// whole document as `T`.
fn load_fixture<T: DeserializeOwned>(path: &Path, file: &CaseFile) -> Result<T, CliError> {
    let doc: Map<String, Value> = read_json(path)?;
    let schema = doc.get("schema");
    require(
        path,
        schema.and_then(Value::as_str) == Some(file.schema),
        || format!("schema is {}, expected {:?}", shown(schema), file.schema),
    )?;
    let version = doc.get("schema_version");
    require(
        path,
        version
            .and_then(Value::as_u64)
            .is_some_and(|v| file.versions.contains(&v)),
        || {
            format!(
                "schema_version {} is not one this runner reads ({:?})",
                shown(version),
                file.versions
            )
        },
    )?;
    require(
        path,
        doc.get("description").is_some_and(Value::is_string),
        || "description is missing or not a string".into(),
    )?;
    let mut seen = BTreeSet::new();
    for (list, cases) in &doc {
        let Some(kind) = list.strip_suffix("cases") else {
            continue;
        };
        let cases = cases
            .as_array()
            .ok_or_else(|| malformed(path, format!("{list} is not an array")))?;
        let count_field = format!("{kind}case_count");
        let declared = doc.get(&count_field);
        require(
            path,
            declared.and_then(Value::as_u64) == Some(cases.len() as u64),
            || {
                format!(
                    "{count_field} is {} but the file has {} cases",
                    shown(declared),
                    cases.len()
                )
            },
        )?;
        for case in cases {
            let id = case.get("id").and_then(Value::as_str).unwrap_or_default();
            require(path, !id.is_empty(), || {
                format!("a case of {list} has no id or an empty one")
            })?;
            require(path, seen.insert(id), || {
                format!("case id {id:?} is not unique")
            })?;
        }
    }
    serde_json::from_value(Value::Object(doc))
        .map_err(|e| malformed(path, format!("not a valid fixture file: {e}")))
}

/// A header value as the error message shows it.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

#[derive(Deserialize)]
struct KernelNameFile {
    identity_scheme: String,
    symbol_cases: Vec<SymbolCase>,
    verdict_cases: Vec<VerdictCase>,
}

#[derive(Deserialize)]
struct SymbolCase {
    id: String,
    symbol: String,
    demangled: Option<String>,
    expected: Map<String, Value>,
}

#[derive(Deserialize)]
struct VerdictCase {
    id: String,
    want: String,
    got: String,
    expected: VerdictExpected,
}

#[derive(Deserialize, Serialize, PartialEq)]
struct VerdictExpected {
    is_match: bool,
    reason: Option<String>,
    basis: Option<String>,
}

fn load_kernel_name(path: &Path) -> Result<KernelNameFile, CliError> {
    let f: KernelNameFile = load_fixture(path, &KERNEL_NAME)?;
    if f.identity_scheme != IDENTITY_SCHEME {
        return Err(CliError::new(
            "fixture_version",
            format!(
                "the fixture is for identity scheme {:?}; this build implements {IDENTITY_SCHEME:?}",
                f.identity_scheme
            ),
        )
        .in_input(path.display().to_string()));
    }
    for c in &f.symbol_cases {
        for field in Field::FIXTURE.map(Field::name) {
            require(path, c.expected.contains_key(field), || {
                format!("symbol case {}: expected.{field} is missing", c.id)
            })?;
        }
        require(
            path,
            c.expected.get("short_name").is_some_and(Value::is_string),
            || format!("symbol case {}: expected.short_name is not a string", c.id),
        )?;
    }
    Ok(f)
}

#[derive(Deserialize)]
struct SelectFile {
    #[serde(skip)]
    dir: PathBuf,
    cases: Vec<ExpectCase>,
}

/// A select or scaling case: what to run and what to expect.
#[derive(Deserialize)]
struct ExpectCase {
    id: String,
    #[serde(default)]
    request: Option<String>,
    #[serde(default)]
    trials: Option<String>,
    #[serde(default)]
    metric: Option<String>,
    expect: Map<String, Value>,
}

/// What a case expects: an error code, or fields / a report.
fn expected_error(path: &Path, c: &ExpectCase) -> Result<Option<String>, CliError> {
    match c.expect.get("error") {
        None => Ok(None),
        Some(Value::String(code)) => {
            require(path, c.expect.len() == 1, || {
                format!("case {}: expect has an error and other fields", c.id)
            })?;
            Ok(Some(code.clone()))
        }
        Some(_) => Err(malformed(
            path,
            format!("case {}: expect.error is not a string", c.id),
        )),
    }
}

fn load_select(path: &Path) -> Result<SelectFile, CliError> {
    let mut f: SelectFile = load_fixture(path, &SELECT)?;
    f.dir = parent(path);
    for c in &f.cases {
        require(path, c.request.is_some(), || {
            format!("case {}: no request", c.id)
        })?;
        expected_error(path, c)?;
    }
    Ok(f)
}

#[derive(Deserialize)]
struct ScalingFile {
    #[serde(skip)]
    dir: PathBuf,
    #[serde(skip)]
    plans: Vec<ScalingPlan>,
    cases: Vec<ExpectCase>,
}

enum ScalingPlan {
    Error(String),
    Report(Value),
}

fn load_scaling(path: &Path) -> Result<ScalingFile, CliError> {
    let mut f: ScalingFile = load_fixture(path, &SCALING)?;
    f.dir = parent(path);
    let mut plans = Vec::with_capacity(f.cases.len());
    for c in &f.cases {
        require(path, c.trials.is_some(), || {
            format!("case {}: no trials", c.id)
        })?;
        if let Some(m) = &c.metric {
            require(path, m.parse::<Metric>().is_ok(), || {
                format!("case {}: unknown metric {m:?}", c.id)
            })?;
        }
        let plan = match expected_error(path, c)? {
            Some(code) => ScalingPlan::Error(code),
            None => match c.expect.get("report") {
                Some(Value::String(report)) => {
                    ScalingPlan::Report(read_json(&f.dir.join(report)).map_err(|e| {
                        malformed(
                            path,
                            format!("case {}: expected report: {}", c.id, e.message),
                        )
                    })?)
                }
                _ => {
                    return Err(malformed(
                        path,
                        format!("case {}: expect has neither error nor report", c.id),
                    ))
                }
            },
        };
        plans.push(plan);
    }
    f.plans = plans;
    Ok(f)
}

#[derive(Deserialize)]
struct AlignFile {
    #[serde(skip)]
    dir: PathBuf,
    records: String,
    export: AlignExport,
    cases: Vec<AlignCase>,
}

#[derive(Deserialize)]
struct AlignExport {
    operations: u64,
    pairs: u64,
    statuses: Value,
    index: BTreeMap<String, u64>,
    first_non_operation_index: u64,
    #[serde(default)]
    first_differences: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct AlignCase {
    id: String,
    map: Value,
    expected: Map<String, Value>,
}

fn load_align(path: &Path) -> Result<AlignFile, CliError> {
    let mut f: AlignFile = load_fixture(path, &ALIGN)?;
    f.dir = parent(path);
    require(path, f.dir.join(&f.records).is_file(), || {
        format!("records file {} is missing", f.records)
    })?;
    for c in &f.cases {
        match c.expected.get("result").and_then(Value::as_str) {
            Some("ok") => {}
            Some("error") => require(
                path,
                c.expected.get("code").is_some_and(Value::is_string),
                || format!("case {}: an error case needs expected.code", c.id),
            )?,
            _ => {
                return Err(malformed(
                    path,
                    format!("case {}: expected.result is not \"ok\" or \"error\"", c.id),
                ))
            }
        }
        for key in c.expected.keys() {
            require(
                path,
                ALIGN_RESPONSE.contains(&key.as_str())
                    || ALIGN_PER_OPERATION.contains(&key.as_str()),
                || format!("case {}: unknown expectation {key:?}", c.id),
            )?;
        }
    }
    Ok(f)
}

fn parent(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new("")).to_path_buf()
}

// --------------------------------------------------------------- comparing

/// Mismatches found in one case.
#[derive(Default)]
struct Check(Vec<String>);

impl Check {
    fn eq(&mut self, what: impl std::fmt::Display, got: &Value, want: &Value) {
        if got != want {
            self.0.push(format!("{what}: expected {want}, got {got}"));
        }
    }

    fn holds(&mut self, holds: bool, what: impl FnOnce() -> String) {
        if !holds {
            self.0.push(what());
        }
    }

    fn result(self, file: &'static str, id: &str) -> CaseResult {
        CaseResult {
            file,
            id: id.to_owned(),
            ok: self.0.is_empty(),
            message: (!self.0.is_empty()).then(|| self.0.join("; ")),
        }
    }
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_else(|e| Value::String(format!("<not serializable: {e}>")))
}

type Emit<'a> = dyn FnMut(CaseResult) -> Result<(), CliError> + 'a;

fn run_kernel_name(f: &KernelNameFile, emit: &mut Emit<'_>) -> Result<(), CliError> {
    let file = KERNEL_NAME.label;
    for c in &f.symbol_cases {
        let mut check = Check::default();
        let got = to_value(&canonicalize(&c.symbol));
        for (field, want) in &c.expected {
            check.eq(field, &got[field.as_str()], want);
        }
        if let Some(d) = &c.demangled {
            check.eq("demangled", &got["demangled"], &Value::String(d.clone()));
        }
        let short = short_name(&c.symbol);
        check.eq(
            "short_name()",
            &Value::String(short.to_string()),
            &c.expected["short_name"],
        );
        emit(check.result(file, &c.id))?;
    }
    for c in &f.verdict_cases {
        let mut check = Check::default();
        let want = to_value(&c.expected);
        let forward = to_value(&matches(&c.want, &c.got));
        check.eq("matches(want, got)", &forward, &want);
        let backward = to_value(&matches(&c.got, &c.want));
        check.eq("matches(got, want) (symmetry)", &backward, &want);
        emit(check.result(file, &c.id))?;
    }
    Ok(())
}

fn run_select(f: &SelectFile, emit: &mut Emit<'_>) -> Result<(), CliError> {
    for c in &f.cases {
        let mut check = Check::default();
        let request = f.dir.join(c.request.as_deref().unwrap_or_default());
        let result = opguard_select::verdict_from_request_file(&request);
        match (result, c.expect.get("error").and_then(Value::as_str)) {
            (Err(e), Some(code)) => check.eq("error code", &e.code().into(), &code.into()),
            (Err(e), None) => check.holds(false, || format!("error[{}]: {e}", e.code())),
            (Ok(v), Some(code)) => check.holds(false, || {
                format!("expected error {code}, got a verdict (ok: {})", v.ok)
            }),
            (Ok(v), None) => {
                let got = to_value(&v);
                for (key, want) in &c.expect {
                    check.eq(key, &got[key.as_str()], want);
                }
            }
        }
        emit(check.result(SELECT.label, &c.id))?;
    }
    Ok(())
}

fn run_scaling(f: &ScalingFile, emit: &mut Emit<'_>) -> Result<(), CliError> {
    for (c, plan) in f.cases.iter().zip(&f.plans) {
        let mut check = Check::default();
        let trials = f.dir.join(c.trials.as_deref().unwrap_or_default());
        let metric = c.metric.as_deref().and_then(|m| m.parse::<Metric>().ok());
        let result = opguard_scaling::run_trials_file(&trials, metric);
        match (result, plan) {
            (Err(e), ScalingPlan::Error(code)) => {
                check.eq("error code", &e.code().into(), &code.as_str().into())
            }
            (Err(e), ScalingPlan::Report(_)) => {
                check.holds(false, || format!("error[{}]: {e}", e.code()))
            }
            (Ok(_), ScalingPlan::Error(code)) => {
                check.holds(false, || format!("expected error {code}, got a report"))
            }
            (Ok(report), ScalingPlan::Report(want)) => {
                if let Some(d) = first_difference(&to_value(&report), want, "report", None) {
                    check.holds(false, || d);
                }
            }
        }
        emit(check.result(SCALING.label, &c.id))?;
    }
    Ok(())
}

/// Where `got` first differs from `want` (the Python runner's `same`):
/// objects need the same keys, arrays the same length, and the scaling
/// float fields agree within a relative 1e-12.
fn first_difference(got: &Value, want: &Value, at: &str, key: Option<&str>) -> Option<String> {
    let differs = || Some(format!("{at}: expected {want}, got {got}"));
    match (got, want) {
        (Value::Number(g), Value::Number(w)) if key.is_some_and(|k| FLOAT_FIELDS.contains(&k)) => {
            match (g.as_f64(), w.as_f64()) {
                (Some(g), Some(w)) if g == w || (g - w).abs() <= 1e-12 * g.abs().max(w.abs()) => {
                    None
                }
                _ => differs(),
            }
        }
        (Value::Object(g), Value::Object(w)) => {
            let gk: BTreeSet<&String> = g.keys().collect();
            let wk: BTreeSet<&String> = w.keys().collect();
            if gk != wk {
                let extra: Vec<&&String> = gk.difference(&wk).collect();
                let missing: Vec<&&String> = wk.difference(&gk).collect();
                return Some(format!(
                    "{at}: keys differ (unexpected {extra:?}, missing {missing:?})"
                ));
            }
            w.iter().find_map(|(k, wv)| {
                first_difference(&g[k], wv, &format!("{at}.{k}"), Some(k.as_str()))
            })
        }
        (Value::Array(g), Value::Array(w)) => {
            if g.len() != w.len() {
                return Some(format!(
                    "{at}: expected {} elements, got {}",
                    w.len(),
                    g.len()
                ));
            }
            g.iter()
                .zip(w)
                .enumerate()
                .find_map(|(i, (gv, wv))| first_difference(gv, wv, &format!("{at}[{i}]"), key))
        }
        _ if got == want => None,
        _ => differs(),
    }
}

// ------------------------------------------------------------------- align

fn sha256_file(path: &Path) -> Result<String, std::io::Error> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let mut hex = String::with_capacity(64);
    for b in hasher.finalize() {
        let _ = write!(hex, "{b:02x}");
    }
    Ok(hex)
}

/// Operation events of a plain-JSON view by record id: (index, event).
type Ops = BTreeMap<String, (usize, Value)>;

fn read_ops(path: &Path) -> Result<Ops, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the view: {e}"))?;
    let view: Value =
        serde_json::from_str(&text).map_err(|e| format!("the view is not JSON: {e}"))?;
    let events = view["traceEvents"]
        .as_array()
        .ok_or("the view has no traceEvents array")?;
    let mut ops = Ops::new();
    for (i, e) in events.iter().enumerate() {
        if e["cat"] != opguard_align::CAT_OPERATION {
            continue;
        }
        let id = e["args"]["op"]["record_id"]
            .as_str()
            .ok_or_else(|| format!("operation event {i} has no args.op.record_id"))?;
        ops.insert(id.to_owned(), (i, e.clone()));
    }
    Ok(ops)
}

/// Replaces `$ARTIFACT`, `@<record_id>` and `#<n>` in a case's map.
fn substitute(v: &Value, sha: &str, ops: &Ops) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) if s == "$ARTIFACT" => Value::String(sha.to_owned()),
        Value::String(s) if s.starts_with('@') => {
            let (i, _) = ops
                .get(&s[1..])
                .ok_or_else(|| format!("the map names {s}, which the export does not have"))?;
            Value::String(format!("{sha}:{i}"))
        }
        Value::String(s) if s.starts_with('#') => Value::String(format!("{sha}:{}", &s[1..])),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute(x, sha, ops))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), substitute(x, sha, ops)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn first_differences_by_run(d: &[opguard_align::FirstDifference]) -> Value {
    Value::Object(
        d.iter()
            .map(|f| {
                (
                    format!("{}/{}", f.run, f.rank),
                    Value::String(f.record_id.clone()),
                )
            })
            .collect(),
    )
}

fn run_align(f: &AlignFile, emit: &mut Emit<'_>) -> Result<(), CliError> {
    let file = ALIGN.label;
    let scratch = ScratchDir::create("fixtures")?;
    let view = scratch.path().join("view.json");
    let exported = opguard_align::export_records(&f.dir.join(&f.records), &view)
        .map_err(|e| format!("exporting {} failed: error[{}]: {e}", f.records, e.code()))
        .and_then(|summary| Ok((read_ops(&view)?, summary)));
    let (ops, summary) = match exported {
        Ok(x) => x,
        Err(why) => {
            // Without the export no case can run; each says why.
            for id in std::iter::once("(export)").chain(f.cases.iter().map(|c| c.id.as_str())) {
                let mut check = Check::default();
                check.holds(false, || why.clone());
                emit(check.result(file, id))?;
            }
            return Ok(());
        }
    };
    let sha = summary.output_sha256.clone();

    let mut check = Check::default();
    let declared = &f.export;
    check.eq(
        "operations",
        &summary.operations.into(),
        &declared.operations.into(),
    );
    check.eq("pairs", &summary.pairs.into(), &declared.pairs.into());
    check.eq("statuses", &to_value(&summary.statuses), &declared.statuses);
    for (rid, i) in &declared.index {
        let got = ops
            .get(rid)
            .map_or(Value::Null, |(g, _)| (*g as u64).into());
        check.eq(format_args!("index of {rid}"), &got, &(*i).into());
    }
    check.eq(
        "first_non_operation_index",
        &(ops.len() as u64).into(),
        &declared.first_non_operation_index.into(),
    );
    if let Some(want) = &declared.first_differences {
        check.eq(
            "first_differences",
            &first_differences_by_run(&summary.first_differences),
            &to_value(want),
        );
    }
    match sha256_file(&view) {
        Ok(actual) => check.eq("output_sha256", &sha.as_str().into(), &actual.into()),
        Err(e) => check.holds(false, || format!("cannot hash the view: {e}")),
    }
    emit(check.result(file, "(export)"))?;

    for (n, c) in f.cases.iter().enumerate() {
        let case_dir = scratch.path().join(format!("case-{n}"));
        std::fs::create_dir(&case_dir)
            .map_err(|e| CliError::new("io", format!("cannot create a scratch directory: {e}")))?;
        let mut check = Check::default();
        align_case(c, &view, &sha, &ops, &case_dir, &mut check);
        match sha256_file(&view) {
            Ok(now) => check.holds(now == sha, || "the original export changed".into()),
            Err(e) => check.holds(false, || format!("cannot hash the export: {e}")),
        }
        let _ = std::fs::remove_dir_all(&case_dir);
        emit(check.result(file, &c.id))?;
    }
    Ok(())
}

fn align_case(c: &AlignCase, view: &Path, sha: &str, ops: &Ops, dir: &Path, check: &mut Check) {
    let map = match substitute(&c.map, sha, ops) {
        Ok(m) => m,
        Err(why) => return check.holds(false, || why),
    };
    let map_path = dir.join("map.json");
    if let Err(e) = std::fs::write(&map_path, map.to_string()) {
        return check.holds(false, || format!("cannot write the map: {e}"));
    }
    let out = dir.join("reviewed.json");
    let result = opguard_align::apply(view, &map_path, &out);
    let expected = &c.expected;
    match (result, expected["result"].as_str()) {
        (Err(e), Some("error")) => {
            check.eq("error code", &e.code().into(), &expected["code"]);
            check.holds(!e.to_string().is_empty(), || {
                "the error has no message".into()
            });
            check.holds(!out.exists(), || "a refused map wrote its output".into());
            let listing: Vec<String> = std::fs::read_dir(dir)
                .map(|d| {
                    d.filter_map(Result::ok)
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            check.holds(listing == ["map.json"], || {
                format!("a refused map left files behind: {listing:?}")
            });
        }
        (Err(e), _) => check.holds(false, || format!("error[{}]: {e}", e.code())),
        (Ok(_), _) if expected["result"] == "error" => check.holds(false, || {
            format!(
                "expected error {}, but the map was applied",
                expected["code"]
            )
        }),
        (Ok(response), _) => align_ok(expected, &response, &out, sha, &map_path, check),
    }
}

fn list_of(v: &Value, key: &str) -> Value {
    Value::Array(
        v.as_array()
            .map(|a| a.iter().map(|e| e[key].clone()).collect())
            .unwrap_or_default(),
    )
}

fn per_operation(kind: &str, c: &Value) -> Value {
    match kind {
        "statuses" => c["status"].clone(),
        "validation" => c["validation"].clone(),
        "peers" => c["peer"]["record_id"].clone(),
        "superseded" => list_of(&c["original_comparison"], "superseded"),
        "original_status" => list_of(&c["original_comparison"], "status"),
        "displaced_by" => c["original_comparison"]
            .as_array()
            .and_then(|a| a.last())
            .map_or(Value::Null, |e| e["displaced_by"].clone()),
        "review_ids" => c["review"]["id"].clone(),
        "review_history_ids" => list_of(&c["review_history"], "id"),
        "alternative_count" => Value::from(c["alternative_reviews"].as_array().map_or(0, Vec::len)),
        "evidence_references" => list_of(&c["review"]["evidence"], "reference"),
        // differences, not_compared, selectors, basis
        other => c[other].clone(),
    }
}

fn align_ok(
    expected: &Map<String, Value>,
    response: &opguard_align::Response,
    out: &Path,
    sha: &str,
    map_path: &Path,
    check: &mut Check,
) {
    let resp = to_value(response);
    check.eq("verdict", &resp["verdict"], &"not_evaluated".into());
    check.eq(
        "workload_launched",
        &resp["workload_launched"],
        &false.into(),
    );
    check.eq("protocol_version", &resp["protocol_version"], &1.into());
    check.eq("artifact_sha256", &resp["artifact_sha256"], &sha.into());
    for (key, path) in [("output_sha256", out), ("alignment_map_sha256", map_path)] {
        match sha256_file(path) {
            Ok(actual) => check.eq(key, &resp[key], &actual.into()),
            Err(e) => check.holds(false, || format!("{key}: cannot hash the file: {e}")),
        }
    }
    match opguard_align::validate_export(out) {
        Ok(report) => check.holds(report.is_valid(), || {
            format!(
                "the reviewed view is invalid: {}",
                report.problems.join(", ")
            )
        }),
        Err(e) => check.holds(false, || format!("cannot validate the reviewed view: {e}")),
    }
    let ops = match read_ops(out) {
        Ok(ops) => ops,
        Err(why) => return check.holds(false, || why),
    };
    for (key, want) in expected {
        match key.as_str() {
            "result" | "code" => {}
            "pairs" | "decisions" | "new_mappings" | "displaced" | "active_reviews" | "reviews" => {
                check.eq(key, &resp[key.as_str()], want)
            }
            "counts" => check.eq("statuses", &resp["statuses"], want),
            "validation_counts" => check.eq("validation", &resp["validation"], want),
            "first_differences" => check.eq(
                key,
                &first_differences_by_run(&response.first_differences),
                want,
            ),
            "absent_paths" => {
                for p in want.as_array().into_iter().flatten() {
                    let p = p.as_str().unwrap_or_default();
                    check.holds(!Path::new(p).exists(), || format!("{p} exists"));
                }
            }
            kind => {
                let Some(per_op) = want.as_object() else {
                    check.holds(false, || format!("{kind}: expected an object by record id"));
                    continue;
                };
                for (rid, w) in per_op {
                    let Some((_, event)) = ops.get(rid) else {
                        check.holds(false, || format!("{kind}: no operation {rid}"));
                        continue;
                    };
                    let got = per_operation(kind, &event["args"]["correspondence"]);
                    // Absent lists read as empty.
                    let got = if got.is_null() && w.is_array() {
                        Value::Array(Vec::new())
                    } else {
                        got
                    };
                    check.eq(format_args!("{kind} of {rid}"), &got, w);
                }
            }
        }
    }
    for (rid, (_, e)) in &ops {
        check.eq(
            format_args!("tensor_equality of {rid}"),
            &e["args"]["correspondence"]["tensor_equality"],
            &"not_established".into(),
        );
    }
}
