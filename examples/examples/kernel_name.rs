//! The example that opens the `opguard-kernel-name` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example kernel_name`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_kernel_name::{canonicalize, matches, short_name, Reason, TemplateKind};

    let row = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";
    let c = canonicalize(row);
    assert_eq!(c.base(), "clamp_position_kernel");
    assert_eq!(c.qualification().map(|q| q.to_string()).as_deref(), Some("(anonymous namespace)"));
    assert_eq!(c.template().kind(), TemplateKind::Complete);
    assert_eq!(c.identity(), "clamp_position_kernel<long>");
    assert_eq!(short_name(row), "clamp_position_kernel");

    // The profile's short name certifies its own kernel ...
    assert!(matches("clamp_position_kernel", row).is_match);
    // ... and nothing else: the old `void` collision is impossible.
    let other = "void (anonymous namespace)::elementwise_kernel_with_index<int>(int)";
    assert_eq!(matches(row, other).reason, Some(Reason::BaseDiffers));
    assert_eq!(matches("void", "void").reason, Some(Reason::DegenerateToken));

    // Device op names keep op, overload and dtype together (one name token).
    assert_eq!(canonicalize("aten::mul.out-dtype_Float").base(), "mul.out-dtype_Float");
    assert_eq!(matches("mul-dtype_Float", "add-dtype_Float").reason, Some(Reason::BaseDiffers));
    println!("opguard-kernel-name: the documented example ran");
    Ok(())
}
