//! What a job's worker reads its ranks with. `ModelStorage`: a model read
//! into buffers another model gave back is the model a fresh read gives,
//! whatever was read into them before (larger traces, other options, a read
//! that failed half-way). `ModelOptions::flows(false)`: the same model but
//! for its flow points, failing where the full model fails.

use std::path::PathBuf;

use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage, TraceModel};

use crate::host_totals::{read, real_traces, texts};

/// Everything a model answers, with names and ids as text, so two models
/// compare whatever their interners hold.
fn observed(m: &TraceModel) -> String {
    observed_but_flows(m) + &flows(m)
}

fn flows(m: &TraceModel) -> String {
    let id = |v: Option<opguard_model::IdValue>| v.map(|v| m.id_text(v));
    let mut out = String::new();
    for f in m.flows() {
        out += &format!(
            "flow {} {:?} {} {:?} {:?} {:?} {}\n",
            f.index,
            f.phase,
            m.name(f.cat),
            m.id_text(f.id),
            id(f.pid),
            id(f.tid),
            f.ts_ns
        );
    }
    out
}

fn observed_but_flows(m: &TraceModel) -> String {
    let mut out = format!("{:?}\n", m.artifact());
    for (i, slice) in texts(m).into_iter().enumerate() {
        out += &format!(
            "{slice} {:?} {:?} {:?} {:?} {:?}\n",
            m.launches_for(i),
            m.host_slices_for_external_id(i),
            m.host_detail(i)
                .map(|d| [d.input_dims, d.hlo_op, d.hlo_module].map(|n| n.map(|n| m.name(n)))),
            m.operation_args(i).map(|a| {
                [a.input_dims, a.input_types, a.input_strides, a.call_stack]
                    .map(|n| n.map(|n| m.name(n)))
            }),
            m.operation_args(i)
                .and_then(|a| a.sequence_number)
                .map(|n| m.id_text(n)),
        );
    }
    for t in m.host_totals() {
        out += &format!(
            "total {:?} {} {} {} {}\n",
            t.class,
            m.name(t.name),
            m.name(t.cat),
            t.count,
            t.counted_dur_ns
        );
    }
    out += &format!(
        "{:?} {:?} {:?}\n",
        m.distributed_rank(),
        m.first_untimed_operation(),
        m.summary().decoded_bytes
    );
    out
}

#[test]
fn reused_buffers_read_every_real_trace_like_fresh_ones() {
    let Some(mut traces) = real_traces() else {
        return;
    };
    // Largest first, so every read lands in buffers holding more than it
    // needs (stale entries would show). The 87 MB MTIA trace is left out:
    // eight debug-build reads of it take minutes, and the 10 MB nccl trace
    // that leads instead fills every buffer too (runtime calls, kernels,
    // copies, flows, host operators).
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    traces.retain(|p| size(p) < (1 << 20));
    opguard_testdata::largest_first(&mut traces);
    let Some(largest) = traces.first().cloned() else {
        return;
    };
    // A read that fails half-way through: its buffers come back, filled
    // with half a trace, and the next read must not see any of it.
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json.gz");
    opguard_testdata::write_cut_copy(&largest, &cut);
    let mut sequence: Vec<PathBuf> = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        sequence.push(t.clone());
        if i == 0 {
            sequence.push(cut.clone());
        }
    }
    let options = [
        ModelOptions::new(),
        ModelOptions::launches_and_host_totals(),
        ModelOptions::operations(),
        ModelOptions::new().operation_args(true),
    ];
    let mut storage = ModelStorage::new();
    let mut reads = 0;
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    for (k, path) in sequence.iter().enumerate() {
        // Each trace with every option set, rotated so consecutive reads
        // into one storage differ in what they keep.
        for j in 0..options.len() {
            let opts = &options[(k + j) % options.len()];
            let reused = opguard_trace::read_model_reusing(
                path,
                ArtifactSpec::new(),
                opts,
                &opguard_trace::ReaderOptions::default(),
                &mut |_, _| {},
                &mut storage,
            );
            if *path == cut {
                let err = reused.expect_err("a cut-off trace");
                assert_eq!(err.code(), "gzip_truncated");
                continue;
            }
            let reused = reused.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let fresh = read(path, opts);
            assert_eq!(
                observed(&reused),
                observed(&fresh),
                "{} with {opts:?}",
                path.display()
            );
            // Names of the traces read before are not names of this one.
            for name in &seen {
                assert_eq!(
                    reused.find_name(name).is_some(),
                    fresh.find_name(name).is_some(),
                    "{name:?} in {}",
                    path.display()
                );
            }
            seen.extend(
                reused
                    .slices()
                    .iter()
                    .map(|s| reused.name(s.name).to_owned()),
            );
            storage = reused.into_storage();
            reads += 1;
        }
    }
    assert!(reads >= 4 * 16, "{reads} reads");
}

#[test]
fn without_flows_a_model_is_the_same_but_for_its_flows() {
    let Some(traces) = real_traces() else {
        return;
    };
    let mut with_flows = 0;
    // The MTIA trace left out: minutes in a debug build (see above).
    let small = traces
        .into_iter()
        .filter(|p| std::fs::metadata(p).map_or(0, |m| m.len()) < (1 << 20));
    for path in small {
        for options in [
            ModelOptions::new(),
            ModelOptions::launches_and_host_totals(),
        ] {
            let full = read(&path, &options);
            let lean = read(&path, &options.clone().flows(false));
            assert!(lean.flows().is_empty(), "{}", path.display());
            assert_eq!(
                observed_but_flows(&lean),
                observed_but_flows(&full),
                "{}",
                path.display()
            );
            with_flows += usize::from(!full.flows().is_empty());
        }
    }
    assert!(with_flows >= 10, "{with_flows} reads with flows");
}

/// A flow point whose `ts` is not a number fails the lean model where it
/// fails the full one: its flows are read, only not kept.
#[test]
fn without_flows_a_bad_flow_still_fails_the_read() {
    let Some(src) =
        opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")
    else {
        return;
    };
    let text = String::from_utf8(opguard_testdata::decoded(&src)).unwrap();
    let flow = text.find(r#""ph": "s""#).expect("a flow start");
    let ts = flow + text[flow..].find(r#""ts": "#).unwrap() + r#""ts": "#.len();
    let end = ts + text[ts..].find(',').unwrap();
    let broken = format!("{}1e999{}", &text[..ts], &text[end..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad_flow.json.gz");
    std::fs::write(&path, opguard_testdata::gzip(broken.as_bytes())).unwrap();
    let failure = |options: ModelOptions| {
        let e = opguard_trace::read_model(
            &path,
            ArtifactSpec::new(),
            &options,
            &opguard_trace::ReaderOptions::default(),
        )
        .expect_err("a bad ts");
        (e.code(), e.offset(), e.event_index())
    };
    let full = failure(ModelOptions::launches_and_host_totals());
    assert_eq!(full.0, "number_out_of_range", "{full:?}");
    assert!(
        full.1
            .is_some_and(|at| at < ts as u64 && at > flow as u64 - 20),
        "{full:?}"
    );
    assert_eq!(
        failure(ModelOptions::launches_and_host_totals().flows(false)),
        full
    );
}
