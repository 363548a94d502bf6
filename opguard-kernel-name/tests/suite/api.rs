//! The public API surface: JSON shape, codes, strict identity, errors.

use opguard_kernel_name::{
    canonicalize, is_match, matches, short_name, Basis, ErrorKind, Mangling, MemoryKind, Reason,
    TemplateKind,
};
use serde_json::json;

#[test]
fn canonical_json_has_the_documented_shape() {
    let c = canonicalize("void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, unsigned int>(int) [prefill]");
    let v = serde_json::to_value(&c).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    for key in [
        "symbol",
        "base",
        "qualification",
        "short_name",
        "template",
        "annotation",
        "truncated",
        "degenerate",
        "memory_op",
        "mangling",
        "demangled",
        "identity",
        "identity_scheme",
    ] {
        assert!(keys.contains(&key), "missing {key} in {keys:?}");
    }
    assert_eq!(v["base"], "fused_dropout_kernel_vec");
    assert_eq!(v["qualification"], "at::native::(anonymous namespace)");
    assert_eq!(
        v["template"],
        json!({"kind": "complete", "args": ["float", "unsigned int"], "partial": null})
    );
    assert_eq!(v["annotation"], "prefill");
    assert_eq!(v["memory_op"], json!(null));

    let m = serde_json::to_value(canonicalize("Memcpy HtoD (Host -> Device)")).unwrap();
    assert_eq!(
        m["memory_op"],
        json!({"kind": "memcpy", "direction": "HtoD"})
    );
    assert_eq!(m["template"]["kind"], "none");
    assert_eq!(m["identity"], "memory:memcpy:HtoD");
}

#[test]
fn verdict_json_carries_stable_codes() {
    let v = serde_json::to_value(matches("_fwd_kernel", "_fwd_kernel_stage2")).unwrap();
    assert_eq!(
        v,
        json!({"is_match": false, "reason": "base_differs", "basis": null})
    );
    let v = serde_json::to_value(matches("main_kernel", "main_kernel[prefill]")).unwrap();
    assert_eq!(
        v,
        json!({"is_match": true, "reason": null, "basis": "exact"})
    );
    for reason in [
        Reason::MemoryOpDiffers,
        Reason::OpaqueSymbolDiffers,
        Reason::DegenerateToken,
        Reason::BaseDiffers,
        Reason::QualificationDiffers,
        Reason::TemplateArgsDiffer,
    ] {
        assert_eq!(serde_json::to_value(reason).unwrap(), json!(reason.code()));
    }
    for basis in [
        Basis::Exact,
        Basis::BaseOnly,
        Basis::ElidedPrefix,
        Basis::DisplayTruncation,
        Basis::MemoryOp,
        Basis::OpaqueSymbol,
    ] {
        assert_eq!(serde_json::to_value(basis).unwrap(), json!(basis.code()));
    }
    assert!(is_match(
        "clamp_position_kernel",
        "void (anonymous namespace)::clamp_position_kernel<long>(...)"
    ));
    assert!(!is_match("void", "void"));
}

#[test]
fn strict_identity_refuses_partial_identities() {
    let full = canonicalize("void wvSplitK_hf_<128, 4, 64>(int)");
    assert_eq!(full.strict_identity().unwrap(), "wvSplitK_hf_<128, 4, 64>");

    let elided = canonicalize("void wvSplitK_hf_<128, 4, ...>(int)")
        .strict_identity()
        .unwrap_err();
    assert_eq!(elided.kind(), &ErrorKind::ElidedTemplate);
    assert_eq!(elided.code(), "elided_template");
    assert!(elided.to_string().contains("elided"), "{elided}");

    let degenerate = canonicalize("void").strict_identity().unwrap_err();
    assert_eq!(degenerate.code(), "degenerate");
    assert_eq!(degenerate.symbol(), "void");
    assert!(
        degenerate.to_string().contains("at least 6"),
        "{degenerate}"
    );

    let truncated = canonicalize("split_embedding_backward_codegen_rowwise_adagrad_weighted_fi");
    assert!(truncated.is_truncated());
    let truncated = truncated.strict_identity().unwrap_err();
    assert_eq!(truncated.code(), "display_truncated");
    // The three kinds reach exactly the published list, in its order.
    let reached = [degenerate.code(), elided.code(), truncated.code()];
    let listed: Vec<&str> = opguard_kernel_name::ERROR_CODES
        .iter()
        .map(|(code, _)| *code)
        .collect();
    assert_eq!(reached.as_slice(), listed.as_slice());
}

#[test]
fn identities_separate_what_the_matcher_separates() {
    let a = canonicalize("void wvSplitK_hf_<128, 4, 64>(int)").identity();
    let b = canonicalize("void wvSplitK_hf_<128, 48, 64>(int)").identity();
    let c = canonicalize("void wvSplitK_hf_<1284, 64>(int)").identity();
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert_eq!(a, canonicalize("wvSplitK_hf_< 128 ,4,64 >").identity());
    let infer = canonicalize("void cask_cudnn_infer::computeOffsetsKernel<false, false>(int)");
    let train = canonicalize("void cask_cudnn::computeOffsetsKernel<false, false>(int)");
    assert_eq!(
        infer.identity(),
        train.identity(),
        "identity is qualification-free by contract"
    );
    assert_ne!(infer.qualified_identity(), train.qualified_identity());
    assert_eq!(
        train.qualified_identity(),
        "cask_cudnn::computeOffsetsKernel<false, false>"
    );
}

#[test]
fn accessors_and_owned_forms() {
    let symbol = String::from("_ZN6caffe28kernel_xIfEEvPT_i");
    let owned = canonicalize(&symbol).into_owned();
    drop(symbol);
    assert_eq!(owned.mangling(), Mangling::Demangled);
    assert_eq!(
        owned.demangled(),
        Some("void caffe2::kernel_x<float>(float*, int)")
    );
    assert_eq!(owned.base(), "kernel_x");
    assert_eq!(owned.template().args_normalized(), vec!["float".to_owned()]);
    assert_eq!(owned.symbol(), "_ZN6caffe28kernel_xIfEEvPT_i");

    let set = canonicalize("Memset (Device)");
    let op = set.memory_op().unwrap();
    assert_eq!(
        (op.kind, op.direction.as_deref()),
        (MemoryKind::Memset, None)
    );
    assert_eq!(set.annotation().as_deref(), Some("Device"));

    let cut = canonicalize("void foo_kernel_t<int, flo");
    assert_eq!(cut.template().kind(), TemplateKind::Elided);
    assert_eq!(
        cut.template().partial().map(|p| p.to_string()).as_deref(),
        Some("flo")
    );
    assert_eq!(
        short_name("  Memcpy   DtoD  (Device -> Device) "),
        "Memcpy DtoD (Device -> Device)"
    );
}

#[test]
fn deep_nesting_and_pathological_inputs() {
    let deep = format!(
        "void k_kernel<{}int{}>(int)",
        "A<".repeat(200),
        ">".repeat(200)
    );
    let c = canonicalize(&deep);
    assert_eq!(c.base(), "k_kernel");
    assert_eq!(c.template().kind(), TemplateKind::Complete);
    assert_eq!(c.template().len(), 1);
    assert!(is_match(&deep, &deep));

    let unclosed = format!("void k_kernel<int, {}", "B<".repeat(100_000));
    let c = canonicalize(&unclosed);
    assert_eq!(c.template().kind(), TemplateKind::Elided);
    assert_eq!(c.template().args_normalized(), vec!["int".to_owned()]);

    for junk in [
        "(".repeat(1 << 20),
        ")>]".repeat(1 << 18),
        "::".repeat(1 << 18),
        "a<b(".repeat(1 << 16),
    ] {
        let c = canonicalize(&junk);
        let _ = (
            c.identity(),
            serde_json::to_string(&c).unwrap(),
            matches(&junk, &junk),
        );
    }
}
