//! Grows a real XSpace to a target size for the XSpace benchmark
//! (benches/peers/xspace_readers.py): every line's events are repeated,
//! each copy later in time than the last, and every `correlation_id`
//! shifted by the same amount per copy on the host and on the device, so
//! each launch still has exactly one device partner. Planes, lines,
//! metadata and every other stat are the seed's.
//!
//! Usage: xspace_grow SEED.xplane.pb OUT.xplane.pb TARGET_BYTES
//!
//! Fields are written in the order XLA writes them (a plane's lines before
//! its metadata), one plane at a time.

use std::io::Write;

use opguard_xplane::proto::{x_event, x_stat, XEvent, XPlane, XSpace};
use prost::Message;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, seed, out, target] = &args[..] else {
        eprintln!("usage: xspace_grow SEED.xplane.pb OUT.xplane.pb TARGET_BYTES");
        std::process::exit(64);
    };
    let target: usize = target.parse().expect("TARGET_BYTES is a number");
    let bytes = std::fs::read(seed).expect("the seed is readable");
    let space = XSpace::decode(&bytes[..]).expect("the seed is an XSpace");

    let event_bytes: usize = space
        .planes
        .iter()
        .flat_map(|p| &p.lines)
        .flat_map(|l| &l.events)
        .map(|e| prost::encoding::message::encoded_len(4, e))
        .sum();
    let copies = target
        .saturating_sub(bytes.len())
        .div_ceil(event_bytes.max(1))
        + 1;
    let max_correlation = space
        .planes
        .iter()
        .flat_map(|p| {
            let ids: Vec<i64> = p
                .stat_metadata
                .iter()
                .filter(|(_, m)| m.name == "correlation_id")
                .map(|(id, _)| *id)
                .collect();
            p.lines
                .iter()
                .flat_map(|l| &l.events)
                .flat_map(|e| &e.stats)
                .filter(move |s| ids.contains(&s.metadata_id))
                .filter_map(|s| match s.value {
                    Some(x_stat::Value::Uint64Value(v)) => Some(v),
                    Some(x_stat::Value::Int64Value(v)) => Some(v as u64),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0);

    let mut file = std::io::BufWriter::new(std::fs::File::create(out).expect("OUT is writable"));
    let mut written = 0usize;
    for plane in &space.planes {
        let encoded = grow_plane(plane, copies, max_correlation + 1);
        let mut head = Vec::new();
        prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut head);
        prost::encoding::encode_varint(encoded.len() as u64, &mut head);
        file.write_all(&head).unwrap();
        file.write_all(&encoded).unwrap();
        written += head.len() + encoded.len();
    }
    let rest = XSpace {
        planes: Vec::new(),
        ..space.clone()
    }
    .encode_to_vec();
    file.write_all(&rest).unwrap();
    file.flush().unwrap();
    written += rest.len();
    eprintln!("{out}: {written} bytes, {copies} copies of every event of {seed}");
}

fn grow_plane(plane: &XPlane, copies: usize, correlation_step: u64) -> Vec<u8> {
    let correlation_ids: Vec<i64> = plane
        .stat_metadata
        .iter()
        .filter(|(_, m)| m.name == "correlation_id")
        .map(|(id, _)| *id)
        .collect();
    let mut out = XPlane {
        id: plane.id,
        name: plane.name.clone(),
        ..Default::default()
    }
    .encode_to_vec();
    for line in &plane.lines {
        let start = line.events.iter().filter_map(offset).min().unwrap_or(0);
        let end = line
            .events
            .iter()
            .filter_map(|e| Some(offset(e)? + e.duration_ps.max(0)))
            .max()
            .unwrap_or(0);
        // One microsecond between copies.
        let period = end - start + 1_000_000;
        let mut body = opguard_xplane::proto::XLine {
            events: Vec::new(),
            ..line.clone()
        }
        .encode_to_vec();
        for k in 0..copies {
            for event in &line.events {
                let mut e = event.clone();
                if let Some(x_event::Data::OffsetPs(o)) = e.data {
                    e.data = Some(x_event::Data::OffsetPs(o + k as i64 * period));
                }
                for s in &mut e.stats {
                    if !correlation_ids.contains(&s.metadata_id) {
                        continue;
                    }
                    let shift = k as u64 * correlation_step;
                    s.value = match s.value.take() {
                        Some(x_stat::Value::Uint64Value(v)) => {
                            Some(x_stat::Value::Uint64Value(v + shift))
                        }
                        Some(x_stat::Value::Int64Value(v)) => {
                            Some(x_stat::Value::Int64Value(v + shift as i64))
                        }
                        other => other,
                    };
                }
                prost::encoding::message::encode(4, &e, &mut body);
            }
        }
        prost::encoding::encode_key(3, prost::encoding::WireType::LengthDelimited, &mut out);
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.extend_from_slice(&body);
    }
    XPlane {
        event_metadata: plane.event_metadata.clone(),
        stat_metadata: plane.stat_metadata.clone(),
        stats: plane.stats.clone(),
        ..Default::default()
    }
    .encode(&mut out)
    .expect("a Vec grows");
    out
}

fn offset(e: &XEvent) -> Option<i64> {
    match e.data {
        Some(x_event::Data::OffsetPs(o)) => Some(o),
        _ => None,
    }
}
