//! The project's own JAX producer run (fixtures/producers: jax_prog.py,
//! jax 0.10.2 on CPU) wrote both files: the XSpace and the TensorBoard JSON
//! converted from it. Every JSON event is an XSpace event with the same
//! name, start and duration, and the XLA ops carry the same `hlo_op` and
//! `hlo_module`.

use std::collections::BTreeMap;

use opguard_trace::TraceReader;
use opguard_xplane::{Activity, KnownStat, ReadOptions, XSpaceFile, XSpaceInfo};

use crate::support::rows;

type Key = (String, i64, i64);

fn json_events() -> (BTreeMap<Key, u64>, BTreeMap<Key, (String, String)>) {
    let path = opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz");
    let mut reader = TraceReader::open(&path).unwrap();
    let (mut all, mut xla) = (BTreeMap::new(), BTreeMap::new());
    while let Some(e) = reader.next_event().unwrap() {
        if e.ph().is_none_or(|p| p != "X") {
            continue;
        }
        let key = (
            e.name().unwrap().raw().to_owned(),
            e.ts_ns().unwrap().unwrap(),
            e.dur_ns().unwrap().unwrap(),
        );
        let text = |k: &str| e.arg(k).and_then(|v| v.as_str().map(|s| s.into_owned()));
        if let (Some(op), Some(module)) = (text("hlo_op"), text("hlo_module")) {
            xla.insert(key.clone(), (op, module));
        }
        *all.entry(key).or_default() += 1;
    }
    (all, xla)
}

#[test]
fn the_xspace_has_every_event_of_the_json_written_beside_it() {
    let path = opguard_testdata::producer_trace("jax_tensorboard.xplane.pb");
    let (json, json_xla) = json_events();
    let mut xspace: BTreeMap<Key, u64> = BTreeMap::new();
    for r in rows(&path) {
        *xspace.entry((r.name, r.ts_ns, r.dur_ns)).or_default() += 1;
    }
    assert_eq!(xspace, json);
    assert_eq!(json.values().sum::<u64>(), 72);

    let space = XSpaceFile::open(&path, &ReadOptions::default()).unwrap();
    let host = space.plane(1).unwrap();
    assert_eq!(host.name, "/host:CPU");
    assert!(host.stat("process_id").and_then(|v| v.as_i64()).is_some());
    let info = XSpaceInfo::of(&space).unwrap();
    assert_eq!(info.count(Activity::XlaOp), json_xla.len() as u64);
    assert_eq!(json_xla.len(), 6);

    struct Xla(BTreeMap<Key, (String, String)>);
    impl opguard_xplane::Visitor for Xla {
        fn event(
            &mut self,
            e: &opguard_xplane::EventView<'_>,
        ) -> Result<(), opguard_xplane::Error> {
            if Activity::of(e) == Activity::XlaOp {
                let text = |k| e.text(k).map(|t| t.map(|t| t.into_owned()));
                let key = (e.name().to_owned(), e.ts_ns()?.unwrap(), e.dur_ns()?);
                let op = text(KnownStat::HloOp)?.unwrap();
                let module = text(KnownStat::HloModule)?.unwrap();
                self.0.insert(key, (op, module));
            }
            Ok(())
        }
    }
    let mut xla = Xla(BTreeMap::new());
    space.visit(&mut xla).unwrap();
    assert_eq!(xla.0, json_xla);
}
