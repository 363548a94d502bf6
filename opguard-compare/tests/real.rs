//! Real traces from ../shared/data: HTA's two runs of one program
//! (`trace_compare__base`, `__test`), held against an independent referee
//! in Python over the same files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use opguard_compare::{compare_paths, CompareOptions, EntityKind, GateStatus, SampleUnit, Verdict};
use opguard_testdata::shared_file;

fn hta(name: &str) -> Option<PathBuf> {
    shared_file(&format!("traces/hta/{name}"))
}

/// Per step (`ProfilerStep#N` on the host), per event name: the time of the
/// events of that name in it. A device event (kernel, memcpy, memset)
/// belongs to the step its launch (the `cuda_runtime` call of the same
/// correlation) started in, or, with no launch in the file, the step it
/// started in; a host event to the step of its own process it started in.
/// Prints `{"device"|"host": {name: [ns per step]}}`.
const REFEREE: &str = r#"
import gzip, json, sys
events = json.load(gzip.open(sys.argv[1]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"], e["pid"]) for e in events
               if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
launch = {e["args"]["correlation"]: e for e in events
          if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
def step_of(ts, pid):
    for i, (start, end, step_pid) in enumerate(steps):
        if (pid is None or pid == step_pid) and start <= ts < end:
            return i
out = {"device": {}, "host": {}}
for e in events:
    if e.get("ph") != "X" or e["name"].startswith("ProfilerStep#"):
        continue
    if e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset"):
        side = "device"
        l = launch.get(e["args"].get("correlation"))
        step = step_of(l["ts"], l["pid"]) if l else step_of(e["ts"], None)
    else:
        side = "host"
        step = step_of(e["ts"], e["pid"])
    if step is not None:
        out[side].setdefault(e["name"], [0] * len(steps))[step] += round(e["dur"] * 1000)
print(json.dumps(out))
"#;

type Referee = BTreeMap<String, BTreeMap<String, Vec<i64>>>;

fn referee(path: &std::path::Path) -> Referee {
    let out = opguard_testdata::python3([
        std::ffi::OsStr::new("-c"),
        REFEREE.as_ref(),
        path.as_os_str(),
    ]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// Each entity's per-step samples on both sides are the referee's, every
/// entity the referee sees is compared, and with two steps a side nothing
/// is tested: the gate is undecided and says that 2 against 2 can never
/// reach 5%.
#[test]
fn hta_two_runs_of_one_program() {
    let (Some(base), Some(test)) = (
        hta("trace_compare__base__base.json.gz"),
        hta("trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let c = compare_paths(
        std::slice::from_ref(&base),
        std::slice::from_ref(&test),
        &CompareOptions::new(),
    )
    .unwrap();
    assert_eq!(c.sample_unit, SampleUnit::Step);
    for side in [&c.baseline, &c.candidate] {
        assert_eq!(side.providers, ["kineto_cuda"]);
        assert_eq!(
            side.runs[0].steps,
            ["ProfilerStep#1009", "ProfilerStep#1010"]
        );
    }
    // Expected per-step samples by join key, from the referee.
    let expected = |r: &Referee| -> BTreeMap<(bool, String), Vec<i64>> {
        let mut by_key: BTreeMap<(bool, String), Vec<i64>> = BTreeMap::new();
        for (side, names) in r {
            for (name, ns) in names {
                let key = if side == "device" {
                    opguard_kernel_name::canonicalize(name).qualified_identity()
                } else {
                    name.clone()
                };
                let sum = by_key
                    .entry((side == "device", key))
                    .or_insert(vec![0; ns.len()]);
                for (s, v) in sum.iter_mut().zip(ns) {
                    *s += v;
                }
            }
        }
        by_key
    };
    let (want_base, want_test) = (expected(&referee(&base)), expected(&referee(&test)));
    let mut seen = 0;
    for e in &c.entities {
        let key = (
            e.kind.is_device(),
            if e.kind.is_device() {
                e.key.clone()
            } else {
                e.name.clone()
            },
        );
        let zeros = vec![0, 0];
        let b = want_base.get(&key);
        let t = want_test.get(&key);
        assert!(b.is_some() || t.is_some(), "{key:?} is not in the referee");
        assert_eq!(
            &e.baseline.samples_ns,
            b.unwrap_or(&zeros),
            "baseline {key:?}"
        );
        assert_eq!(
            &e.candidate.samples_ns,
            t.unwrap_or(&zeros),
            "candidate {key:?}"
        );
        seen += 1;
    }
    let union: std::collections::BTreeSet<_> = want_base.keys().chain(want_test.keys()).collect();
    assert_eq!(
        seen,
        union.len(),
        "every entity the referee sees is compared: {union:?}"
    );
    // The test's extra operators are its own; nothing is tested.
    let only: Vec<(&str, Verdict)> = c
        .entities
        .iter()
        .filter(|e| {
            matches!(
                e.verdict,
                Verdict::OnlyInBaseline | Verdict::OnlyInCandidate
            )
        })
        .map(|e| (e.name.as_str(), e.verdict))
        .collect();
    assert_eq!(
        only,
        [
            ("All2All_Pooled_Req", Verdict::OnlyInCandidate),
            ("AddmmBackward0", Verdict::OnlyInCandidate),
            ("CatBackward0", Verdict::OnlyInCandidate)
        ]
    );
    assert_eq!(c.tested, 0);
    assert_eq!(c.gate.status, GateStatus::Undecided);
    for e in c.all().filter(|e| e.verdict == Verdict::Insufficient) {
        let why = e.why.as_deref().unwrap_or_default();
        assert!(
            why.contains("2 baseline steps and 2 candidate steps"),
            "{why}"
        );
        assert!(why.contains("0.3333, above the FDR 0.05"), "{why}");
    }
    let step = c
        .totals
        .iter()
        .find(|t| t.kind == EntityKind::StepDuration)
        .unwrap();
    assert_eq!(step.baseline.samples_ns, [100_298_000, 122_149_000]);
    assert_eq!(step.candidate.samples_ns, [100_298_000, 122_149_000]);
}

/// `--step` naming a range the real traces lack is an error, and one real
/// trace named twice on a side is refused.
#[test]
fn hta_pair_refuses_a_missing_step_range_and_a_trace_given_twice() {
    let (Some(base), Some(test)) = (
        hta("trace_compare__base__base.json.gz"),
        hta("trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let e = compare_paths(
        std::slice::from_ref(&base),
        std::slice::from_ref(&test),
        &CompareOptions::new().step("train_step"),
    )
    .unwrap_err();
    assert_eq!(e.code(), "step_not_found");
    let e = compare_paths(&[base.clone(), base], &[test], &CompareOptions::new()).unwrap_err();
    assert_eq!(e.code(), "artifact_reused");
}

/// A job of ranks: the two real ranks of one job as the baseline, the same
/// ranks with every kernel 1.5 times longer as the candidate (two runs of
/// two steps a side: 4 samples against 4). At FDR 0.05 over some 400
/// entities no lone change could be found, and the gate passes saying so
/// (`low_power`); at FDR 0.1 the slower kernels are found — kernels and
/// the device totals, never a host operation, whose time did not change.
#[test]
fn a_job_of_ranks_with_slower_kernels() {
    let (Some(r0), Some(r1)) = (
        hta("trace_filter__sampled_rank-0.json.gz"),
        hta("trace_filter__sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slow: Vec<PathBuf> = [(&r0, 0), (&r1, 1)]
        .into_iter()
        .map(|(src, rank)| {
            let dst = dir.path().join(format!("slow_rank{rank}.json.gz"));
            opguard_testdata::rank_copy(src, &dst, rank, 1.5);
            dst
        })
        .collect();
    let base = [r0, r1];
    let c = compare_paths(&base, &slow, &CompareOptions::new()).unwrap();
    assert_eq!(c.baseline.samples.len(), 4, "two ranks of two steps");
    assert_eq!(c.gate.status, GateStatus::Passed);
    assert!(c.tested > 300, "{}", c.tested);
    let low_power = c.gate.caveats.iter().find(|c| c.starts_with("low_power:"));
    assert!(
        low_power.is_some_and(|c| c.contains("smallest p-value is 0.0286")),
        "{:?}",
        c.gate.caveats
    );
    for e in c
        .entities
        .iter()
        .filter(|e| e.verdict == Verdict::Unchanged)
    {
        let ratio = e.ratio.unwrap_or(1.0);
        if e.kind == EntityKind::Kernel && e.baseline.median_ns.unwrap_or(0.0) > 100_000.0 {
            // Durations are whole microseconds: each slowed slice rounds.
            assert!((ratio - 1.5).abs() < 0.03, "{} {ratio}", e.name);
        } else if !e.kind.is_device() {
            assert_eq!(ratio, 1.0, "{}: host time did not change", e.name);
        }
    }

    let c = compare_paths(&base, &slow, &CompareOptions::new().fdr(0.1)).unwrap();
    assert_eq!(c.gate.status, GateStatus::Failed);
    let regressed: Vec<_> = c
        .all()
        .filter(|e| e.verdict == Verdict::Regressed)
        .collect();
    assert!(regressed.len() > 100, "{}", regressed.len());
    for e in regressed {
        assert!(
            e.kind.is_device()
                || e.kind == EntityKind::DeviceBusy
                || e.kind == EntityKind::StreamBusy,
            "{:?} {} regressed",
            e.kind,
            e.name
        );
    }
    assert!(c.all().all(|e| e.verdict != Verdict::Improved));
}
