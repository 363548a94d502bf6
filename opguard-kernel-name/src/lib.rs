//! One canonical identity for GPU kernel symbols (CUDA, ROCm, Triton,
//! NCCL, cuDNN, Itanium-mangled, memory rows) and a strict matcher.
//!
//! * [`canonicalize`] turns a symbol into a [`Canonical`]: base identifier,
//!   qualification, the kernel's own [`Template`] arguments (complete, elided
//!   or absent), the stripped annotation, the [`MemoryOp`] of a
//!   `Memcpy`/`Memset` row, and the *truncated* and *degenerate* flags.
//! * [`short_name`] is the display name used in profile tables
//!   (at most [`SHORT_NAME_LIMIT`] characters).
//! * [`matches()`] answers whether two symbols name the same kernel, as a
//!   [`Verdict`] carrying a stable [`Reason`] code when they do not and a
//!   [`Basis`] when they do; [`is_match`] is the `bool` form.
//! * [`Canonical::identity`] is a stable semantic identity string to hash.
//! * [`Memo`] is a size-bounded memo for callers that name kernels per event:
//!   a repeated `_Z...` symbol is not demangled again (answers identical to
//!   [`canonicalize`]'s).
//! * [`Field`] names the parts of the JSON answer; [`Canonical::project`]
//!   serializes some of them ([`Field::COMPACT`]: what a per-event caller needs).
//!
//! ```
//! use opguard_kernel_name::{canonicalize, matches, short_name, Reason, TemplateKind};
//!
//! let row = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";
//! let c = canonicalize(row);
//! assert_eq!(c.base(), "clamp_position_kernel");
//! assert_eq!(c.qualification().map(|q| q.to_string()).as_deref(), Some("(anonymous namespace)"));
//! assert_eq!(c.template().kind(), TemplateKind::Complete);
//! assert_eq!(c.identity(), "clamp_position_kernel<long>");
//! assert_eq!(short_name(row), "clamp_position_kernel");
//!
//! // The profile's short name certifies its own kernel ...
//! assert!(matches("clamp_position_kernel", row).is_match);
//! // ... and nothing else: the old `void` collision is impossible.
//! let other = "void (anonymous namespace)::elementwise_kernel_with_index<int>(int)";
//! assert_eq!(matches(row, other).reason, Some(Reason::BaseDiffers));
//! assert_eq!(matches("void", "void").reason, Some(Reason::DegenerateToken));
//!
//! // Device op names keep op, overload and dtype together (one name token).
//! assert_eq!(canonicalize("aten::mul.out-dtype_Float").base(), "mul.out-dtype_Float");
//! assert_eq!(matches("mul-dtype_Float", "add-dtype_Float").reason, Some(Reason::BaseDiffers));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Rules
//!
//! 1. Balanced `<...>`, `(...)` and `[...]` groups are matched with a stack
//!    (a closer only closes the opener of its own type on top; any other
//!    closer is an ordinary character). An opener that never closes cuts
//!    the name there.
//! 2. A parenthesised group followed by `::` is a qualification component,
//!    so `(anonymous namespace)` works anywhere in a qualification.
//! 3. The identity is the last qualified name before the parameter list
//!    (the first `(` group directly after a name or its template group, not
//!    followed by `::`), or the last qualified name when there is none. So a
//!    leading return type (`void`, `std::enable_if<!(false), void>::type`)
//!    is dropped.
//! 4. Pipeline annotations (`main_kernel[prefill]`,
//!    `_fwd_grouped_kernel_stage1 [sliding_attention]`) are stripped and
//!    reported. `Memcpy <dir> (...)` / `Memset (...)` rows keep their kind
//!    and direction; the parenthesis is their annotation.
//! 5. Template arguments are split at top-level commas and compared one by
//!    one in a whitespace-normal form that keeps separators. An argument
//!    ending in `...`, or a template `<` that never closes, makes the list
//!    elided: lists must then agree over the visible prefix (and the cut
//!    argument's visible start). A side without template arguments matches
//!    on the base alone ([`Basis::BaseOnly`]).
//! 6. No substring containment. A base of exactly [`SHORT_NAME_LIMIT`]
//!    characters may be a display-truncated name and matches any base that
//!    extends it; nothing else is a prefix match.
//! 7. A base shorter than [`MIN_TOKEN_LEN`] (or the bare keyword
//!    `operator`) is degenerate and never certifies anything, itself
//!    included.
//! 8. Identifier characters are ASCII `[A-Za-z0-9_]` and every non-ASCII
//!    character (a non-ASCII letter is part of its name: `kernél_abcdef` and
//!    `kernèl_abcdef` are two names, never one shared ASCII tail
//!    `l_abcdef`); any other ASCII character separates, except that outside
//!    groups a single `-` or `.` with an identifier
//!    character on both sides joins two runs into one *name token*: device
//!    op names such as MTIA's `aten::mul.out-dtype_Float` have base
//!    `mul.out-dtype_Float` (qualification `aten`), so `mul-dtype_Float` and
//!    `add-dtype_Float` no longer share the token `dtype_Float`. A last
//!    `-`/`.` at the very end of the text joins too (a display cut). The
//!    bare keyword `operator` takes the C++ operator spelling directly after
//!    it (`operator->`, `operator()`, `operator-`, `operator.`); a base that
//!    is `operator` alone is degenerate, like one shorter than
//!    [`MIN_TOKEN_LEN`].
//! 9. `_Z...` symbols are demangled first (`cpp_demangle`). If that fails
//!    and template arguments directly follow a simply encoded name (recent
//!    Clang/hipcc C++20 non-type template parameters), the name is read and
//!    the rest kept mangled as one template argument compared exactly
//!    ([`Mangling::NameOnly`]: `sgl_hip::activation::act_and_mul_kernel`
//!    with `<mangled:I14__hip_bfloat16...>`); otherwise the trimmed symbol is
//!    its own identity, matched by exact equality only.
//! 10. Total: every string gets an answer, nothing panics.
//!
//! The qualification is compared only when both sides carry one (profile
//! tables drop it); it is not part of [`Canonical::identity`], which the issue
//! defines qualification-free — use [`Canonical::qualified_identity`] where two
//! libraries' copies of one template must stay apart.
//! The language-neutral parity fixture is `fixtures/kernel-name/` in the
//! repository.

// Data flow: symbol text → demangling and the top-level scan → canonical
// form → strict verdict between two forms; answers serialized per field.

// Reader: byte classes and the whitespace normalization every fragment shares.
mod text;
// Reader: the top-level scan of a (demangled, non-memory) kernel name.
mod scan;
// Model: the canonical form of a kernel symbol and its identity.
mod canonical;
// Analysis: the strict matcher between two canonical forms.
mod verdict;
// Analysis: a bounded memo of canonical forms and answers for per-event callers.
mod memo;
// Writer: the fields of a canonical form's JSON answer and projections of them.
mod field;
// The crate's one error type and its codes.
mod error;

pub use canonical::{
    canonicalize, short_name, Args, Canonical, Mangling, MemoryKind, MemoryOp, Template,
    TemplateKind, IDENTITY_SCHEME, MIN_TOKEN_LEN, SHORT_NAME_LIMIT,
};
pub use error::{Error, ErrorKind, ERROR_CODES};
pub use field::{Field, FieldListError, Projection};
pub use memo::{Memo, MemoStats};
pub use text::Fragment;
pub use verdict::{is_match, matches, Basis, Reason, Verdict};

/// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// This crate's version (its Cargo.toml `version`), for tools that report what
/// they were built with (`opguard --version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
