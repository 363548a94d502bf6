//! The reduce step: rank summaries and partial jobs → one [`Job`].
//!
//! A job is a multiset of ranks plus, per semantic frame, the multiset of
//! per-rank costs; every other field (`max_ns`, `median_ns`,
//! `slowest_rank`, `missing`) is derived from those two and recomputed on
//! every merge, and both multisets are kept in one canonical order. So the
//! merge is associative and commutative down to the bytes: any grouping and
//! any order of the same summaries serialise identically.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summary::{RankInfo, RankSummary};

/// The `format` of a [`Job`].
pub const JOB_FORMAT: &str = "opguard.job/v1";

/// A whole job (or part of one): its ranks and, per semantic frame, what
/// each rank spent in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// [`JOB_FORMAT`].
    pub format: String,
    /// Every rank, readable or not, ordered by rank number then file.
    pub ranks: Vec<RankInfo>,
    /// Every semantic frame seen on any rank, most expensive (`max_ns`)
    /// first, then by id.
    pub frames: Vec<JobFrame>,
}

/// Which rank: its number (when the trace states one) and its file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankRef {
    /// `distributedInfo.rank`.
    pub rank: Option<i64>,
    /// The path as given.
    pub file: String,
}

/// One rank's cost in one frame.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankCost {
    /// `distributedInfo.rank`.
    pub rank: Option<i64>,
    /// The path as given.
    pub file: String,
    /// Total duration, ns.
    pub cost_ns: i64,
    /// Slices.
    pub count: u64,
}

/// One semantic frame across the job's ranks. Durations only: each rank is
/// its own clock domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFrame {
    /// The `semantic-frame/v1` id.
    pub id: String,
    /// The event category.
    pub category: String,
    /// The normalized name (the smallest spelling any rank used).
    pub name: String,
    /// Canonical kernel identity, for device frames.
    pub kernel_identity: Option<String>,
    /// Cost on every rank that has the frame, ordered by rank then file.
    pub per_rank: Vec<RankCost>,
    /// The largest per-rank cost, ns.
    pub max_ns: i64,
    /// The median per-rank cost over the ranks that have the frame, ns: the
    /// middle value, or the floor of the mean of the two middle values.
    pub median_ns: i64,
    /// The rank with the largest cost (ties: the first in rank order).
    pub slowest_rank: Option<i64>,
    /// That rank's file.
    pub slowest_file: String,
    /// Ranks of the job without this frame, unreadable ranks included.
    pub missing: Vec<RankRef>,
}

impl From<RankSummary> for Job {
    fn from(summary: RankSummary) -> Job {
        Job::from_summaries([summary])
    }
}

impl JobFrame {
    /// The frame's name for a table or chart: a kernel by its short name
    /// (its demangled signature is a line of templates), anything else as
    /// written (`aten::mm`; `autograd::engine::evaluate_function:
    /// AddmmBackward0` apart from `AddmmBackward0`, which short names would
    /// show as one).
    pub fn label(&self) -> std::borrow::Cow<'_, str> {
        match self.kernel_identity {
            Some(_) => opguard_kernel_name::short_name(&self.name),
            None => std::borrow::Cow::Borrowed(&self.name),
        }
    }
}

impl Job {
    /// A job with no ranks: the merge's identity.
    pub fn empty() -> Job {
        Job {
            format: JOB_FORMAT.to_owned(),
            ranks: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// The job of these rank summaries (in any order).
    pub fn from_summaries(summaries: impl IntoIterator<Item = RankSummary>) -> Job {
        let mut parts = Parts::default();
        for s in summaries {
            let who = RankRef {
                rank: s.rank.rank,
                file: s.rank.file.clone(),
            };
            for f in s.frames {
                parts.frame(
                    Meta {
                        id: f.id,
                        category: f.category,
                        name: f.name,
                        kernel_identity: f.kernel_identity,
                    },
                    RankCost {
                        rank: who.rank,
                        file: who.file.clone(),
                        cost_ns: f.cost_ns,
                        count: f.count,
                    },
                );
            }
            parts.ranks.push(s.rank);
        }
        parts.finish()
    }

    /// Merges two jobs. Associative and commutative; [`Job::empty`] is the
    /// identity.
    pub fn merge(self, other: Job) -> Job {
        Job::merge_all([self, other])
    }

    /// Merges any number of jobs at once (the same result as folding
    /// [`Job::merge`] over them, in any order).
    pub fn merge_all(jobs: impl IntoIterator<Item = Job>) -> Job {
        let mut parts = Parts::default();
        for job in jobs {
            parts.ranks.extend(job.ranks);
            for f in job.frames {
                let meta = Meta {
                    id: f.id,
                    category: f.category,
                    name: f.name,
                    kernel_identity: f.kernel_identity,
                };
                for cost in f.per_rank {
                    parts.frame(meta.clone(), cost);
                }
            }
        }
        parts.finish()
    }

    /// Ranks that could not be read.
    pub fn unreadable(&self) -> impl Iterator<Item = &RankInfo> {
        self.ranks.iter().filter(|r| r.error.is_some())
    }
}

#[derive(Clone)]
struct Meta {
    id: String,
    category: String,
    name: String,
    kernel_identity: Option<String>,
}

#[derive(Default)]
struct Parts {
    ranks: Vec<RankInfo>,
    frames: BTreeMap<String, (Meta, Vec<RankCost>)>,
}

impl Parts {
    fn frame(&mut self, meta: Meta, cost: RankCost) {
        match self.frames.get_mut(&meta.id) {
            Some((kept, costs)) => {
                // The id hashes category and identity, so only the display
                // name can differ between ranks; the smallest one is kept so
                // the order of arrival does not matter.
                if meta.name < kept.name {
                    kept.name = meta.name;
                }
                costs.push(cost);
            }
            None => {
                self.frames.insert(meta.id.clone(), (meta, vec![cost]));
            }
        }
    }

    fn finish(mut self) -> Job {
        self.ranks.sort_by(|a, b| {
            (a.rank, &a.file)
                .cmp(&(b.rank, &b.file))
                .then_with(|| a.cmp(b))
        });
        let all: Vec<RankRef> = self
            .ranks
            .iter()
            .map(|r| RankRef {
                rank: r.rank,
                file: r.file.clone(),
            })
            .collect();
        let mut frames: Vec<JobFrame> = self
            .frames
            .into_values()
            .map(|(meta, mut per_rank)| {
                per_rank.sort();
                let stats = Stats::of(&per_rank);
                JobFrame {
                    missing: missing(&all, &per_rank),
                    id: meta.id,
                    category: meta.category,
                    name: meta.name,
                    kernel_identity: meta.kernel_identity,
                    per_rank,
                    max_ns: stats.max_ns,
                    median_ns: stats.median_ns,
                    slowest_rank: stats.slowest.0,
                    slowest_file: stats.slowest.1,
                }
            })
            .collect();
        frames.sort_by(|a, b| b.max_ns.cmp(&a.max_ns).then_with(|| a.id.cmp(&b.id)));
        Job {
            format: JOB_FORMAT.to_owned(),
            ranks: self.ranks,
            frames,
        }
    }
}

struct Stats {
    max_ns: i64,
    median_ns: i64,
    slowest: (Option<i64>, String),
}

impl Stats {
    /// `per_rank` is sorted by rank and file and never empty.
    fn of(per_rank: &[RankCost]) -> Stats {
        let mut slowest = &per_rank[0];
        for c in per_rank {
            if c.cost_ns > slowest.cost_ns {
                slowest = c;
            }
        }
        let mut costs: Vec<i64> = per_rank.iter().map(|c| c.cost_ns).collect();
        costs.sort_unstable();
        let n = costs.len();
        let median_ns = if n % 2 == 1 {
            costs[n / 2]
        } else {
            let sum = i128::from(costs[n / 2 - 1]) + i128::from(costs[n / 2]);
            // Both halves are i64, so their floored mean is too.
            i64::try_from(sum.div_euclid(2)).unwrap_or(i64::MAX)
        };
        Stats {
            max_ns: slowest.cost_ns,
            median_ns,
            slowest: (slowest.rank, slowest.file.clone()),
        }
    }
}

/// The job's ranks without a cost entry, as a multiset difference: a file
/// given twice and present once is missing once.
fn missing(all: &[RankRef], per_rank: &[RankCost]) -> Vec<RankRef> {
    let mut present: BTreeMap<(Option<i64>, &str), usize> = BTreeMap::new();
    for c in per_rank {
        *present.entry((c.rank, c.file.as_str())).or_default() += 1;
    }
    let mut out = Vec::new();
    for r in all {
        match present.get_mut(&(r.rank, r.file.as_str())) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(r.clone()),
        }
    }
    out
}
