//! Admission and errors: what is refused before any trace is read, what is
//! a malformed request, what is an unreadable trace, and the ambiguous
//! kernel name.

use opguard_select::{verdict_from_request_file, Error, ErrorKind, Failure, Seen, Verdict};
use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::json;

use crate::support::*;

/// Two instantiations of one template, as PyTorch names them.
const REDUCE_MEAN: &str = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)";
const REDUCE_SUM: &str = "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)";

fn error_of(c: &Capture, request: &serde_json::Value) -> Error {
    let path = c.request(request);
    match verdict_from_request_file(&path) {
        Ok(v) => panic!("expected an error, got a verdict: {:?}", v.failed),
        Err(e) => e,
    }
}

fn good(c: &Capture) -> serde_json::Value {
    let trace = c.trace(
        "t.json.gz",
        &attention_trace((1, 1), 2, AttentionCall::default()),
    );
    request(
        LAUNCHER,
        PAGED,
        &[(WRAPPER, None), (LAUNCHER, None)],
        vec![process("pid-1", Some(&trace), &[WRAPPER, LAUNCHER])],
    )
}

#[test]
fn a_head_naming_no_device_symbol_is_refused_before_any_trace_is_read() {
    let c = Capture::new();
    // The trace is garbage: were it read, the error would be trace_unreadable.
    std::fs::write(c.path("garbage.json.gz"), b"\x1f\x8b not gzip").unwrap();
    let base = request(
        LAUNCHER,
        PAGED,
        &[(LAUNCHER, None)],
        vec![process("pid-1", Some("garbage.json.gz"), &[LAUNCHER])],
    );
    for (kernel, why) in [
        (json!(null), "no device_kernel"),
        (json!(""), "empty"),
        (json!("   "), "empty"),
        (json!("void"), "shorter than"),
        (json!("aten::mm"), "shorter than"),
        (json!(LAUNCHER), "Python module:attr"),
    ] {
        let mut r = base.clone();
        r["device_kernel"] = kernel.clone();
        let e = error_of(&c, &r);
        assert_eq!(e.code(), "no_device_symbol", "{kernel}: {e}");
        assert!(e.to_string().contains(why), "{kernel}: {e}");
    }
    let mut r = base.clone();
    r.as_object_mut().unwrap().remove("device_kernel");
    assert_eq!(error_of(&c, &r).code(), "no_device_symbol");
    // With a device symbol, the garbage trace is what fails.
    let e = error_of(&c, &base);
    assert_eq!(e.code(), "trace_unreadable");
    assert!(e.trace_code().is_some());
    assert!(e.to_string().contains("garbage.json.gz"), "{e}");
}

#[test]
fn targets_and_specs_must_be_module_attr() {
    let c = Capture::new();
    let r = good(&c);
    for (field, value) in [
        ("target", "the attention wrapper"),
        ("target", "pkg.mod.Runner.run"),
        ("target", "pkg.mod:Runner:run"),
        ("target", "pkg.mod:outer.<locals>.inner"),
    ] {
        let mut bad = r.clone();
        bad[field] = json!(value);
        let e = error_of(&c, &bad);
        assert_eq!(e.code(), "invalid_spec", "{value}");
        assert!(e.to_string().contains("target"), "{e}");
    }
    let mut bad = r.clone();
    bad["candidates"][1]["spec"] = json!("not a spec");
    let e = error_of(&c, &bad);
    assert_eq!(e.code(), "invalid_spec");
    assert!(e.to_string().contains("candidates[1].spec"), "{e}");
    let mut bad = r.clone();
    bad["processes"][0]["installed"][0] = json!("pkg.mod");
    let e = error_of(&c, &bad);
    assert!(e.to_string().contains("processes[0].installed[0]"), "{e}");
    // A dotted class method is a valid spec.
    let mut fine = r.clone();
    fine["candidates"][0]["spec"] = json!("pkg.mod:Runner.run");
    assert!(verdict_from_request_file(c.request(&fine)).is_ok());
}

#[test]
fn malformed_requests_are_errors_with_stable_codes() {
    let c = Capture::new();
    let r = good(&c);
    let mut unknown = r.clone();
    unknown["candidate"] = json!([]);
    assert_eq!(error_of(&c, &unknown).code(), "unknown_field");
    let mut wrong = r.clone();
    wrong["processes"] = json!({"name": "x"});
    assert_eq!(error_of(&c, &wrong).code(), "wrong_type");
    let mut version = r.clone();
    version["protocol_version"] = json!(2);
    assert_eq!(
        error_of(&c, &version).code(),
        "unsupported_protocol_version"
    );
    let mut dup = r.clone();
    dup["candidates"][1]["spec"] = json!(WRAPPER);
    assert_eq!(error_of(&c, &dup).code(), "invalid_value");
    let mut same_marker = r.clone();
    same_marker["candidates"][0]["marker"] = json!(marker(LAUNCHER));
    assert_eq!(error_of(&c, &same_marker).code(), "invalid_value");
    let mut two = r.clone();
    let p = two["processes"][0].clone();
    two["processes"].as_array_mut().unwrap().push(p);
    assert_eq!(error_of(&c, &two).code(), "invalid_value");

    // A key given twice is refused, not resolved.
    let text = serde_json::to_string(&r).unwrap().replacen(
        "\"target\":",
        "\"target\":\"pkg.mod:other\",\"target\":",
        1,
    );
    std::fs::write(c.path("dup.json"), text).unwrap();
    let e = verdict_from_request_file(c.path("dup.json")).unwrap_err();
    assert_eq!(e.code(), "duplicate_key");
    assert!(e.to_string().contains("duplicate"), "{e}");
    // The document reader's error passes through whole: its path and position.
    let ErrorKind::Document { source, .. } = e.kind() else {
        panic!("{e:?} is not the document's error");
    };
    assert_eq!((source.path().as_str(), source.line()), ("target", Some(1)));

    std::fs::write(c.path("broken.json"), b"{\"protocol_version\": 1,").unwrap();
    let e = verdict_from_request_file(c.path("broken.json")).unwrap_err();
    assert_eq!(e.code(), "json_syntax");
    assert!(e.to_string().contains("line 1"), "{e}");

    let e = verdict_from_request_file(c.path("absent.json")).unwrap_err();
    assert_eq!(e.code(), "io");
}

#[test]
fn a_seam_request_is_read_up_to_its_limit_and_one_byte_more_is_refused() {
    // Issue 20: the seam request was read with no size limit at all.
    let c = Capture::new();
    let text = serde_json::to_string(&good(&c)).unwrap();
    let limit = opguard_select::MAX_REQUEST_BYTES as usize;
    // Whitespace after the object pads the file to exactly N, then N + 1 bytes.
    let at = |n: usize| format!("{text}{}", " ".repeat(n - text.len()));
    std::fs::write(c.path("at_limit.json"), at(limit)).unwrap();
    verdict_from_request_file(c.path("at_limit.json")).unwrap();
    std::fs::write(c.path("over_limit.json"), at(limit + 1)).unwrap();
    let e = verdict_from_request_file(c.path("over_limit.json")).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded", "{e}");
    assert!(e.to_string().contains(&limit.to_string()), "{e}");
}

#[test]
fn a_request_error_names_the_json_path() {
    let c = Capture::new();
    let mut r = good(&c);
    r["processes"][0]["refused"] = json!([{"spec": "pkg.jit:kernel", "reason": 5}]);
    let e = error_of(&c, &r);
    assert_eq!(e.code(), "wrong_type");
    assert!(
        e.to_string().contains("processes[0].refused[0].reason"),
        "{e}"
    );
}

#[test]
fn a_request_and_each_entry_in_it_is_an_object_never_fields_by_position() {
    // serde alone would read each of these arrays field by field.
    let c = Capture::new();
    let r = good(&c);
    let as_array = |v: &serde_json::Value, fields: &[&str]| {
        json!(fields.iter().map(|f| v[*f].clone()).collect::<Vec<_>>())
    };
    let mut candidate = r.clone();
    candidate["candidates"][0] =
        as_array(&r["candidates"][0], &["spec", "declared_depth", "marker"]);
    let mut process = r.clone();
    process["processes"][0] = as_array(
        &r["processes"][0],
        &["name", "trace", "meta", "pid", "installed", "refused"],
    );
    let mut refusal = r.clone();
    refusal["processes"][0]["refused"] = json!([["pkg.jit:kernel", "jit_object"]]);
    let whole = as_array(
        &r,
        &[
            "protocol_version",
            "target",
            "device_kernel",
            "capture_target",
            "marker_prefix",
            "candidates",
            "processes",
        ],
    );
    for (what, request) in [
        ("candidate", candidate),
        ("process", process),
        ("refusal", refusal),
        ("request", whole),
    ] {
        let e = error_of(&c, &request);
        assert_eq!(e.code(), "wrong_type", "{what}: {e}");
        assert!(
            e.to_string().contains("found an array, expected struct"),
            "{what}: {e}"
        );
    }
}

#[test]
fn request_level_failures_are_verdicts_not_errors() {
    let c = Capture::new();
    let r = good(&c);
    let mut no_capture = r.clone();
    no_capture["capture_target"] = json!(null);
    let v = c.verdict(&no_capture);
    assert_eq!(v.failed, [Failure::CaptureTargetMissing]);
    assert!(v.deepest_verified, "the trace evidence itself holds");
    let mut none = r.clone();
    none["processes"] = json!([]);
    let v = c.verdict(&none);
    assert_eq!(v.failed, [Failure::NoCaptureProcesses]);
    assert!(!v.deepest_verified);
    assert!(v.best_process.is_none());
}

#[test]
fn a_kernel_named_without_template_arguments_that_meets_several_instantiations_is_ambiguous() {
    let (a, b) = (REDUCE_MEAN, REDUCE_SUM);
    let host = (5, 5);
    let mut t = KinetoTrace::new();
    t.user_annotation(host, &marker(LAUNCHER), 0, 100_000, Some(1));
    t.cpu_op(host, "aten::mean", 1_000, 5_000, Some(2));
    t.launch(host, "cudaLaunchKernel", 2_000, 500, 10, Some(2))
        .kernel(0, 7, a, 200_000, 1_000);
    t.cpu_op(host, "aten::sum", 10_000, 5_000, Some(3));
    t.launch(host, "cudaLaunchKernel", 11_000, 500, 11, Some(3))
        .kernel(0, 7, b, 210_000, 1_000);
    let c = Capture::new();
    let trace = c.trace("t.json.gz", &t);
    let ask = |kernel: &str| {
        c.verdict(&request(
            LAUNCHER,
            kernel,
            &[(LAUNCHER, None)],
            vec![process("pid-5", Some(&trace), &[LAUNCHER])],
        ))
    };
    let v = ask("reduce_kernel");
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeviceKernelAmbiguous]);
    let names = &v.processes[0].matched_kernel_names;
    assert_eq!(names.len(), 2);
    assert!(names.iter().all(|n| n.basis == "base_only" && n.rows == 1));
    // The full symbol names one instantiation.
    let v = ask(a);
    assert!(v.ok, "{:?}", v.failed);
    assert_eq!(v.matched_kernel_calls, 1);
    assert_eq!(v.processes[0].matched_kernel_names[0].basis, "exact");
}

#[test]
fn a_short_name_is_decided_among_the_instantiations_the_target_launched() {
    let (a, b) = (REDUCE_MEAN, REDUCE_SUM);
    let host = (5, 5);
    // `a` runs under the target twice; `b` runs once under it and once on
    // the same thread after the target returned, so only `b`'s second row is
    // outside. A third trace runs `b` only outside.
    let build = |b_under: bool| {
        let mut t = KinetoTrace::new();
        t.user_annotation(host, &marker(LAUNCHER), 0, 100_000, Some(1));
        t.cpu_op(host, "aten::mean", 1_000, 5_000, Some(2));
        t.launch(host, "cudaLaunchKernel", 2_000, 500, 10, Some(2))
            .kernel(0, 7, a, 200_000, 1_000);
        t.launch(host, "cudaLaunchKernel", 3_000, 500, 11, Some(2))
            .kernel(0, 7, a, 202_000, 1_000);
        if b_under {
            t.cpu_op(host, "aten::sum", 10_000, 5_000, Some(3));
            t.launch(host, "cudaLaunchKernel", 11_000, 500, 12, Some(3))
                .kernel(0, 7, b, 210_000, 1_000);
        }
        t.cpu_op(host, "aten::sum", 150_000, 5_000, Some(4));
        t.launch(host, "cudaLaunchKernel", 151_000, 500, 13, Some(4))
            .kernel(0, 7, b, 220_000, 1_000);
        t
    };
    let c = Capture::new();
    let ask = |file: &str, t: &KinetoTrace| {
        let trace = c.trace(file, t);
        c.verdict(&request(
            LAUNCHER,
            "reduce_kernel",
            &[(LAUNCHER, None)],
            vec![process("pid-5", Some(&trace), &[LAUNCHER])],
        ))
    };
    let seen = |v: &Verdict, name: &str| {
        v.processes[0]
            .matched_kernel_names
            .iter()
            .find(|n| n.name == name)
            .map(|n| (n.rows, n.attributed, n.seen))
    };

    let v = ask("elsewhere.json.gz", &build(false));
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert_eq!(v.matched_kernel_calls, 2);
    assert_eq!(seen(&v, a), Some((2, 2, Seen::UnderTarget)));
    assert_eq!(seen(&v, b), Some((1, 0, Seen::OutsideTarget)));
    assert_eq!(
        to_json(&v)["processes"][0]["matched_kernel_names"][1]["seen"],
        "outside_target"
    );

    let v = ask("both.json.gz", &build(true));
    assert_eq!(v.failed, [Failure::DeviceKernelAmbiguous]);
    assert!(!v.deepest_verified);
    assert_eq!(seen(&v, a), Some((2, 2, Seen::UnderTarget)));
    assert_eq!(seen(&v, b), Some((2, 1, Seen::UnderAndOutsideTarget)));
}

#[test]
fn errors_say_what_where_and_what_was_expected() {
    let e = Error::from(ErrorKind::InvalidValue {
        path: "processes[1].name".into(),
        problem: "\"pid-1\" names two processes".into(),
        expected: "one entry per capture process".into(),
    });
    assert_eq!(
        e.to_string(),
        "processes[1].name: \"pid-1\" names two processes; expected one entry per capture process"
    );
    assert_eq!(e.code(), "invalid_value");
    assert_eq!(e.trace_code(), None);
}

/// #30: a request written against seed 001 (`target_callable`, a
/// candidate's `depth`) gets the same verdict as one with this crate's
/// names; the same field under both names is refused.
#[test]
fn the_seeds_field_names_are_read_where_a_request_is() {
    let c = Capture::new();
    let ours = good(&c);
    let mut ours_deep = ours.clone();
    ours_deep["candidates"][0]["declared_depth"] = json!(999);
    let seed_names = |r: &serde_json::Value| {
        let mut r = r.clone();
        let target = r.as_object_mut().unwrap().remove("target").unwrap();
        r["target_callable"] = target;
        for candidate in r["candidates"].as_array_mut().unwrap() {
            let obj = candidate.as_object_mut().unwrap();
            if let Some(depth) = obj.remove("declared_depth") {
                obj.insert("depth".into(), depth);
            }
        }
        r
    };
    for r in [&ours, &ours_deep] {
        let theirs = seed_names(r);
        assert!(theirs.get("target").is_none() && theirs.get("target_callable").is_some());
        let a = verdict_from_request_file(c.request(r)).unwrap();
        let b = verdict_from_request_file(c.request(&theirs)).unwrap();
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap()
        );
    }
    // The depth read as `depth` is the candidate's declared depth.
    let deep = verdict_from_request_file(c.request(&seed_names(&ours_deep))).unwrap();
    let text = serde_json::to_string(&deep).unwrap();
    assert!(text.contains("\"declared_depth\":999"), "{text}");

    // The field under both its names is one field given twice.
    let mut both = seed_names(&ours);
    both["target"] = ours["target"].clone();
    assert_eq!(error_of(&c, &both).code(), "duplicate_key");
}
