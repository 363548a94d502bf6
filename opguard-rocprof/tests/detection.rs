//! Detection by content: each rocprofv3 output is told by what it holds,
//! never by its name; other profilers' files are not claimed.

use std::fs;

use opguard_rocprof::{detect, CaptureFormat};

use crate::common::{generate, prefill_kernel_trace};

#[test]
fn each_output_is_detected_by_its_content() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let gz = generate(&kernels, &["--gzip"]);
    let dir = made.dir.path();
    // Names that say nothing.
    let renamed = |src: &std::path::Path, name: &str| {
        let dst = dir.join(name);
        fs::copy(src, &dst).expect("copy");
        dst
    };
    assert_eq!(detect(&renamed(&kernels, "a")), Some(CaptureFormat::Csv));
    assert_eq!(
        detect(&renamed(
            &kernels.with_file_name("prefill_hip_api_trace.csv"),
            "b"
        )),
        Some(CaptureFormat::Csv)
    );
    assert_eq!(detect(kernels.parent().unwrap()), Some(CaptureFormat::Csv));
    assert_eq!(detect(&renamed(&made.json, "c")), Some(CaptureFormat::Json));
    assert_eq!(detect(&renamed(&gz.json, "d")), Some(CaptureFormat::Json));
    assert_eq!(
        detect(&renamed(&made.rocpd, "e")),
        Some(CaptureFormat::Rocpd)
    );
}

#[test]
fn other_profilers_files_are_not_claimed() {
    let Some(data) = opguard_testdata::shared_data() else {
        return;
    };
    for other in [
        "traces/hta/call_stack__backward_thread.json",
        "traces/hta/trace_compare__base__base.json.gz",
        "nsys/nsys-ai_mock.sqlite",
        "nsys/test-cuda_report1.nsys-rep",
        "xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb",
    ] {
        let path = data.join(other);
        assert!(path.exists(), "{other} is in the shared data");
        assert_eq!(detect(&path), None, "{other}");
    }
    assert_eq!(detect(&data.join("traces")), None);
}

#[test]
fn the_error_codes_follow_the_convention() {
    opguard_document::check_error_codes(opguard_rocprof::ERROR_CODES).expect("codes");
}
