//! XSpace through the door: detected by content whatever the name, read
//! into the same model as opguard-xplane reads it, its facts and its
//! errors passed through with their codes.

use opguard_formats::{detect, info, read, recognize, Detected, ErrorKind, Info, ReadOptions};
use opguard_model::{ArtifactSpec, Format, ModelOptions, Provider};

fn jax_run() -> std::path::PathBuf {
    opguard_testdata::producer_trace("jax_tensorboard.xplane.pb")
}

#[test]
fn an_xspace_is_detected_by_content_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let json_named = dir.path().join("trace.json.gz");
    std::fs::copy(jax_run(), &json_named).unwrap();
    assert_eq!(detect(&json_named).unwrap(), Detected::Xspace);
    assert_eq!(recognize(&json_named).unwrap(), Some(Detected::Xspace));
    if let Some(shared) =
        opguard_testdata::shared_file("xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb")
    {
        assert_eq!(detect(&shared).unwrap(), Detected::Xspace);
    }
    // JSON that starts with a newline (the byte of XSpace's `planes` key)
    // stays JSON; so does JSON named like an XSpace.
    let xplane_named = dir.path().join("host.xplane.pb");
    std::fs::write(&xplane_named, b"\n{\"traceEvents\":[]}\n").unwrap();
    assert_eq!(detect(&xplane_named).unwrap(), Detected::ChromeJson);
    assert_eq!(
        recognize(&xplane_named).unwrap(),
        Some(Detected::ChromeJson)
    );
}

#[test]
fn the_door_reads_what_the_xspace_reader_reads() {
    let options = ReadOptions::new(ModelOptions::new());
    let model = read(jax_run(), ArtifactSpec::new().stage("step"), &options).unwrap();
    let direct = opguard_xplane::read_model(
        jax_run(),
        ArtifactSpec::new().stage("step"),
        &ModelOptions::new(),
        &opguard_xplane::ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(model.artifact(), direct.artifact());
    assert_eq!(model.artifact().format, Format::Xspace);
    assert_eq!(model.artifact().provider, Provider::Xla);
    assert_eq!(model.slices(), direct.slices());
    assert_eq!(model.slices().len(), 72);
}

#[test]
fn trace_info_of_an_xspace_names_its_planes_and_lines() {
    let facts = info(jax_run(), &ReadOptions::default()).unwrap();
    assert_eq!(facts.format(), Format::Xspace);
    assert_eq!(facts.provider(), Provider::Xla);
    let Info::Xspace(x) = &facts else {
        panic!("{facts:?}")
    };
    assert_eq!(x.producer.as_deref(), Some("jax 0.10.2"));
    let json = serde_json::to_value(&facts).unwrap();
    assert_eq!(json["format"], "xspace");
    assert_eq!(json["provider"], "xla");
    let host = &json["planes"][1];
    assert_eq!(host["name"], "/host:CPU");
    assert_eq!(host["kind"], "host");
    assert_eq!(host["lines"][0]["name"], "python");
    assert_eq!(host["lines"][0]["kind"], "host_thread");
    assert_eq!(host["activities"]["xla_op"], 6);
    assert_eq!(json["events"], 72);
}

#[test]
fn cut_and_foreign_protobufs_keep_the_xspace_readers_code() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(jax_run()).unwrap();
    let cut = dir.path().join("cut.xplane.pb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(detect(&cut).unwrap(), Detected::Xspace);
    assert_eq!(recognize(&cut).unwrap(), Some(Detected::Xspace));
    let err = read(&cut, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "protobuf_truncated");
    assert!(matches!(err.kind(), ErrorKind::Xplane(_)), "{err:?}");
    assert_eq!(err.file(), Some(cut.as_path()));
    assert!(err.to_string().contains("the file was cut"), "{err}");

    // An HloProto (what /host:metadata's events carry): a protobuf whose
    // first message starts with a string where XPlane has its id.
    let hlo = dir.path().join("module.pb");
    std::fs::write(&hlo, b"\x0a\x05\x0a\x03jit").unwrap();
    assert_eq!(recognize(&hlo).unwrap(), None);
    let err = read(&hlo, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "not_xspace");
    let err = info(&hlo, &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "not_xspace");
}

#[test]
fn the_readers_limits_hold_for_an_xspace() {
    let size = std::fs::metadata(jax_run()).unwrap().len();
    let reader = opguard_trace::ReaderOptions::new().max_encoded_bytes(size - 1);
    let options = ReadOptions::new(ModelOptions::new()).reader(reader);
    let err = read(jax_run(), ArtifactSpec::new(), &options).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    let reader = opguard_trace::ReaderOptions::new().max_encoded_bytes(size);
    let options = ReadOptions::new(ModelOptions::new()).reader(reader);
    assert!(read(jax_run(), ArtifactSpec::new(), &options).is_ok());
}

#[test]
fn a_directory_s_captures_are_recognized_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.json");
    std::fs::write(&log, "step 1 loss 2.3\n").unwrap();
    assert_eq!(recognize(&log).unwrap(), None);
    let gz = dir.path().join("rank0");
    std::fs::copy(
        opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz"),
        &gz,
    )
    .unwrap();
    assert_eq!(recognize(&gz).unwrap(), Some(Detected::ChromeJson));
    let bom = dir.path().join("bom");
    std::fs::write(&bom, b"\xef\xbb\xbf [1]").unwrap();
    assert_eq!(recognize(&bom).unwrap(), Some(Detected::ChromeJson));
}
