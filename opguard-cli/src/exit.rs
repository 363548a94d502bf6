//! Exit statuses. They are part of the command's contract (README.md).

/// Success; for a question (`kernel-name match`), the answer is yes.
pub const OK: u8 = 0;
/// A negative verdict: the command ran and the answer is no (no match).
pub const NEGATIVE: u8 = 1;
/// Bad input or a failure while running; the error is on stderr.
pub const ERROR: u8 = 2;
/// The command line itself is wrong (`EX_USAGE` of sysexits.h).
pub const USAGE: u8 = 64;
