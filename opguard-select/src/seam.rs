//! One process, one trace: marker spans, launch causality by edge, and the
//! observed host nesting of the probes.
//!
//! Every join goes through the model's qualified joins
//! ([`TraceModel::launch_proof`], [`TraceModel::host_slices_for_external_id`]);
//! this module only decides *where* the host end of an edge sits: on which
//! thread, inside which marker span.

use std::collections::{HashMap, HashSet};

use opguard_model::{
    CorrelationKey, IdValue, LaunchProof, NameId, Slice, SliceClass, TraceModel, Unproven,
};

use crate::request::{Probe, ProcessId};
use crate::verdict::{CandidateEvidence, MatchedKernelName, ProcessVerdict, Seen};

/// A host thread inside one artifact: `(pid, tid)`.
type Thread = (IdValue, IdValue);

/// Which host process of the trace counts for a capture process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PidFilter {
    /// Every host pid.
    Any,
    /// Only this pid.
    Only(IdValue),
    /// A pid the trace never names: nothing counts.
    Nothing,
}

impl PidFilter {
    pub(crate) fn new(model: &TraceModel, pid: Option<&ProcessId>) -> PidFilter {
        match pid {
            None => PidFilter::Any,
            Some(ProcessId::Int(i)) => PidFilter::Only(IdValue::Int(*i)),
            Some(ProcessId::Text(s)) => match model.find_name(s) {
                Some(n) => PidFilter::Only(IdValue::Text(n)),
                None => PidFilter::Nothing,
            },
        }
    }

    fn thread(self, s: &Slice) -> Option<Thread> {
        let (pid, tid) = (s.pid?, s.tid?);
        match self {
            PidFilter::Any => Some((pid, tid)),
            PidFilter::Only(p) if p == pid => Some((pid, tid)),
            _ => None,
        }
    }
}

/// Spans of one marker on one thread, sorted by start (longer first on
/// ties), with the running maximum of their ends for containment queries.
#[derive(Debug, Default)]
struct ThreadSpans {
    spans: Vec<(i64, i64)>,
    max_end: Vec<i64>,
}

impl ThreadSpans {
    fn build(mut spans: Vec<(i64, i64)>) -> ThreadSpans {
        spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut max_end = Vec::with_capacity(spans.len());
        let mut m = i64::MIN;
        for &(_, end) in &spans {
            m = m.max(end);
            max_end.push(m);
        }
        ThreadSpans { spans, max_end }
    }

    /// Whether some span contains `[t0, t1]` (bounds included).
    fn contains(&self, t0: i64, t1: i64) -> bool {
        let n = self.spans.partition_point(|s| s.0 <= t0);
        n > 0 && self.max_end[n - 1] >= t1
    }

    /// Whether some span lies inside `[a, b]` (bounds included).
    fn any_inside(&self, a: i64, b: i64) -> bool {
        let from = self.spans.partition_point(|s| s.0 < a);
        self.spans[from..]
            .iter()
            .take_while(|s| s.0 <= b)
            .any(|s| s.1 <= b)
    }

    /// The logical calls: spans not contained in an earlier span of the same
    /// marker on this thread (nested same-name copies collapse into their
    /// outermost copy).
    fn calls(&self) -> Vec<(i64, i64)> {
        let mut calls: Vec<(i64, i64)> = Vec::new();
        for &(ts, end) in &self.spans {
            match calls.last() {
                Some(&(cts, cend)) if ts >= cts && end <= cend => {}
                _ => calls.push((ts, end)),
            }
        }
        calls
    }
}

/// Every host span of one marker, by thread.
#[derive(Debug, Default)]
struct SpanIndex {
    threads: HashMap<Thread, ThreadSpans>,
    /// Host spans, threaded or not.
    raw: u64,
    /// Host spans without a pid or tid: live, but no edge can be placed
    /// on their thread.
    unthreaded: u64,
}

impl SpanIndex {
    fn build(spans: Vec<(Option<Thread>, i64, i64)>) -> SpanIndex {
        let mut by_thread: HashMap<Thread, Vec<(i64, i64)>> = HashMap::new();
        let mut index = SpanIndex {
            raw: spans.len() as u64,
            ..SpanIndex::default()
        };
        for (thread, ts, end) in spans {
            match thread {
                Some(t) => by_thread.entry(t).or_default().push((ts, end)),
                None => index.unthreaded += 1,
            }
        }
        index.threads = by_thread
            .into_iter()
            .map(|(t, v)| (t, ThreadSpans::build(v)))
            .collect();
        index
    }

    fn contains(&self, thread: &Thread, t0: i64, t1: i64) -> bool {
        self.threads.get(thread).is_some_and(|s| s.contains(t0, t1))
    }

    /// Logical calls: outermost copies per thread, plus unthreaded spans.
    fn calls(&self) -> u64 {
        self.threads
            .values()
            .map(|s| s.calls().len() as u64)
            .sum::<u64>()
            + self.unthreaded
    }

    fn iter_calls(&self) -> impl Iterator<Item = (&Thread, (i64, i64))> + '_ {
        self.threads
            .iter()
            .flat_map(|(t, s)| s.calls().into_iter().map(move |c| (t, c)))
    }
}

/// The host end of a device row's edges.
struct Edges<'m> {
    /// The one host launch its correlation names (none when zero or several).
    launch: Option<&'m Slice>,
    /// Host slices sharing its qualified External id.
    external: Vec<&'m Slice>,
}

/// Analyses one process of one trace: fills `out`'s counts, matched names
/// and per-probe evidence (`installed` left false: the install log is not
/// read here). Returns whether the matched names attributed to the target
/// carry more than one canonical identity (an ambiguous kernel name).
pub(crate) fn analyse(
    model: &TraceModel,
    probes: &[Probe],
    target: usize,
    device_kernel: &str,
    pid: PidFilter,
    out: &mut ProcessVerdict,
) -> bool {
    let slices = model.slices();
    let marker_ids: HashMap<NameId, usize> = probes
        .iter()
        .enumerate()
        .filter_map(|(i, p)| model.find_name(&p.marker).map(|n| (n, i)))
        .collect();

    let mut raw: Vec<Vec<(Option<Thread>, i64, i64)>> = vec![Vec::new(); probes.len()];
    let mut projected = vec![0u64; probes.len()];
    let mut device_rows: Vec<usize> = Vec::new();
    for (i, s) in slices.iter().enumerate() {
        match s.class {
            SliceClass::UserAnnotation | SliceClass::CpuOp => {
                if let Some(&p) = marker_ids.get(&s.name) {
                    let in_process = match pid {
                        PidFilter::Any => true,
                        PidFilter::Only(want) => s.pid == Some(want),
                        PidFilter::Nothing => false,
                    };
                    if in_process {
                        raw[p].push((pid.thread(s), s.ts_ns, s.end_ns()));
                    }
                }
            }
            SliceClass::GpuUserAnnotation => {
                if let Some(&p) = marker_ids.get(&s.name) {
                    projected[p] += 1;
                }
            }
            c if c.is_device() => device_rows.push(i),
            _ => {}
        }
    }
    let index: Vec<SpanIndex> = raw.into_iter().map(SpanIndex::build).collect();
    let t_index = &index[target];

    // Per probe: its spans that sit inside a target span (host nesting only).
    let mut nested: Vec<SpanIndex> = Vec::with_capacity(probes.len());
    for (p, idx) in index.iter().enumerate() {
        let mut pa = CandidateEvidence {
            live_calls: idx.calls(),
            spans: idx.raw,
            device_projected_spans: projected[p],
            ..CandidateEvidence::unobserved(&probes[p], p == target, false)
        };
        if p == target {
            nested.push(SpanIndex::default());
            out.candidates.push(pa);
            continue;
        }
        let mut inside = Vec::new();
        for (thread, spans) in &idx.threads {
            for &(ts, end) in &spans.spans {
                if t_index.contains(thread, ts, end) {
                    inside.push((Some(*thread), ts, end));
                }
            }
        }
        for (thread, (ts, end)) in idx.iter_calls() {
            if t_index.contains(thread, ts, end) {
                pa.nested_in_target_calls += 1;
            }
            if t_index
                .threads
                .get(thread)
                .is_some_and(|t| t.any_inside(ts, end))
            {
                pa.encloses_target_calls += 1;
            }
        }
        nested.push(SpanIndex::build(inside));
        out.candidates.push(pa);
    }

    let inside = |idx: &SpanIndex, h: &Slice| -> bool {
        pid.thread(h)
            .is_some_and(|t| idx.contains(&t, h.ts_ns, h.end_ns()))
    };
    let mut matched_by_name: HashMap<NameId, Option<usize>> = HashMap::new();
    let mut external_ids: HashSet<CorrelationKey> = HashSet::new();
    for &row in &device_rows {
        let edges = edges_of(model, row, &mut out.ambiguous_correlation_rows);
        let by_launch = edges.launch.is_some_and(|l| inside(t_index, l));
        let by_external = edges.external.iter().any(|h| inside(t_index, h));
        if by_launch {
            out.launch_correlation_edges += 1;
        }
        if by_external {
            if let Some(key) = model.external_id_key(row) {
                external_ids.insert(key);
            }
        }
        let name = slices[row].name;
        let slot = *matched_by_name.entry(name).or_insert_with(|| {
            let got = model.name(name);
            let v = opguard_kernel_name::matches(device_kernel, got);
            v.is_match.then(|| {
                out.matched_kernel_names.push(MatchedKernelName {
                    name: got.to_owned(),
                    identity: opguard_kernel_name::canonicalize(got).identity(),
                    basis: v.basis.map_or("", |b| b.code()).to_owned(),
                    rows: 0,
                    attributed: 0,
                    seen: Seen::OutsideTarget,
                });
                out.matched_kernel_names.len() - 1
            })
        });
        let Some(slot) = slot else { continue };
        out.matched_kernel_rows += 1;
        out.matched_kernel_names[slot].rows += 1;
        if by_launch || by_external {
            out.matched_kernel_calls += 1;
            out.matched_kernel_names[slot].attributed += 1;
        }
        out.matched_by_launch_correlation += u64::from(by_launch);
        out.matched_by_external_id += u64::from(by_external);
        let hosts = || {
            edges
                .launch
                .into_iter()
                .chain(edges.external.iter().copied())
        };
        for (p, pa) in out.candidates.iter_mut().enumerate() {
            if p == target || index[p].raw == 0 {
                continue;
            }
            if hosts().any(|h| inside(&index[p], h)) {
                pa.kernel_launches += 1;
            }
            if hosts().any(|h| inside(&nested[p], h)) {
                pa.kernel_launches_nested_in_target += 1;
            }
        }
    }
    let t = &mut out.candidates[target];
    t.kernel_launches = out.matched_kernel_calls;
    out.target_marker_calls = t.live_calls;
    out.target_marker_spans = t.spans;
    out.target_device_projected_spans = t.device_projected_spans;
    out.correlated_external_ids = external_ids.len() as u64;
    for m in &mut out.matched_kernel_names {
        m.seen = Seen::of(m.rows, m.attributed);
    }
    out.matched_kernel_names
        .sort_by(|a, b| b.rows.cmp(&a.rows).then(a.name.cmp(&b.name)));
    // Another instantiation running elsewhere in the trace says nothing about
    // which kernel the target launched; only the target's own rows decide.
    let identities: HashSet<&str> = out
        .matched_kernel_names
        .iter()
        .filter(|m| m.seen.under_target())
        .map(|m| m.identity.as_str())
        .collect();
    identities.len() > 1
}

/// The host ends of a device row's qualified edges.
fn edges_of<'m>(model: &'m TraceModel, row: usize, ambiguous: &mut u64) -> Edges<'m> {
    let slices = model.slices();
    let launch = match model.launch_proof(row) {
        LaunchProof::Proven(one) => slices.get(one),
        LaunchProof::Ambiguous(_) | LaunchProof::Unproven(Unproven::OwnerUnknown) => {
            *ambiguous += 1;
            None
        }
        LaunchProof::Unproven(_) => None,
    };
    let external = model
        .host_slices_for_external_id(row)
        .iter()
        .filter_map(|&h| slices.get(h))
        .collect();
    Edges { launch, external }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_same_name_copies_are_one_call() {
        let s = ThreadSpans::build(vec![
            (0, 100),
            (0, 100),
            (10, 20),
            (50, 150),
            (60, 90),
            (200, 210),
        ]);
        assert_eq!(s.calls(), vec![(0, 100), (50, 150), (200, 210)]);
        assert!(s.contains(55, 140));
        assert!(!s.contains(150, 160));
        assert!(s.any_inside(5, 25));
        assert!(!s.any_inside(101, 199));
    }
}
