//! Export stage: records of two runs → automatic candidates → an
//! `opguard.export/v1` view.
//!
//! The records are read twice (a records file is streamed both times): the
//! first pass keeps only an operation index (ids, run/rank/sequence,
//! interned signatures, per-field digests of the tensor summaries), the
//! second writes each operation event as its record comes by. Memory is
//! bounded by that index, not by the records.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use opguard_model::ArtifactSpec;
use opguard_trace::{
    OwnedEvent, RawJson, ReaderOptions, ScalarKey, Sha256Digest, TraceReader, TraceWriter,
};
use serde::{Deserialize, Serialize};

use crate::compare::{compare_events, field_digests, Comparison, FieldDigests};
use crate::error::{Error, ErrorKind};
use crate::format::{
    assign_pids, finish_view, write_tail, Correspondence, ExportMetadata, FirstDifference, Group,
    OpView, Peer, SourceInfo, Status, StatusCounts, Validation, CAT_OPERATION, EXPORT_FORMAT,
    MAX_EXPORT_BYTES, SLICE_NS, SLOT_NS, TID_OPERATIONS, VERDICT,
};
use crate::output::{write_view, ScratchFile};
use crate::profile::{records_model_options, visit_model_records, ProfileInput, ProfileRecords};
use crate::record::{
    visit_record_lines, visit_records_file, Callsite, Frame, Io, Record, RecordKey, RecordsWriter,
};
use crate::sequence::{align_sequences, DEFAULT_ALIGNMENT_BUDGET};

/// Basis of automatic candidates.
pub(crate) const BASIS_AUTOMATIC: &str = "automatic_callsite_sequence";

/// Which part of the callsite goes into the signature automatic candidates
/// are aligned on (the operator name always does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallsiteMatch {
    /// File, function and line.
    #[default]
    Exact,
    /// File and function (lines shift between versions).
    IgnoreLine,
    /// Operator name only.
    Ignore,
}

impl CallsiteMatch {
    fn describe(self) -> &'static str {
        match self {
            CallsiteMatch::Exact => "operator name, callsite file, function and line",
            CallsiteMatch::IgnoreLine => "operator name, callsite file and function",
            CallsiteMatch::Ignore => "operator name",
        }
    }
}

/// How [`export_with`] works. Build with [`ExportOptions::new`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Signature of automatic candidates.
    pub callsite_match: CallsiteMatch,
    /// Work budget of the alignment per rank.
    pub alignment_budget: u64,
    /// Largest output, encoded and decoded.
    pub max_export_bytes: u64,
    /// Limits for reading inputs (records files use its byte limits too);
    /// its [`decode_thread`](ReaderOptions::decode_thread) reads each
    /// input on a second thread.
    pub reader: ReaderOptions,
    /// Compress, hash and write the view on a second thread while this one
    /// renders it. Off by default: a library embedded in a profiler starts
    /// no thread its host did not ask for.
    pub output_thread: bool,
    /// Overrides provider detection for profiler traces (it decides how a
    /// trace that yields no operation is described in the refusal).
    pub provider: Option<opguard_model::Provider>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            callsite_match: CallsiteMatch::Exact,
            alignment_budget: DEFAULT_ALIGNMENT_BUDGET,
            max_export_bytes: MAX_EXPORT_BYTES,
            reader: ReaderOptions::default(),
            output_thread: false,
            provider: None,
        }
    }
}

impl ExportOptions {
    /// The defaults: exact callsites, the default budget, 256 MiB.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`ExportOptions::callsite_match`].
    pub fn callsite_match(mut self, m: CallsiteMatch) -> Self {
        self.callsite_match = m;
        self
    }
    /// Sets [`ExportOptions::alignment_budget`].
    pub fn alignment_budget(mut self, n: u64) -> Self {
        self.alignment_budget = n;
        self
    }
    /// Sets [`ExportOptions::max_export_bytes`].
    pub fn max_export_bytes(mut self, n: u64) -> Self {
        self.max_export_bytes = n;
        self
    }
    /// Sets [`ExportOptions::reader`].
    pub fn reader(mut self, r: ReaderOptions) -> Self {
        self.reader = r;
        self
    }
    /// Sets [`ExportOptions::output_thread`].
    pub fn output_thread(mut self, on: bool) -> Self {
        self.output_thread = on;
        self
    }
    /// Sets [`ExportOptions::provider`] (`None` detects it).
    pub fn provider(mut self, provider: Option<opguard_model::Provider>) -> Self {
        self.provider = provider;
        self
    }
}

/// What to export: a records file, or two or more profiler traces.
///
/// JSON form (paths relative to the request file when read with
/// [`export_request_file`]):
/// `{"records": "runs.jsonl", "output": "view.json.gz"}` or
/// `{"from_profile": [{"path": "a.json.gz"}, {"path": "b.json.gz", "run": "b"}], "output": "view.json"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    /// An `opguard.records/v1` file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<PathBuf>,
    /// Profiler traces (two or more), each a JSON object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_profile: Vec<ProfileInput>,
    /// The output; it must not exist. `.gz` means gzip.
    pub output: PathBuf,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportSummary {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// The output path.
    pub output: PathBuf,
    /// SHA-256 of the output file.
    pub output_sha256: String,
    /// Bytes of the output file.
    pub output_bytes: u64,
    /// Bytes of JSON (before compression).
    pub decoded_bytes: u64,
    /// Operation events.
    pub operations: u64,
    /// Automatic candidate pairs (= flows).
    pub pairs: u64,
    /// The two runs, left first.
    pub runs: Vec<String>,
    /// Every rank of either run, ascending.
    pub ranks: Vec<u32>,
    /// Operations per status.
    pub statuses: StatusCounts,
    /// First-observed differences.
    pub first_differences: Vec<FirstDifference>,
    /// Ranks whose alignment ran out of budget.
    pub alignment_budget_exhausted_ranks: Vec<u32>,
    /// Inputs.
    pub sources: Vec<SourceInfo>,
    /// Always `not_evaluated`: nothing was run.
    pub verdict: String,
    /// What the trace reader accepted in the inputs that a strict reader
    /// would not (`array_unterminated`; `truncated` and the like under
    /// salvage), per input in input order. Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<InputWarning>,
}

/// A reader warning about one input of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputWarning {
    /// The input as given.
    pub input: PathBuf,
    /// The reader's stable code (`array_unterminated`, `truncated`, ...).
    pub code: String,
    /// Decoded byte offset the warning is about.
    pub offset: u64,
    /// Compressed byte offset, for a gzip stream cut short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoded_offset: Option<u64>,
    /// Complete events read before that place.
    pub complete_events: u64,
    /// What happened and what was kept.
    pub message: String,
}

impl InputWarning {
    pub(crate) fn new(input: &Path, w: &opguard_trace::ReadWarning) -> Self {
        InputWarning {
            input: input.to_path_buf(),
            code: w.code.to_owned(),
            offset: w.offset,
            encoded_offset: w.encoded_offset,
            complete_events: w.complete_events,
            message: w.message.clone(),
        }
    }
}

/// A profiler trace to export, read from its path or from a stream the
/// caller opened (stdin, a pipe): the path then only names it in errors
/// and, unless the input names a run, gives the run label.
pub struct ProfileStream {
    input: ProfileInput,
    reader: Option<Box<dyn Read + Send>>,
}

impl ProfileStream {
    /// The trace at `input.path`.
    pub fn file(input: ProfileInput) -> Self {
        ProfileStream {
            input,
            reader: None,
        }
    }

    /// The trace read from `reader` (plain or gzip JSON).
    pub fn reader(input: ProfileInput, reader: Box<dyn Read + Send>) -> Self {
        ProfileStream {
            input,
            reader: Some(reader),
        }
    }
}

/// Exports a records file with the default options.
pub fn export_records(records: &Path, output: &Path) -> Result<ExportSummary, Error> {
    export_with(
        &ExportRequest {
            records: Some(records.to_path_buf()),
            from_profile: Vec::new(),
            output: output.to_path_buf(),
        },
        &ExportOptions::default(),
    )
}

/// Exports two or more profiler traces with the default options.
pub fn export_profiles(inputs: &[ProfileInput], output: &Path) -> Result<ExportSummary, Error> {
    export_with(
        &ExportRequest {
            records: None,
            from_profile: inputs.to_vec(),
            output: output.to_path_buf(),
        },
        &ExportOptions::default(),
    )
}

/// Runs an export request with the default options.
pub fn export(request: &ExportRequest) -> Result<ExportSummary, Error> {
    export_with(request, &ExportOptions::default())
}

/// Reads an export request file (paths relative to its directory) and runs
/// it with the default options.
pub fn export_request_file(path: &Path) -> Result<ExportSummary, Error> {
    let bytes = crate::apply::read_request_bytes(path)?;
    let mut request: ExportRequest =
        opguard_document::from_slice(&bytes, crate::apply::MAX_REQUEST_BYTES)
            .map_err(|e| Error::document("the export request", e).with_path(path))?;
    let base = path.parent().unwrap_or(Path::new(""));
    request.records = request.records.map(|p| base.join(p));
    for p in &mut request.from_profile {
        p.path = base.join(&p.path);
    }
    request.output = base.join(&request.output);
    export(&request)
}

/// Runs an export request.
pub fn export_with(
    request: &ExportRequest,
    options: &ExportOptions,
) -> Result<ExportSummary, Error> {
    crate::output::check_output_path(&request.output)?;
    match (&request.records, request.from_profile.len()) {
        (Some(path), 0) => {
            let source = Source::File {
                path,
                reader: &options.reader,
                sources: None,
            };
            run(&source, &request.output, options)
        }
        (None, n) if n >= 2 => {
            let streams = request
                .from_profile
                .iter()
                .map(|i| ProfileStream::file(i.clone()))
                .collect();
            export_profile_streams(streams, &request.output, options)
        }
        _ => Err(Error::new(ErrorKind::InvalidRequest(
            "give either a records file or two or more profiler traces (from_profile)".into(),
        ))),
    }
}

/// Exports the records already taken from two or more profiler traces
/// ([`records_from_profile`](crate::records_from_profile)), so a caller
/// that wants the records (to count or inspect them) and the export reads
/// each trace once. The answer is [`export_profiles`]' for the same traces,
/// refusals included: a trace without operations or recorded without shapes
/// ([`ProfileRecords::check_exportable`]), a run and rank given twice.
pub fn export_profile_records(
    profiles: Vec<ProfileRecords>,
    output: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, Error> {
    crate::output::check_output_path(output)?;
    if profiles.len() < 2 {
        return Err(Error::new(ErrorKind::InvalidRequest(
            "give two or more profiler traces' records".into(),
        )));
    }
    for (i, p) in profiles.iter().enumerate() {
        p.check_exportable(&p.path)?;
        if profiles[..i]
            .iter()
            .any(|o| o.run == p.run && o.rank == p.rank)
        {
            return Err(Error::new(ErrorKind::DuplicateRunRank {
                run: p.run.clone(),
                rank: p.rank,
            }));
        }
    }
    run_profiles(profiles, output, options)
}

/// Exports two or more profiler traces with memory bounded by the
/// operation index rather than the traces: each trace's records are derived
/// as it is read and written to a temporary `opguard.records/v1` file
/// beside the output (created exclusively, removed on success and on
/// failure), which the export then reads twice like any records file. The
/// bytes written are those of [`export_profile_records`] over the same
/// traces.
pub fn export_profile_streams(
    inputs: Vec<ProfileStream>,
    output: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, Error> {
    crate::output::check_output_path(output)?;
    if inputs.len() < 2 {
        return Err(Error::new(ErrorKind::InvalidRequest(
            "give two or more profiler traces (from_profile)".into(),
        )));
    }
    let mut spill = ScratchFile::create(output, "records")?;
    let mut sources = Vec::with_capacity(inputs.len());
    let mut warnings = Vec::new();
    {
        let mut writer =
            RecordsWriter::new(std::io::BufWriter::with_capacity(256 << 10, spill.file()))?;
        let mut seen: Vec<(String, u32)> = Vec::with_capacity(inputs.len());
        let model_options = records_model_options(&options.reader);
        for stream in inputs {
            let path = &stream.input.path;
            let read = |e: opguard_formats::Error| Error::from(e).with_path(path);
            let mut spec = ArtifactSpec::new();
            spec.provider = options.provider;
            // One trace's model at a time: it is dropped once its records
            // are in the spill. A stream is Chrome JSON: its format cannot
            // be probed without reading it.
            let model = match stream.reader {
                Some(r) => TraceReader::sendable(r, options.reader.clone())
                    .and_then(|reader| {
                        opguard_trace::model_from_reader(
                            reader,
                            spec,
                            &model_options.model,
                            &mut |_, _| {},
                        )
                    })
                    .map_err(|e| read(e.into())),
                None => opguard_formats::read(path, spec, &model_options).map_err(read),
            }?;
            let facts = visit_model_records(&model, &stream.input, &mut |r| writer.write(&r))?;
            drop(model);
            facts.check_exportable(path)?;
            if seen
                .iter()
                .any(|(run, rank)| *run == facts.run && *rank == facts.rank)
            {
                return Err(Error::new(ErrorKind::DuplicateRunRank {
                    run: facts.run,
                    rank: facts.rank,
                })
                .with_path(path));
            }
            warnings.extend(facts.warnings.iter().map(|w| InputWarning::new(path, w)));
            sources.push(SourceInfo {
                kind: "profile".into(),
                sha256: facts.sha256.to_string(),
                run: Some(facts.run.clone()),
                rank: Some(facts.rank),
                alignment_map_sha256: None,
            });
            seen.push((facts.run, facts.rank));
        }
        writer.finish()?;
    }
    // The spill is ours and may exceed the inputs' limits (it holds every
    // trace's records); only the decode thread is taken from the caller.
    let reader = ReaderOptions::new()
        .max_encoded_bytes(u64::MAX)
        .max_decoded_bytes(u64::MAX)
        .decode_thread(options.reader.decode_thread);
    let source = Source::File {
        path: spill.path(),
        reader: &reader,
        sources: Some(sources),
    };
    let mut summary = run(&source, output, options)?;
    summary.warnings = warnings;
    Ok(summary)
}

fn run_profiles(
    profiles: Vec<ProfileRecords>,
    output: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, Error> {
    let mut records = Vec::new();
    let mut sources = Vec::new();
    for p in profiles {
        sources.push(SourceInfo {
            kind: "profile".into(),
            sha256: p.sha256.to_string(),
            run: Some(p.run),
            rank: Some(p.rank),
            alignment_map_sha256: None,
        });
        records.extend(p.records);
    }
    run(&Source::Memory { records, sources }, output, options)
}

enum Source<'a> {
    /// A records file; `sources`, when given, are reported instead of the
    /// file's digest (the file is a spill of those traces' records).
    File {
        path: &'a Path,
        reader: &'a ReaderOptions,
        sources: Option<Vec<SourceInfo>>,
    },
    Memory {
        records: Vec<Record>,
        sources: Vec<SourceInfo>,
    },
}

impl Source<'_> {
    /// Visits every record; returns the digest of a file source.
    fn visit(
        &self,
        f: &mut dyn FnMut(&Record) -> Result<(), Error>,
    ) -> Result<Option<Sha256Digest>, Error> {
        match self {
            Source::File { path, reader, .. } => {
                visit_records_file(path, reader, &mut |r| f(&r)).map(Some)
            }
            Source::Memory { records, .. } => {
                for r in records {
                    f(r)?;
                }
                Ok(None)
            }
        }
    }
}

impl Source<'_> {
    /// Visits the index fields of every record (the first pass): borrowed
    /// from each line of a records file, skipping stacks and provenance.
    fn visit_keys(
        &self,
        f: &mut dyn FnMut(KeyView<'_>) -> Result<(), Error>,
    ) -> Result<Option<Sha256Digest>, Error> {
        match self {
            Source::File { path, reader, .. } => {
                visit_record_lines(path, reader, &mut |text, line| {
                    let k: RecordKey<'_> = crate::record::parse_record_line(text, line)?;
                    f(KeyView {
                        line,
                        record_id: &k.record_id,
                        run: &k.run,
                        rank: k.rank,
                        sequence: k.sequence,
                        op: &k.op,
                        callsite: k
                            .callsite
                            .as_ref()
                            .map(|c| (c.file.as_ref(), c.function.as_ref(), c.line)),
                        inputs: k.io.inputs.iter().map(|t| t.digests()).collect(),
                        outputs: k.io.outputs.iter().map(|t| t.digests()).collect(),
                    })
                })
                .map(Some)
            }
            Source::Memory { records, .. } => {
                for (n, r) in records.iter().enumerate() {
                    f(KeyView {
                        line: n as u64 + 2,
                        record_id: &r.record_id,
                        run: &r.run,
                        rank: r.rank,
                        sequence: r.sequence,
                        op: &r.op,
                        callsite: r
                            .callsite
                            .as_ref()
                            .map(|c| (c.file.as_str(), c.function.as_str(), c.line)),
                        inputs: r.io.inputs.iter().map(field_digests).collect(),
                        outputs: r.io.outputs.iter().map(field_digests).collect(),
                    })?;
                }
                Ok(None)
            }
        }
    }
}

/// What the first pass keeps of a record.
struct KeyView<'a> {
    line: u64,
    record_id: &'a str,
    run: &'a str,
    rank: u32,
    sequence: u64,
    op: &'a str,
    callsite: Option<(&'a str, &'a str, Option<u32>)>,
    inputs: Vec<FieldDigests>,
    outputs: Vec<FieldDigests>,
}

struct OpMeta {
    group: u32,
    sequence: u64,
    sig: u32,
    slots: u32,
    n_in: u32,
    n_out: u32,
}

/// The operation index of the first pass.
struct Index {
    runs: Vec<String>,
    groups: Vec<Group>,
    group_of: HashMap<(u8, u32), u32>,
    sigs: HashMap<String, u32>,
    ops: Vec<OpMeta>,
    digests: Vec<FieldDigests>,
    ids: Vec<Box<str>>,
    /// Scratch for signatures.
    key: String,
}

impl Index {
    fn add(&mut self, r: KeyView<'_>, callsite_match: CallsiteMatch) -> Result<(), Error> {
        let invalid = |detail: &str| {
            Error::new(ErrorKind::InvalidRecords {
                line: r.line,
                detail: detail.into(),
            })
        };
        if r.record_id.is_empty() {
            return Err(invalid("record_id is empty"));
        }
        if r.run.is_empty() {
            return Err(invalid("run is empty"));
        }
        if r.op.is_empty() {
            return Err(invalid("op is empty"));
        }
        let run = match self.runs.iter().position(|x| x == r.run) {
            Some(i) => i,
            None => {
                self.runs.push(r.run.to_owned());
                if self.runs.len() > 2 {
                    return Err(Error::new(ErrorKind::RunCount(self.runs.clone())));
                }
                self.runs.len() - 1
            }
        } as u8;
        let next_group = self.groups.len() as u32;
        let group = *self.group_of.entry((run, r.rank)).or_insert(next_group);
        if group == next_group {
            self.groups.push(Group {
                run,
                rank: r.rank,
                pid: 0,
            });
        }
        signature_into(&mut self.key, r.op, r.callsite, callsite_match);
        let sig = match self.sigs.get(self.key.as_str()) {
            Some(&s) => s,
            None => {
                let s = self.sigs.len() as u32;
                self.sigs.insert(self.key.clone(), s);
                s
            }
        };
        let slots = self.digests.len() as u32;
        self.digests.extend_from_slice(&r.inputs);
        self.digests.extend_from_slice(&r.outputs);
        self.ops.push(OpMeta {
            group,
            sequence: r.sequence,
            sig,
            slots,
            n_in: r.inputs.len() as u32,
            n_out: r.outputs.len() as u32,
        });
        self.ids.push(r.record_id.into());
        Ok(())
    }

    fn inputs(&self, i: usize) -> &[FieldDigests] {
        let m = &self.ops[i];
        &self.digests[m.slots as usize..(m.slots + m.n_in) as usize]
    }

    fn outputs(&self, i: usize) -> &[FieldDigests] {
        let m = &self.ops[i];
        let start = (m.slots + m.n_in) as usize;
        &self.digests[start..start + m.n_out as usize]
    }
}

/// The signature automatic candidates align on, written into `key`.
fn signature_into(
    key: &mut String,
    op: &str,
    callsite: Option<(&str, &str, Option<u32>)>,
    m: CallsiteMatch,
) {
    use std::fmt::Write as _;
    key.clear();
    key.push_str(op);
    if let (Some((file, function, line)), false) = (callsite, m == CallsiteMatch::Ignore) {
        key.push('\0');
        key.push_str(file);
        key.push('\0');
        key.push_str(function);
        if m == CallsiteMatch::Exact {
            if let Some(line) = line {
                let _ = write!(key, "\0{line}");
            }
        }
    }
}

/// The candidate relations and presentation of every operation.
struct Plan {
    peer: Vec<Option<u32>>,
    status: Vec<Status>,
    column: Vec<u32>,
    comparisons: HashMap<u32, Comparison>,
    budget_exhausted: Vec<u32>,
}

fn plan(index: &Index, budget: u64) -> Result<Plan, Error> {
    let n = index.ops.len();
    // Operations of each group in sequence order.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); index.groups.len()];
    for (i, op) in index.ops.iter().enumerate() {
        members[op.group as usize].push(i as u32);
    }
    for (g, list) in members.iter_mut().enumerate() {
        list.sort_by_key(|&i| index.ops[i as usize].sequence);
        for w in list.windows(2) {
            let s = index.ops[w[1] as usize].sequence;
            if index.ops[w[0] as usize].sequence == s {
                let group = &index.groups[g];
                return Err(Error::new(ErrorKind::DuplicateSequence {
                    run: index.runs[group.run as usize].clone(),
                    rank: group.rank,
                    sequence: s,
                }));
            }
        }
    }
    let mut plan = Plan {
        peer: vec![None; n],
        status: vec![Status::NoCorrespondingTraceFile; n],
        column: vec![0; n],
        comparisons: HashMap::new(),
        budget_exhausted: Vec::new(),
    };
    let ranks: BTreeSet<u32> = index.groups.iter().map(|g| g.rank).collect();
    for rank in ranks {
        let left = index
            .group_of
            .get(&(0, rank))
            .map(|&g| &members[g as usize]);
        let right = index
            .group_of
            .get(&(1, rank))
            .map(|&g| &members[g as usize]);
        let (left, right) = match (left, right) {
            (Some(l), Some(r)) => (l, r),
            (Some(only), None) | (None, Some(only)) => {
                for (col, &i) in only.iter().enumerate() {
                    plan.column[i as usize] = col as u32;
                }
                continue;
            }
            (None, None) => continue,
        };
        let a: Vec<u32> = left.iter().map(|&i| index.ops[i as usize].sig).collect();
        let b: Vec<u32> = right.iter().map(|&i| index.ops[i as usize].sig).collect();
        let alignment = align_sequences(&a, &b, budget);
        if alignment.budget_exhausted {
            plan.budget_exhausted.push(rank);
        }
        for &i in left.iter().chain(right) {
            plan.status[i as usize] = Status::Unpaired;
        }
        let mut column_pair: Vec<(u32, u32)> = Vec::with_capacity(alignment.pairs.len());
        // Presentation columns: unpaired operations of the left run, then of
        // the right run, then the pair sharing one column.
        let column = &mut plan.column;
        let mut col = 0u32;
        let mut place = |i: u32| {
            column[i as usize] = col;
            col += 1;
        };
        let (mut pa, mut pb) = (0usize, 0usize);
        for &(x, y) in &alignment.pairs {
            left[pa..x].iter().for_each(|&i| place(i));
            right[pb..y].iter().for_each(|&i| place(i));
            place(left[x]);
            // The pair shares the column just used.
            pa = x + 1;
            pb = y + 1;
            column_pair.push((left[x], right[y]));
        }
        left[pa..].iter().for_each(|&i| place(i));
        right[pb..].iter().for_each(|&i| place(i));
        for (l, r) in column_pair.drain(..) {
            plan.column[r as usize] = plan.column[l as usize];
        }
        for &(x, y) in &alignment.pairs {
            let (l, r) = (left[x] as usize, right[y] as usize);
            let c = compare_events(
                index.inputs(l),
                index.outputs(l),
                index.inputs(r),
                index.outputs(r),
            );
            let status = if c.agrees() {
                Status::Ok
            } else {
                Status::Differs
            };
            plan.peer[l] = Some(r as u32);
            plan.peer[r] = Some(l as u32);
            plan.status[l] = status;
            plan.status[r] = status;
            if !c.differences.is_empty() || !c.not_compared.is_empty() {
                plan.comparisons.insert(l as u32, c);
            }
        }
    }
    Ok(plan)
}

#[derive(Serialize)]
struct OpFields<'a> {
    record_id: &'a str,
    run: &'a str,
    rank: u32,
    sequence: u64,
    name: &'a str,
    callsite: &'a Option<Callsite>,
    stack: &'a [Frame],
    #[serde(skip_serializing_if = "Option::is_none")]
    thread: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts_ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur_ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: &'a Option<serde_json::Map<String, serde_json::Value>>,
}

/// `args` of an operation event: the correspondence first (it is what a
/// reader looks at first, and what apply reads without scanning the rest).
#[derive(Serialize)]
struct OpArgs<'a> {
    correspondence: &'a Correspondence,
    op: OpFields<'a>,
    io: &'a Io,
}

fn run(
    source: &Source<'_>,
    output: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, Error> {
    let mut index = Index {
        runs: Vec::new(),
        groups: Vec::new(),
        group_of: HashMap::new(),
        sigs: HashMap::new(),
        ops: Vec::new(),
        digests: Vec::new(),
        ids: Vec::new(),
        key: String::new(),
    };
    let first_sha = source.visit_keys(&mut |r| index.add(r, options.callsite_match))?;
    if index.runs.len() != 2 {
        return Err(Error::new(ErrorKind::RunCount(index.runs.clone())));
    }
    {
        let mut seen: HashSet<&str> = HashSet::with_capacity(index.ids.len());
        for id in &index.ids {
            if !seen.insert(id) {
                return Err(Error::new(ErrorKind::DuplicateRecordId(id.to_string())));
            }
        }
    }
    assign_pids(&mut index.groups);
    let plan = plan(&index, options.alignment_budget)?;
    let runs: [String; 2] = [index.runs[0].clone(), index.runs[1].clone()];
    let sources = match (source, first_sha) {
        (Source::Memory { sources, .. }, _)
        | (
            Source::File {
                sources: Some(sources),
                ..
            },
            _,
        ) => sources.clone(),
        (Source::File { sources: None, .. }, Some(sha)) => vec![SourceInfo {
            kind: "records".into(),
            sha256: sha.to_string(),
            run: None,
            rank: None,
            alignment_map_sha256: None,
        }],
        (Source::File { sources: None, .. }, None) => Vec::new(),
    };
    let views: Vec<OpView> = (0..index.ops.len())
        .map(|i| OpView {
            group: index.ops[i].group,
            sequence: index.ops[i].sequence,
            ts_ns: plan.column[i] as i64 * SLOT_NS,
            dur_ns: SLICE_NS,
            status: plan.status[i],
            validation: Validation::Unreviewed,
            peer: plan.peer[i],
        })
        .collect();
    let candidates = format!(
        "automatic candidates: per rank, a longest common subsequence (Myers) of the two runs' operation sequences over signatures of {}; operations off that subsequence stay unpaired",
        options.callsite_match.describe()
    );
    let (limit, thread) = (options.max_export_bytes, options.output_thread);
    let (tail, written) = write_view(output, limit, thread, |sink| {
        let mut w = TraceWriter::new(&mut *sink)?;
        let mut i = 0usize;
        let mut args = Vec::with_capacity(1024);
        let second_sha = source.visit(&mut |r| {
            if index.ids.get(i).map(|x| &**x) != Some(r.record_id.as_str()) {
                return Err(Error::new(ErrorKind::SourceChanged {
                    first: "record order of the first pass".into(),
                    second: format!("record {:?} at position {i}", r.record_id),
                }));
            }
            let group = &index.groups[index.ops[i].group as usize];
            let mut corr = Correspondence::unrelated(plan.status[i]);
            if let Some(p) = plan.peer[i] {
                corr.basis = Some(BASIS_AUTOMATIC.into());
                corr.peer = Some(Peer {
                    record_id: index.ids[p as usize].to_string(),
                    event: p as u64,
                });
                let key = if group.run == 0 { i as u32 } else { p };
                if let Some(c) = plan.comparisons.get(&key) {
                    corr.differences = c.differences.clone();
                    corr.not_compared = c.not_compared.clone();
                }
            }
            args.clear();
            serde_json::to_writer(
                &mut args,
                &OpArgs {
                    op: OpFields {
                        record_id: &r.record_id,
                        run: &r.run,
                        rank: r.rank,
                        sequence: r.sequence,
                        name: &r.op,
                        callsite: &r.callsite,
                        stack: &r.stack,
                        thread: &r.thread,
                        ts_ns: r.ts_ns,
                        dur_ns: r.dur_ns,
                        origin: &r.origin,
                    },
                    io: &r.io,
                    correspondence: &corr,
                },
            )
            .map_err(|e| Error::io("encoding an operation", std::io::Error::other(e)))?;
            let text = String::from_utf8(std::mem::take(&mut args))
                .map_err(|e| Error::io("encoding an operation", std::io::Error::other(e)))?;
            w.write_event(&OwnedEvent {
                ph: Some("X".into()),
                cat: Some(CAT_OPERATION.into()),
                name: Some(r.op.clone()),
                pid: Some(ScalarKey::Number(group.pid.to_string())),
                tid: Some(ScalarKey::Number(TID_OPERATIONS.to_string())),
                ts_ns: Some(views[i].ts_ns),
                dur_ns: Some(views[i].dur_ns),
                args: Some(RawJson::new(text)?),
                ..OwnedEvent::default()
            })?;
            i += 1;
            Ok(())
        })?;
        if i != index.ops.len() {
            return Err(Error::new(ErrorKind::SourceChanged {
                first: format!("{} records", index.ops.len()),
                second: format!("{i} records"),
            }));
        }
        if let (Some(a), Some(b)) = (first_sha, second_sha) {
            if a != b {
                return Err(Error::new(ErrorKind::SourceChanged {
                    first: a.to_string(),
                    second: b.to_string(),
                }));
            }
        }
        let ids = |k: usize| &*index.ids[k];
        let tail = write_tail(&mut w, &runs, &index.groups, &views, &ids)?;
        let meta = ExportMetadata::of_view(
            "export",
            &runs,
            index.ops.len() as u64,
            &tail,
            candidates.clone(),
            plan.budget_exhausted.clone(),
            sources.clone(),
        );
        finish_view(w, &meta)?;
        Ok(tail)
    })?;
    let ranks: BTreeSet<u32> = index.groups.iter().map(|g| g.rank).collect();
    Ok(ExportSummary {
        format: EXPORT_FORMAT.into(),
        output: output.to_path_buf(),
        output_sha256: written.sha256.to_string(),
        output_bytes: written.encoded_bytes,
        decoded_bytes: written.decoded_bytes,
        operations: index.ops.len() as u64,
        pairs: tail.pairs,
        runs: runs.to_vec(),
        ranks: ranks.into_iter().collect(),
        statuses: tail.statuses,
        first_differences: tail.first_differences,
        alignment_budget_exhausted_ranks: plan.budget_exhausted,
        sources,
        verdict: VERDICT.into(),
        warnings: Vec::new(),
    })
}
