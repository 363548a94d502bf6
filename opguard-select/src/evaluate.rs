//! From a request to a verdict: admission, reading each process's trace,
//! per-process verdicts, and the verdict over all of them.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, Provider, TraceModel};
use opguard_trace::TraceReader;

use crate::error::{Error, ErrorKind};
use crate::request::{resolve, Admitted, ProcessSpec, Request};
use crate::seam::{analyse, PidFilter};
use crate::verdict::{
    BestProcess, CandidateEvidence, Failure, ProcessVerdict, RefusedCandidate, Verdict,
    VERDICT_FORMAT,
};

/// Reads a request file, admits it, reads every process's trace (paths
/// relative to the request file) and returns the verdict.
///
/// An `Err` means there is no verdict: the request is unreadable, malformed
/// or refused at admission, or a trace that exists cannot be read. A
/// verdict that fails is `Ok` with `ok: false`.
pub fn verdict_from_request_file(path: impl AsRef<Path>) -> Result<Verdict, Error> {
    verdict_from_request_file_with(path, VerdictOptions::default())
}

/// [`verdict_from_request_file`] reading traces as `options` says.
pub fn verdict_from_request_file_with(
    path: impl AsRef<Path>,
    options: VerdictOptions,
) -> Result<Verdict, Error> {
    let path = path.as_ref();
    let request = Request::read(path)?;
    let base = path.parent().unwrap_or_else(|| Path::new(""));
    verdict_with(request, base, options)
}

/// How [`verdict_with`] reads the processes' traces. The default is
/// [`verdict`]'s: reader defaults, the provider detected, no stream.
#[derive(Default)]
#[non_exhaustive]
pub struct VerdictOptions {
    /// What the model keeps and the readers' limits.
    pub read: ReadOptions,
    /// Overrides provider detection for every trace (it decides which
    /// correlation namespaces exist, so which launches are proven).
    pub provider: Option<Provider>,
    /// Where a process trace written `-` is read from (the CLI passes
    /// stdin). Read once: processes naming `-` share that one trace.
    pub stream: Option<Box<dyn Read + Send>>,
}

impl VerdictOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`VerdictOptions::read`].
    pub fn read(mut self, read: ReadOptions) -> Self {
        self.read = read;
        self
    }
    /// Sets [`VerdictOptions::provider`] (`None` detects it).
    pub fn provider(mut self, provider: Option<Provider>) -> Self {
        self.provider = provider;
        self
    }
    /// Sets [`VerdictOptions::stream`].
    pub fn stream(mut self, stream: Box<dyn Read + Send>) -> Self {
        self.stream = Some(stream);
        self
    }
}

/// Admits a parsed request and evaluates it, resolving trace paths against
/// `base_dir`. Nothing is read before admission succeeds.
pub fn verdict(request: Request, base_dir: &Path) -> Result<Verdict, Error> {
    verdict_with(request, base_dir, VerdictOptions::default())
}

/// [`verdict`] reading traces as `options` says.
pub fn verdict_with(
    request: Request,
    base_dir: &Path,
    mut options: VerdictOptions,
) -> Result<Verdict, Error> {
    let admitted = request.admit()?;
    let mut cache: HashMap<PathBuf, usize> = HashMap::new();
    let mut models: Vec<TraceModel> = Vec::new();
    let mut slots: Vec<Option<usize>> = Vec::with_capacity(admitted.request.processes.len());
    for p in &admitted.request.processes {
        let Some(relative) = &p.trace else {
            slots.push(None);
            continue;
        };
        let mut spec = ArtifactSpec::new()
            .role("seam_capture")
            .source(relative.clone());
        spec.provider = options.provider;
        if relative == "-" {
            let key = PathBuf::from("-");
            if let Some(&slot) = cache.get(&key) {
                slots.push(Some(slot));
                continue;
            }
            let unreadable = |source| {
                Error::from(ErrorKind::TraceUnreadable {
                    path: key.clone(),
                    source,
                })
            };
            let Some(stream) = options.stream.take() else {
                return Err(unreadable(opguard_formats::Error::from(
                    opguard_trace::Error::from(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the trace `-` names a stream and none was given",
                    )),
                )));
            };
            // A stream is read as Chrome JSON: its format cannot be probed
            // without reading it.
            let model = TraceReader::sendable(stream, options.read.reader.clone())
                .and_then(|reader| {
                    opguard_trace::model_from_reader(
                        reader,
                        spec,
                        &options.read.model,
                        &mut |_, _| {},
                    )
                })
                .map_err(|e| unreadable(e.into()))?;
            models.push(model);
            cache.insert(key, models.len() - 1);
            slots.push(Some(models.len() - 1));
            continue;
        }
        let path = resolve(base_dir, relative);
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                slots.push(None);
                continue;
            }
            Err(e) => {
                return Err(ErrorKind::TraceUnreadable {
                    path,
                    source: opguard_trace::Error::from(e).into(),
                }
                .into())
            }
            Ok(_) => {}
        }
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if let Some(&slot) = cache.get(&key) {
            slots.push(Some(slot));
            continue;
        }
        let model = opguard_formats::read(&path, spec, &options.read).map_err(|source| {
            ErrorKind::TraceUnreadable {
                path: path.clone(),
                source,
            }
        })?;
        models.push(model);
        cache.insert(key, models.len() - 1);
        slots.push(Some(models.len() - 1));
    }
    let traces: Vec<Option<&TraceModel>> = slots.iter().map(|s| s.map(|i| &models[i])).collect();
    Ok(evaluate(&admitted, &traces))
}

/// Evaluates a request over traces already read: `traces[i]` is the model
/// of `request.processes[i]`, `None` when that process left no trace.
///
/// For callers that read traces themselves (a benchmark, a service holding
/// models). Admission is the same as [`verdict`].
pub fn verdict_for_models(
    request: Request,
    traces: &[Option<&TraceModel>],
) -> Result<Verdict, Error> {
    let admitted = request.admit()?;
    if traces.len() != admitted.request.processes.len() {
        return Err(Error::invalid(
            "processes",
            format!(
                "{} traces were given for {} processes",
                traces.len(),
                admitted.request.processes.len()
            ),
            "one trace (or None) per process, in request order",
        ));
    }
    Ok(evaluate(&admitted, traces))
}

fn evaluate(admitted: &Admitted, traces: &[Option<&TraceModel>]) -> Verdict {
    let request = &admitted.request;
    let probes = &admitted.probes;
    let processes: Vec<ProcessVerdict> = request
        .processes
        .iter()
        .zip(traces)
        .map(|(spec, model)| process_verdict(admitted, spec, *model))
        .collect();

    let mut failed: Vec<Failure> = Vec::new();
    if processes.is_empty() {
        failed.push(Failure::NoCaptureProcesses);
    }
    match &request.capture_target {
        None => failed.push(Failure::CaptureTargetMissing),
        Some(c) if c.trim() != request.target => failed.push(Failure::CaptureTargetMismatch),
        Some(_) => {}
    }
    for p in &processes {
        failed.extend(p.failed.iter().copied());
    }
    failed.sort_unstable();
    failed.dedup();

    let evaluated: Vec<&ProcessVerdict> = processes.iter().filter(|p| p.evaluated).collect();
    let in_order = |keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        probes
            .iter()
            .filter(|p| keep(&p.spec))
            .map(|p| p.spec.clone())
            .collect()
    };
    let listed =
        |list: fn(&ProcessVerdict) -> &Vec<String>, spec: &str, among: &[&ProcessVerdict]| {
            among.iter().any(|p| list(p).iter().any(|s| s == spec))
        };
    let all: Vec<&ProcessVerdict> = processes.iter().collect();
    let candidate_targets_tested = in_order(&|s| {
        !all.is_empty()
            && all
                .iter()
                .all(|p| p.candidate_targets_tested.iter().any(|t| t == s))
    });
    let live_candidates = in_order(&|s| listed(|p| &p.live_candidates, s, &evaluated));
    let deeper_live_candidates =
        in_order(&|s| listed(|p| &p.deeper_live_candidates, s, &evaluated));
    let declared_deeper_live_candidates =
        in_order(&|s| listed(|p| &p.declared_deeper_live_candidates, s, &evaluated));
    let missing_candidate_markers =
        in_order(&|s| listed(|p| &p.missing_candidate_markers, s, &all));
    let installed_but_never_live_candidates = in_order(&|s| {
        listed(|p| &p.candidate_targets_tested, s, &evaluated)
            && !listed(|p| &p.live_candidates, s, &evaluated)
    });

    let sum = |f: fn(&ProcessVerdict) -> u64| evaluated.iter().map(|p| f(p)).sum::<u64>();
    let best_process = processes
        .iter()
        .zip(&request.processes)
        .filter(|(p, _)| p.evaluated)
        .fold(
            None::<(&ProcessVerdict, &ProcessSpec)>,
            |best, cur| match best {
                Some(b) if rank(b.0) >= rank(cur.0) => Some(b),
                _ => Some(cur),
            },
        )
        .map(|(p, spec)| BestProcess {
            process: p.name.clone(),
            best_process_meta_file: spec
                .meta
                .clone()
                .or_else(|| spec.trace.clone())
                .unwrap_or_default(),
        });

    let deepest_verified = !processes.is_empty() && processes.iter().all(|p| p.deepest_verified);
    Verdict {
        format: VERDICT_FORMAT,
        ok: failed.is_empty(),
        deepest_verified,
        failed,
        target: request.target.clone(),
        target_marker: probes[admitted.target].marker.clone(),
        device_kernel: admitted.device_kernel.clone(),
        capture_target: request.capture_target.clone(),
        counts_scope: "sum_over_processes",
        target_marker_calls: sum(|p| p.target_marker_calls),
        target_marker_spans: sum(|p| p.target_marker_spans),
        matched_kernel_calls: sum(|p| p.matched_kernel_calls),
        correlated_external_ids: sum(|p| p.correlated_external_ids),
        launch_correlation_edges: sum(|p| p.launch_correlation_edges),
        declared_candidates: in_order(&|_| true),
        candidate_targets_tested,
        live_candidates,
        deeper_live_candidates,
        declared_deeper_live_candidates,
        missing_candidate_markers,
        installed_but_never_live_candidates,
        processes,
        best_process,
    }
}

fn rank(p: &ProcessVerdict) -> (bool, bool, u64, u64) {
    (
        p.ok,
        p.deepest_verified,
        p.matched_kernel_calls,
        p.target_marker_calls,
    )
}

fn process_verdict(
    admitted: &Admitted,
    spec: &ProcessSpec,
    model: Option<&TraceModel>,
) -> ProcessVerdict {
    let probes = &admitted.probes;
    let target = admitted.target;
    let installed: Vec<bool> = probes
        .iter()
        .map(|p| spec.installed.contains(&p.spec))
        .collect();
    let pick = |keep: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..probes.len())
            .filter(|&i| keep(i))
            .map(|i| probes[i].spec.clone())
            .collect()
    };
    let missing_candidate_markers = pick(&|i| !installed[i]);
    let refused_candidates = probes
        .iter()
        .enumerate()
        .filter(|(i, _)| !installed[*i])
        .filter_map(|(_, p)| {
            spec.refused
                .iter()
                .find(|r| r.spec == p.spec)
                .map(|r| RefusedCandidate {
                    spec: r.spec.clone(),
                    reason: r.reason.clone(),
                })
        })
        .collect();
    let undeclared_installed = spec
        .installed
        .iter()
        .filter(|s| !probes.iter().any(|p| p.spec == **s))
        .cloned()
        .collect();

    let mut v = ProcessVerdict {
        name: spec.name.clone(),
        trace: spec.trace.clone(),
        pid: spec.pid.clone(),
        evaluated: model.is_some(),
        trace_sha256: model.map(|m| m.artifact().sha256.to_string()),
        provider: model.map(|m| m.artifact().provider.as_str().to_owned()),
        ok: false,
        deepest_verified: false,
        failed: Vec::new(),
        target_marker_calls: 0,
        target_marker_spans: 0,
        target_device_projected_spans: 0,
        matched_kernel_calls: 0,
        matched_by_launch_correlation: 0,
        matched_by_external_id: 0,
        matched_kernel_rows: 0,
        correlated_external_ids: 0,
        launch_correlation_edges: 0,
        ambiguous_correlation_rows: 0,
        matched_kernel_names: Vec::new(),
        candidate_targets_tested: pick(&|i| installed[i]),
        live_candidates: Vec::new(),
        deeper_live_candidates: Vec::new(),
        declared_deeper_live_candidates: Vec::new(),
        missing_candidate_markers,
        refused_candidates,
        installed_but_never_live_candidates: Vec::new(),
        undeclared_installed,
        candidates: Vec::new(),
    };
    let Some(model) = model else {
        v.failed.push(Failure::CaptureProcessTraceMissing);
        if !v.missing_candidate_markers.is_empty() {
            v.failed.push(Failure::CandidateMarkerMissing);
        }
        v.candidates = probes
            .iter()
            .enumerate()
            .map(|(i, p)| CandidateEvidence::unobserved(p, i == target, installed[i]))
            .collect();
        return v;
    };

    let kernel_ambiguous = analyse(
        model,
        probes,
        target,
        &admitted.device_kernel,
        PidFilter::new(model, spec.pid.as_ref()),
        &mut v,
    );
    for (c, &inst) in v.candidates.iter_mut().zip(&installed) {
        c.installed = inst;
    }
    let a = &v.candidates;

    let live = |i: usize| a[i].spans > 0;
    let target_depth = probes[target].declared_depth;
    let deeper = |i: usize| i != target && a[i].kernel_launches_nested_in_target > 0;
    let declared_deeper = |i: usize| {
        let (Some(dt), Some(di)) = (target_depth, probes[i].declared_depth) else {
            return false;
        };
        i != target
            && di > dt
            && a[i].kernel_launches > 0
            && a[i].encloses_target_calls == 0
            && !deeper(i)
    };
    v.live_candidates = pick(&live);
    v.installed_but_never_live_candidates = pick(&|i| installed[i] && !live(i));
    v.deeper_live_candidates = pick(&deeper);
    v.declared_deeper_live_candidates = pick(&declared_deeper);
    let target_live = live(target);

    let checks = [
        (
            !v.missing_candidate_markers.is_empty(),
            Failure::CandidateMarkerMissing,
        ),
        (!target_live, Failure::TargetMarkerMissing),
        (v.matched_kernel_rows == 0, Failure::DeviceKernelNotObserved),
        (kernel_ambiguous, Failure::DeviceKernelAmbiguous),
        (
            v.matched_kernel_calls == 0,
            Failure::DeviceKernelNotUnderTarget,
        ),
        (
            !v.deeper_live_candidates.is_empty(),
            Failure::DeeperLiveCandidate,
        ),
        (
            !v.declared_deeper_live_candidates.is_empty(),
            Failure::DeclaredDeeperLiveCandidate,
        ),
    ];
    v.failed = checks
        .iter()
        .filter(|(bad, _)| *bad)
        .map(|(_, f)| *f)
        .collect();
    v.failed.sort_unstable();
    v.ok = v.failed.is_empty();
    v.deepest_verified = target_live
        && v.matched_kernel_calls > 0
        && !kernel_ambiguous
        && v.missing_candidate_markers.is_empty()
        && v.deeper_live_candidates.is_empty()
        && v.declared_deeper_live_candidates.is_empty();
    v
}
