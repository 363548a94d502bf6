//! Analysis stage: the plain facts of one trace file, from one read.
//!
//! [`trace_info`] counts events by `(ph, cat)`, finds the time span of the
//! timed events (metadata `M` events are not timed) in the file's own clock
//! domain, detects the provider, and
//! warns about input that is valid JSON but odd as a trace: negative
//! durations (an `X` event that ends before it starts), flow ends whose start
//! never appears, and timestamps that go backwards in file order.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use crate::error::Error;
use crate::event::Str;
use opguard_model::{Interner, NameId, Provider, Sha256Digest};

use crate::input::Compression;
use crate::model_reader::ProviderDetector;
use crate::reader::{TopLevelForm, TraceReader};

/// How many events have one `(ph, cat)`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Count {
    /// The phase; `null` when absent.
    pub ph: Option<String>,
    /// The category; `null` when absent.
    pub cat: Option<String>,
    /// Events.
    pub count: u64,
}

/// The span of a file's timestamps, in its own clock domain. Metadata
/// (`ph: "M"`) events are not timed events: their `ts` is a convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TimeSpan {
    /// Smallest `ts`, ns.
    pub start_ns: i64,
    /// Largest `ts + dur` (`dur` 0 when absent), ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
    /// Events that contributed.
    pub timed_events: u64,
}

/// Something valid but odd about a trace, counted once per kind.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// Stable code: the reader's ([`crate::ReadWarning`]: `array_unterminated`,
    /// `truncated`, `trailing_comma`, `gzip_truncated`), then
    /// `negative_duration`, `flow_end_without_start`,
    /// `timestamps_out_of_order`, `time_out_of_range`, `utf8_replaced`.
    pub code: &'static str,
    /// Events affected.
    pub count: u64,
    /// Index of the first one.
    pub first_event_index: Option<u64>,
    /// What it means.
    pub message: String,
}

/// The facts of one trace file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TraceInfo {
    /// SHA-256 of the encoded bytes.
    pub sha256: Sha256Digest,
    /// `none` or `gzip`.
    pub compression: Compression,
    /// `object` or `array`.
    pub form: TopLevelForm,
    /// Bytes read.
    pub encoded_bytes: u64,
    /// Bytes of JSON after decompression.
    pub decoded_bytes: u64,
    /// `traceEvents` elements.
    pub events: u64,
    /// Top-level keys other than `traceEvents`, in file order.
    pub metadata_keys: Vec<String>,
    /// Detected provider.
    pub provider: Provider,
    /// The file's clock domain (`artifact:<sha256>`).
    pub clock_domain: String,
    /// Time span of the timed events; `null` when none has a `ts`.
    pub time_span: Option<TimeSpan>,
    /// Events whose time does not fit i64 nanoseconds (left out of the span).
    pub time_out_of_range_events: u64,
    /// Events by `(ph, cat)`: count descending, then `ph`, then `cat`
    /// (absent first).
    pub counts: Vec<Count>,
    /// Odd but valid input.
    pub warnings: Vec<Warning>,
}

#[derive(Default)]
struct Tally {
    count: u64,
    first: Option<u64>,
}

impl Tally {
    fn hit(&mut self, index: u64) {
        self.count += 1;
        self.first.get_or_insert(index);
    }
}

/// One field's distinct strings (the model's [`Interner`]), with the few
/// most recently used tried before hashing: a trace has a handful of phases
/// and categories, and most events reuse them.
#[derive(Default)]
struct FieldIds {
    names: Interner,
    recent: [Option<NameId>; RECENT],
    next_recent: usize,
}

const RECENT: usize = 8;

impl FieldIds {
    fn id(&mut self, s: Option<Str<'_>>) -> Option<NameId> {
        let text = s?.as_cow();
        for &id in self.recent.iter().flatten() {
            if self.names.get(id) == text {
                return Some(id);
            }
        }
        let id = self.names.intern(&text);
        self.recent[self.next_recent] = Some(id);
        self.next_recent = (self.next_recent + 1) % RECENT;
        Some(id)
    }

    /// Whether `s` is the string `id` stands for (both absent included).
    fn names(&self, id: Option<NameId>, s: Option<Str<'_>>) -> bool {
        match (id, s) {
            (None, None) => true,
            (Some(id), Some(s)) => s.eq_str(self.names.get(id)),
            _ => false,
        }
    }

    fn text(&self, id: Option<NameId>) -> Option<String> {
        id.map(|id| self.names.get(id).to_owned())
    }
}

/// An event's `(ph, cat)`, by interned ids (`None`: the field is absent).
type Pair = (Option<NameId>, Option<NameId>);

/// Events by `(ph, cat)`, counted by interned ids.
#[derive(Default)]
struct PairCounts {
    ph: FieldIds,
    cat: FieldIds,
    counts: HashMap<Pair, u64>,
    /// The count of the pair last hit: runs of events share a pair (97% of
    /// the MTIA trace's events), found by comparing with its text instead of
    /// interning.
    last: Option<(Pair, u64)>,
}

impl PairCounts {
    fn hit(&mut self, ph: Option<Str<'_>>, cat: Option<Str<'_>>) {
        if let Some(((last_ph, last_cat), n)) = &mut self.last {
            if self.ph.names(*last_ph, ph) && self.cat.names(*last_cat, cat) {
                *n += 1;
                return;
            }
        }
        let key = (self.ph.id(ph), self.cat.id(cat));
        match &mut self.last {
            Some((last, n)) if *last == key => *n += 1,
            last => {
                if let Some((k, n)) = last.replace((key, 1)) {
                    *self.counts.entry(k).or_default() += n;
                }
            }
        }
    }

    fn into_counts(mut self) -> Vec<Count> {
        if let Some((k, n)) = self.last.take() {
            *self.counts.entry(k).or_default() += n;
        }
        self.counts
            .iter()
            .map(|(&(ph, cat), &count)| Count {
                ph: self.ph.text(ph),
                cat: self.cat.text(cat),
                count,
            })
            .collect()
    }
}

/// Reads `reader` to the end and returns its facts. `progress` is called
/// with the encoded bytes read so far, every few thousand events.
pub fn trace_info<R: Read>(
    mut reader: TraceReader<R>,
    progress: &mut dyn FnMut(u64),
) -> Result<TraceInfo, Error> {
    let mut counts = PairCounts::default();
    let mut span: Option<TimeSpan> = None;
    let mut out_of_range = Tally::default();
    let mut negative = Tally::default();
    let mut backwards = Tally::default();
    let mut last_ts: Option<i64> = None;
    let mut flow_starts: HashSet<String> = HashSet::new();
    let mut flow_ends: Vec<(String, u64)> = Vec::new();
    let mut detector = ProviderDetector::new();
    while let Some(e) = reader.next_event()? {
        detector.observe(&e);
        let ph = e.ph();
        counts.hit(ph, e.cat());
        let index = e.index();
        // Metadata (`M`) events carry ts 0 or the capture's start by
        // convention, not a time something happened: they would stretch
        // the span to the epoch (41.7 days on the MTIA trace).
        let metadata = ph.is_some_and(|p| p == "M");
        if e.ts().is_some() && !metadata {
            match (e.ts_ns(), e.dur_ns()) {
                (Ok(Some(ts)), Ok(dur)) => match ts.checked_add(dur.unwrap_or(0)) {
                    Some(end) => {
                        let s = span.get_or_insert(TimeSpan {
                            start_ns: ts,
                            end_ns: end,
                            duration_ns: 0,
                            timed_events: 0,
                        });
                        s.start_ns = s.start_ns.min(ts);
                        s.end_ns = s.end_ns.max(end);
                        s.timed_events += 1;
                        if dur.is_some_and(|d| d < 0) {
                            negative.hit(index);
                        }
                        if last_ts.is_some_and(|l| ts < l) {
                            backwards.hit(index);
                        }
                        last_ts = Some(ts);
                    }
                    None => out_of_range.hit(index),
                },
                _ => out_of_range.hit(index),
            }
        }
        if let (Some(ph), Some(id)) = (ph, e.id()) {
            let id = format!("{}/{}", e.cat().map(|c| c.as_cow()).unwrap_or_default(), id);
            match ph.raw() {
                "s" => {
                    flow_starts.insert(id);
                }
                "f" => flow_ends.push((id, index)),
                _ => {}
            }
        }
        if index % 4096 == 0 {
            progress(reader.encoded_bytes());
        }
    }
    let summary = reader.finish()?;
    progress(summary.encoded_bytes);
    if let Some(s) = span.as_mut() {
        s.duration_ns = s.end_ns.saturating_sub(s.start_ns);
    }
    let mut dangling = Tally::default();
    for (id, index) in &flow_ends {
        if !flow_starts.contains(id) {
            dangling.hit(*index);
        }
    }
    let mut counts = counts.into_counts();
    counts.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.ph.cmp(&b.ph))
            .then_with(|| a.cat.cmp(&b.cat))
    });
    let out_of_range_events = out_of_range.count;
    // What the reader accepted comes first: it is about the file itself.
    let mut warnings: Vec<Warning> = summary
        .warnings
        .iter()
        .map(|w| Warning {
            code: w.code,
            count: 1,
            first_event_index: None,
            message: w.message.clone(),
        })
        .collect();
    let mut warn = |code, t: Tally, message: &str| {
        if t.count > 0 {
            warnings.push(Warning {
                code,
                count: t.count,
                first_event_index: t.first,
                message: message.to_owned(),
            });
        }
    };
    warn(
        "negative_duration",
        negative,
        "events end before they start (negative dur); durations and gaps involving them are not trustworthy",
    );
    warn(
        "flow_end_without_start",
        dangling,
        "flow ends whose start is not in this file; they link nothing",
    );
    warn(
        "timestamps_out_of_order",
        backwards,
        "timestamps go backwards in file order; analyses sort by time and do not rely on file order",
    );
    warn(
        "time_out_of_range",
        out_of_range,
        "times that do not fit i64 nanoseconds; left out of the time span",
    );
    if summary.utf8_replacements > 0 {
        warnings.push(Warning {
            code: "utf8_replaced",
            count: summary.utf8_replacements,
            first_event_index: None,
            message: "invalid UTF-8 was replaced with U+FFFD (lossy mode)".into(),
        });
    }
    let provider = detector.provider(&summary.metadata);
    Ok(TraceInfo {
        sha256: summary.sha256,
        compression: summary.compression,
        form: summary.form,
        encoded_bytes: summary.encoded_bytes,
        decoded_bytes: summary.decoded_bytes,
        events: summary.events,
        metadata_keys: summary
            .metadata
            .entries()
            .iter()
            .map(|(k, _)| k.clone())
            .collect(),
        provider,
        clock_domain: format!("artifact:{}", summary.sha256),
        time_span: span,
        time_out_of_range_events: out_of_range_events,
        counts,
        warnings,
    })
}
