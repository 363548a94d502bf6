//! Cut, corrupt and foreign files are refused with a code, a byte offset
//! and a message path; limits hold at N and refuse N + 1.

use std::io::Write;

use opguard_xplane::proto::{x_event, x_stat, XEvent, XLine, XPlane, XSpace, XStat, XStatMetadata};
use opguard_xplane::{
    probe, Error, ErrorKind, EventView, KnownStat, Limit, ReadOptions, StatValue, Visitor,
    XSpaceFile, XSpaceInfo,
};
use prost::Message;

use crate::support::{shared_profile, top_level_fields};

fn read(bytes: Vec<u8>) -> Result<XSpaceInfo, Error> {
    XSpaceFile::from_vec(bytes, &ReadOptions::default()).and_then(|s| XSpaceInfo::of(&s))
}

/// A cut anywhere inside a plane is refused as truncated, at the byte
/// where the cut plane starts; a cut between two planes leaves a shorter
/// XSpace (protobuf has no end marker), which reads as one.
#[test]
fn a_cut_file_is_refused_where_the_cut_message_starts() {
    let Some(path) = shared_profile() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let fields = top_level_fields(&bytes);
    assert_eq!(fields.last().unwrap().1, bytes.len());
    let mut cuts = 0;
    for &(start, end) in &fields {
        for cut in [start + 1, (start + end) / 2, end - 1] {
            let e = read(bytes[..cut].to_vec()).unwrap_err();
            assert_eq!(e.code(), "protobuf_truncated", "cut at {cut}: {e}");
            assert_eq!(e.offset(), Some(start as u64), "cut at {cut}: {e}");
            let ErrorKind::Truncated { available, .. } = e.kind() else {
                unreachable!()
            };
            assert_eq!(*available, (cut - start) as u64);
            assert!(e.to_string().contains("the file was cut"), "{e}");
            cuts += 1;
        }
        // Cut at the plane's end: the planes before it, read whole.
        let shorter = read(bytes[..end].to_vec()).unwrap();
        assert!(shorter.planes.len() <= fields.len());
    }
    assert_eq!(cuts, 3 * fields.len());
    let cut = bytes.len() * 2 / 3;
    assert!(
        probe(&bytes[..cut.min(4096)], cut as u64).is_ok(),
        "a cut XSpace still probes as one"
    );
}

/// What happened to a TPU profile committed to xprof's repository: the
/// file went through a text round trip, every byte that is not UTF-8
/// became U+FFFD. The first plane's length then claims more than the file.
#[test]
fn a_text_round_tripped_file_is_refused() {
    let Some(path) = shared_profile() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let mangled = String::from_utf8_lossy(&bytes).into_owned().into_bytes();
    let e = read(mangled).unwrap_err();
    assert_eq!(e.code(), "protobuf_truncated", "{e}");
    assert_eq!(e.offset(), Some(0));
}

/// An event's key turned into wire type 3 (a group): refused as corrupt, at
/// that byte, in that line.
#[test]
fn a_broken_field_inside_a_line_is_refused_at_its_byte() {
    let Some(path) = shared_profile() else { return };
    let bytes = std::fs::read(&path).unwrap();
    struct Find(Option<(usize, String)>);
    impl Visitor for Find {
        fn event(&mut self, e: &EventView<'_>) -> Result<(), Error> {
            if self.0.is_none() && e.ordinal() == 3 && e.plane().name == "/device:GPU:2" {
                let p = format!("planes[{}].lines[{}]", e.plane().index, e.line().index);
                self.0 = Some((e.offset(), p));
            }
            Ok(())
        }
    }
    let mut find = Find(None);
    let space = XSpaceFile::from_vec(bytes.clone(), &ReadOptions::default()).unwrap();
    space.visit(&mut find).unwrap();
    let (at, line) = find.0.unwrap();
    assert_eq!(bytes[at], 0x22, "XLine.events, length-delimited");
    let mut broken = bytes;
    broken[at] = 0x23;
    let e = read(broken).unwrap_err();
    assert_eq!(e.code(), "protobuf_corrupt", "{e}");
    assert_eq!(e.offset(), Some(at as u64));
    assert_eq!(e.message_path(), Some(line.as_str()));
    assert!(e.to_string().contains("wire type 3"), "{e}");
}

/// A real protobuf of another type: the HloProto XLA serialized into the
/// shared profile's `/host:metadata` plane. Refused by the probe and by the
/// reader, as not an XSpace.
#[test]
fn an_hlo_module_protobuf_is_not_an_xspace() {
    let Some(path) = shared_profile() else { return };
    let space = XSpaceFile::open(&path, &ReadOptions::default()).unwrap();
    let metadata = space.plane(0).unwrap();
    assert_eq!(metadata.name, "/host:metadata");
    let hlo = metadata
        .event_metadata()
        .values()
        .flat_map(|m| &m.stats)
        .find_map(|s| match &s.value {
            Some(x_stat::Value::BytesValue(b)) => Some(b.to_vec()),
            _ => None,
        })
        .expect("an HLO proto");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("module.hlo_proto.pb");
    std::fs::write(&file, &hlo).unwrap();
    let reason = probe(&hlo[..hlo.len().min(4096)], hlo.len() as u64).unwrap_err();
    assert!(reason.contains("XPlane.id is a varint"), "{reason}");
    let e = XSpaceFile::open(&file, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.code(), "not_xspace", "{e}");
    assert_eq!(e.file(), Some(file.as_path()));
    assert!(e.to_string().contains("not an XSpace"), "{e}");
}

#[test]
fn json_gzip_and_empty_files_are_not_protobuf() {
    let json = opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz");
    let e = XSpaceFile::open(&json, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.code(), "not_protobuf");
    assert!(e.to_string().contains("gzip"), "{e}");
    let plain = opguard_testdata::decoded(&json);
    let e = read(plain).unwrap_err();
    assert!(e.to_string().contains("JSON"), "{e}");
    assert_eq!(read(Vec::new()).unwrap_err().code(), "empty_input");
}

#[test]
fn the_file_size_limits_hold_at_n_and_refuse_n_plus_1() {
    let Some(path) = shared_profile() else { return };
    let n = std::fs::metadata(&path).unwrap().len();
    for (options, which) in [
        (
            ReadOptions::default().max_encoded_bytes(n - 1),
            Limit::EncodedBytes,
        ),
        (
            ReadOptions::default().max_decoded_bytes(n - 1),
            Limit::DecodedBytes,
        ),
    ] {
        let e = XSpaceFile::open(&path, &options).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::LimitExceeded { which: w, limit } if *w == which && *limit == n - 1),
            "{e}"
        );
    }
    let exact = ReadOptions::default()
        .max_encoded_bytes(n)
        .max_decoded_bytes(n);
    assert!(XSpaceFile::open(&path, &exact).is_ok());
}

/// A gzip-compressed string stat inflates within the decoded limit, and is
/// refused one byte short of it.
#[test]
fn compressed_stats_count_against_the_decoded_limit() {
    let text = "fusion.42".repeat(100);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(text.as_bytes()).unwrap();
    let compressed = gz.finish().unwrap();
    let plane = XPlane {
        name: "/host:CPU".into(),
        lines: vec![XLine {
            name: "python".into(),
            events: vec![XEvent {
                data: Some(x_event::Data::OffsetPs(0)),
                stats: vec![XStat {
                    metadata_id: 1,
                    value: Some(x_stat::Value::CompressedStrValue(compressed.into())),
                }],
                ..Default::default()
            }],
            ..Default::default()
        }],
        stat_metadata: [(
            1,
            XStatMetadata {
                id: 1,
                name: "hlo_op".into(),
                ..Default::default()
            },
        )]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    let bytes = XSpace {
        planes: vec![plane],
        ..Default::default()
    }
    .encode_to_vec();
    struct Inflate(Option<String>);
    impl Visitor for Inflate {
        fn event(&mut self, e: &EventView<'_>) -> Result<(), Error> {
            assert!(matches!(
                e.stat(KnownStat::HloOp),
                Some(StatValue::Compressed(_))
            ));
            self.0 = e.text(KnownStat::HloOp)?.map(|t| t.into_owned());
            Ok(())
        }
    }
    let limit = (bytes.len() + text.len()) as u64;
    let space = XSpaceFile::from_vec(
        bytes.clone(),
        &ReadOptions::default().max_decoded_bytes(limit),
    )
    .unwrap();
    let mut inflate = Inflate(None);
    space.visit(&mut inflate).unwrap();
    assert_eq!(inflate.0.as_deref(), Some(text.as_str()));
    assert_eq!(space.decoded_bytes(), limit);
    let space =
        XSpaceFile::from_vec(bytes, &ReadOptions::default().max_decoded_bytes(limit - 1)).unwrap();
    let e = space.visit(&mut Inflate(None)).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                which: Limit::DecodedBytes,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.message_path(), Some("planes[0].lines[0].events[0]"));
}
