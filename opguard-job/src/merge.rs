//! The reduce step: rank summaries and partial jobs → one [`Job`].
//!
//! A job is a multiset of ranks plus, per semantic frame, the multiset of
//! per-rank costs; every other field (`max_ns`, `median_ns`,
//! `slowest_rank`, `missing`) is derived from those two and recomputed on
//! every merge, and both multisets are kept in one canonical order. So the
//! merge is associative and commutative down to the bytes: any grouping and
//! any order of the same summaries serialise identically.
//!
//! A frame id is derived from the frame's category and, for device work, its
//! kernel identity, so two entries with one id and different values of
//! either are not one frame: a document was altered or is not opguard's.
//! Keeping the first one seen would make the result depend on the order of
//! the inputs; the merge refuses them instead ([`ErrorKind::FrameConflict`]),
//! naming the smallest such id, so the refusal does not depend on the
//! order either.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, FrameConflict};
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

impl TryFrom<RankSummary> for Job {
    type Error = Error;

    /// The job of one rank; refused when two of its frames share an id but
    /// not a category or kernel identity ([`ErrorKind::FrameConflict`]).
    fn try_from(summary: RankSummary) -> Result<Job, Error> {
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
    ///
    /// Refused with [`ErrorKind::FrameConflict`] when two frames share an id but
    /// not a category or kernel identity, which summaries made by
    /// [`summarize`](crate::summarize) never do (their ids are derived from
    /// those fields); a summary read from a document may.
    pub fn from_summaries(summaries: impl IntoIterator<Item = RankSummary>) -> Result<Job, Error> {
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
    /// identity. Refused with [`ErrorKind::FrameConflict`] when the two disagree
    /// on what a frame id is (its category or kernel identity), in either
    /// order.
    pub fn merge(self, other: Job) -> Result<Job, Error> {
        Job::merge_all([self, other])
    }

    /// Merges any number of jobs at once (the same result as folding
    /// [`Job::merge`] over them, in any order). Refused with
    /// [`ErrorKind::FrameConflict`] for the smallest frame id whose entries
    /// disagree on the category or kernel identity.
    pub fn merge_all(jobs: impl IntoIterator<Item = Job>) -> Result<Job, Error> {
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

/// What the entries of one frame id say it is, and who said so.
struct Claim {
    category: String,
    kernel_identity: Option<String>,
    /// The first rank, in rank order, whose cost came with this claim.
    by: RankRef,
}

struct FrameParts {
    /// The smallest display name any rank used (only the display name may
    /// differ between ranks: the id is derived from the rest).
    name: String,
    /// The first (category, kernel identity) given for the id.
    claim: Claim,
    /// Any other given for it: each one a conflict.
    other_claims: Vec<Claim>,
    costs: Vec<RankCost>,
}

#[derive(Default)]
struct Parts {
    ranks: Vec<RankInfo>,
    frames: BTreeMap<String, FrameParts>,
}

impl Parts {
    fn frame(&mut self, meta: Meta, cost: RankCost) {
        let by = RankRef {
            rank: cost.rank,
            file: cost.file.clone(),
        };
        match self.frames.get_mut(&meta.id) {
            Some(kept) => {
                if meta.name < kept.name {
                    kept.name = meta.name;
                }
                match std::iter::once(&mut kept.claim)
                    .chain(&mut kept.other_claims)
                    .find(|c| {
                        c.category == meta.category && c.kernel_identity == meta.kernel_identity
                    }) {
                    Some(claim) => claim.by = claim.by.clone().min(by),
                    None => kept.other_claims.push(Claim {
                        category: meta.category,
                        kernel_identity: meta.kernel_identity,
                        by,
                    }),
                }
                kept.costs.push(cost);
            }
            None => {
                let claim = Claim {
                    category: meta.category,
                    kernel_identity: meta.kernel_identity,
                    by,
                };
                self.frames.insert(
                    meta.id,
                    FrameParts {
                        name: meta.name,
                        claim,
                        other_claims: Vec::new(),
                        costs: vec![cost],
                    },
                );
            }
        }
    }

    /// The smallest frame id given two different categories or kernel
    /// identities, described by its two smallest claims: the same error for
    /// any order of the inputs.
    fn conflict(&self) -> Option<Error> {
        let (id, frame) = self
            .frames
            .iter()
            .find(|(_, f)| !f.other_claims.is_empty())?;
        let mut claims: Vec<&Claim> = std::iter::once(&frame.claim)
            .chain(&frame.other_claims)
            .collect();
        claims.sort_by(|a, b| {
            (&a.category, &a.kernel_identity).cmp(&(&b.category, &b.kernel_identity))
        });
        let (a, b) = (claims[0], claims[1]);
        let (field, first, second) = if a.category != b.category {
            ("category", json(&a.category), json(&b.category))
        } else {
            (
                "kernel_identity",
                json(&a.kernel_identity),
                json(&b.kernel_identity),
            )
        };
        Some(Error::from(ErrorKind::FrameConflict(Box::new(
            FrameConflict {
                id: id.clone(),
                field,
                first,
                first_rank: a.by.clone(),
                second,
                second_rank: b.by.clone(),
            },
        ))))
    }

    fn finish(mut self) -> Result<Job, Error> {
        if let Some(conflict) = self.conflict() {
            return Err(conflict);
        }
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
            .into_iter()
            .map(|(id, frame)| {
                let mut per_rank = frame.costs;
                per_rank.sort();
                let stats = Stats::of(&per_rank);
                JobFrame {
                    missing: missing(&all, &per_rank),
                    id,
                    category: frame.claim.category,
                    name: frame.name,
                    kernel_identity: frame.claim.kernel_identity,
                    per_rank,
                    max_ns: stats.max_ns,
                    median_ns: stats.median_ns,
                    slowest_rank: stats.slowest.0,
                    slowest_file: stats.slowest.1,
                }
            })
            .collect();
        frames.sort_by(|a, b| b.max_ns.cmp(&a.max_ns).then_with(|| a.id.cmp(&b.id)));
        Ok(Job {
            format: JOB_FORMAT.to_owned(),
            ranks: self.ranks,
            frames,
        })
    }
}

/// A value as JSON text, for an error message (`"cpu_op"`, `null`).
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
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
