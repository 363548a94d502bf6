//! What the tests share: the shared profile, the referee, a visitor that
//! collects rows.

use std::path::{Path, PathBuf};

use opguard_xplane::{
    Activity, Error, EventView, KnownStat, ReadOptions, StatValue, Visitor, XSpaceFile,
};

/// The JAX 0.8 profile on 8 MI300 GPUs (TraceLens's test data).
pub const SHARED_PROFILE: &str = "xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb";

pub fn shared_profile() -> Option<PathBuf> {
    opguard_testdata::shared_file(SHARED_PROFILE)
}

/// What `tests/referee.py` prints for `file`.
pub fn referee(file: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), file.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// One event as the reader gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub index: u64,
    pub plane: String,
    pub line: String,
    pub name: String,
    pub ts_ps: i128,
    pub dur_ps: i64,
    pub ts_ns: i64,
    pub dur_ns: i64,
    pub correlation: Option<u64>,
    pub activity: Activity,
}

#[derive(Default)]
pub struct Rows(pub Vec<Row>);

impl Visitor for Rows {
    fn event(&mut self, e: &EventView<'_>) -> Result<(), Error> {
        let correlation = match e.stat(KnownStat::CorrelationId) {
            Some(StatValue::Uint(v)) => Some(v),
            Some(StatValue::Int(v)) => Some(v as u64),
            _ => None,
        };
        self.0.push(Row {
            index: e.index(),
            plane: e.plane().name.to_owned(),
            line: e.line().name.to_owned(),
            name: e.name().to_owned(),
            ts_ps: e.ts_ps().expect("timed"),
            dur_ps: e.dur_ps(),
            ts_ns: e.ts_ns()?.expect("timed"),
            dur_ns: e.dur_ns()?,
            correlation,
            activity: Activity::of(e),
        });
        Ok(())
    }
}

pub fn rows(path: &Path) -> Vec<Row> {
    let space = XSpaceFile::open(path, &ReadOptions::default()).unwrap();
    let mut rows = Rows::default();
    space.visit(&mut rows).unwrap();
    rows.0
}

/// Where each top-level field of an XSpace starts and ends (its key
/// included): every XSpace key is one byte, every field length-delimited.
pub fn top_level_fields(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        pos += 1; // every XSpace key is one byte
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let b = bytes[pos];
            pos += 1;
            len |= ((b & 0x7f) as usize) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        pos += len;
        out.push((start, pos));
    }
    out
}
