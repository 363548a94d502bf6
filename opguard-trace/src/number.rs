//! Reader stage: exact JSON numbers.
//!
//! Trace numbers are kept as their text. Ids beyond `i64` (real traces carry
//! `"Comms Id": 10159970886766084423`) and beyond `u64` stay exact, and
//! microsecond timestamps with a decimal fraction become integer nanoseconds
//! by decimal arithmetic, never through `f64`.

use std::fmt;

/// A JSON number, kept exactly as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Number<'a>(pub(crate) &'a str);

/// Why a number could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NumberError {
    /// The value does not fit the target type.
    #[error("number {text} is out of range for {target}")]
    OutOfRange {
        /// The number as written.
        text: String,
        /// The type it was converted to.
        target: &'static str,
    },
    /// The value is not an integer where one was required.
    #[error("number {text} is not an integer")]
    NotAnInteger {
        /// The number as written.
        text: String,
    },
}

impl<'a> Number<'a> {
    /// The number exactly as written in the trace.
    pub fn as_str(&self) -> &'a str {
        self.0
    }

    /// Whether the text is a JSON integer (no fraction, no exponent).
    pub fn is_integer(&self) -> bool {
        !self.0.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The value as `u64`, if it is an integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer() {
            self.0.parse().ok()
        } else {
            None
        }
    }

    /// The value as `i64`, if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer() {
            self.0.parse().ok()
        } else {
            None
        }
    }

    /// The value as `i128`, if it is an integer in range (covers every
    /// `u64` and `i64` id).
    pub fn as_i128(&self) -> Option<i128> {
        if self.is_integer() {
            self.0.parse().ok()
        } else {
            None
        }
    }

    /// Reads the number as microseconds and returns integer nanoseconds,
    /// exactly. Digits below a nanosecond are rounded half to even, in
    /// decimal.
    pub fn micros_to_nanos(&self) -> Result<i64, NumberError> {
        micros_text_to_nanos(self.0).ok_or_else(|| NumberError::OutOfRange {
            text: self.0.to_owned(),
            target: "i64 nanoseconds",
        })
    }
}

impl fmt::Display for Number<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Most significant digits kept exactly; more only if they are zeros.
const MAX_DIGITS: usize = 36;

/// `text` is a valid JSON number of microseconds.
fn micros_text_to_nanos(text: &str) -> Option<i64> {
    match plain_micros_to_nanos(text.as_bytes()) {
        Some(ns) => Some(ns),
        None => decimal_micros_to_nanos(text),
    }
}

/// The common form of trace times, `[-]digits[.ddd]` with at most three
/// fractional digits and at most 15 integer digits, converted with `i64`
/// arithmetic: nothing rounds and nothing overflows (the largest is
/// `999_999_999_999_999_999` ns). `None` for any other form, which the
/// decimal conversion handles.
#[inline]
fn plain_micros_to_nanos(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    // At most 18 digits and a dot: the value cannot overflow below.
    if digits.len() > 19 {
        return None;
    }
    let mut ns: i64 = 0;
    let mut dot = None;
    for (k, &c) in digits.iter().enumerate() {
        let digit = c.wrapping_sub(b'0');
        if digit < 10 {
            ns = ns * 10 + i64::from(digit);
        } else if c == b'.' && dot.is_none() {
            dot = Some(k);
        } else {
            return None;
        }
    }
    let (whole, fraction) = match dot {
        Some(k) => (k, digits.len() - k - 1),
        None => (digits.len(), 0),
    };
    if whole == 0 || whole > 15 || fraction > 3 || (dot.is_some() && fraction == 0) {
        return None;
    }
    for _ in fraction..3 {
        ns *= 10;
    }
    Some(if negative { -ns } else { ns })
}

/// Any valid JSON number of microseconds, by decimal arithmetic.
fn decimal_micros_to_nanos(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if negative {
        i += 1;
    }
    let mut mantissa: u128 = 0;
    let mut digits = 0usize;
    // Exponent of ten applied to `mantissa`, in nanoseconds.
    let mut exp10: i64 = 3;
    let mut dropped_nonzero = false;
    let mut push = |d: u8, fractional: bool, exp10: &mut i64| {
        if digits == 0 && d == 0 {
            if fractional {
                *exp10 -= 1;
            }
            return;
        }
        if digits < MAX_DIGITS {
            mantissa = mantissa * 10 + d as u128;
            digits += 1;
            if fractional {
                *exp10 -= 1;
            }
        } else {
            // Too many significant digits to hold: an integer digit still
            // scales the value; a fractional one is below any nanosecond
            // that fits an i64.
            if !fractional {
                *exp10 += 1;
            }
            dropped_nonzero |= d != 0;
        }
    };
    while i < b.len() && b[i].is_ascii_digit() {
        push(b[i] - b'0', false, &mut exp10);
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            push(b[i] - b'0', true, &mut exp10);
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        // An exponent too long for i64 saturates: zero times anything, and
        // anything times 10^-huge, is still exactly representable (0).
        let exp_text = text.get(i..)?;
        let exp: i64 = exp_text.parse().unwrap_or(if exp_text.starts_with('-') {
            i64::MIN / 2
        } else {
            i64::MAX / 2
        });
        exp10 = exp10.saturating_add(exp);
    }
    let magnitude: u128 = if exp10 >= 0 {
        if mantissa == 0 {
            0
        } else {
            let scale = 10u128.checked_pow(u32::try_from(exp10).ok()?)?;
            mantissa.checked_mul(scale)?
        }
    } else {
        // Fewer than 39 digits are kept, so beyond 10^38 the value is below
        // half a nanosecond: it rounds to 0.
        let shift = u32::try_from(exp10.unsigned_abs()).unwrap_or(u32::MAX);
        match 10u128.checked_pow(shift) {
            None => 0,
            Some(div) => {
                let q = mantissa / div;
                let r = mantissa % div;
                let half = div / 2;
                let round_up = r > half || (r == half && (dropped_nonzero || q % 2 == 1));
                q + round_up as u128
            }
        }
    };
    let limit = if negative {
        i64::MAX as u128 + 1
    } else {
        i64::MAX as u128
    };
    if magnitude > limit {
        return None;
    }
    Some(if negative {
        (magnitude as i128).wrapping_neg() as i64
    } else {
        magnitude as i64
    })
}

/// Writes integer nanoseconds as JSON microseconds with three decimals, the
/// inverse of [`Number::micros_to_nanos`] for whole nanoseconds.
pub fn nanos_to_micros_text(nanos: i64) -> String {
    let sign = if nanos < 0 { "-" } else { "" };
    let abs = nanos.unsigned_abs();
    let (whole, frac) = (abs / 1000, abs % 1000);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(s: &str) -> Option<i64> {
        micros_text_to_nanos(s)
    }

    #[test]
    fn kineto_timestamps_are_exact() {
        assert_eq!(ns("4203669604595.407"), Some(4_203_669_604_595_407));
        assert_eq!(ns("1694039959123456.789"), Some(1_694_039_959_123_456_789));
        assert_eq!(ns("0"), Some(0));
        assert_eq!(ns("-1.5"), Some(-1500));
        assert_eq!(ns("12"), Some(12_000));
        assert_eq!(ns("1e3"), Some(1_000_000));
        assert_eq!(ns("1.5E-3"), Some(2)); // 1.5 ns rounds half to even
        assert_eq!(ns("0.0025"), Some(2));
        assert_eq!(ns("0.0035"), Some(4));
        assert_eq!(ns("0.00250001"), Some(3));
        assert_eq!(
            ns("0.000000000000000000000000000000000000000000001"),
            Some(0)
        );
    }

    #[test]
    fn exponents_longer_than_i64_saturate() {
        // Fuzz finding 7: zero and tiny values are 0 ns, like 0e400 and
        // 1e-400; a huge exponent on a non-zero value is out of range.
        assert_eq!(ns("0e99999999999999999999"), Some(0));
        assert_eq!(ns("1e-99999999999999999999"), Some(0));
        assert_eq!(ns("0e400"), Some(0));
        assert_eq!(ns("1e-400"), Some(0));
        assert_eq!(ns("1e99999999999999999999"), None);
    }

    #[test]
    fn f64_would_have_rounded_these() {
        // 19 significant digits: more than an f64 mantissa holds.
        let text = "1694039959123456.789";
        let via_f64 = (text.parse::<f64>().unwrap() * 1000.0) as i64;
        assert_ne!(via_f64, 1_694_039_959_123_456_789);
        assert_eq!(ns(text), Some(1_694_039_959_123_456_789));
    }

    #[test]
    fn out_of_range_is_refused() {
        assert_eq!(ns("9223372036854775.807"), Some(i64::MAX));
        assert_eq!(ns("9223372036854775.808"), None);
        assert_eq!(ns("-9223372036854775.808"), Some(i64::MIN));
        assert_eq!(ns("1e400"), None);
        assert_eq!(
            ns("100000000000000000000000000000000000000000000000000000000"),
            None
        );
    }

    #[test]
    fn text_round_trips() {
        for v in [0i64, 1, 999, 1000, 1001, -1, -1000, i64::MAX, i64::MIN] {
            let text = nanos_to_micros_text(v);
            assert_eq!(ns(&text), Some(v), "{text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_plain_form_converts_as_the_decimal_one_does(
            text in "-?[0-9]{0,17}(\\.[0-9]{0,5})?([eE][+-]?[0-9]{1,2})?",
        ) {
            // Not every string here is a valid JSON number (leading zeros,
            // an empty integer part); both conversions see the same text.
            if let Some(fast) = plain_micros_to_nanos(text.as_bytes()) {
                proptest::prop_assert_eq!(Some(fast), decimal_micros_to_nanos(&text), "{}", text);
            }
        }
    }

    #[test]
    fn the_plain_form_takes_the_common_times() {
        assert_eq!(
            plain_micros_to_nanos(b"4203669604595.407"),
            Some(4_203_669_604_595_407)
        );
        assert_eq!(plain_micros_to_nanos(b"-1.5"), Some(-1500));
        assert_eq!(plain_micros_to_nanos(b"12"), Some(12_000));
        assert_eq!(
            plain_micros_to_nanos(b"999999999999999.999"),
            Some(999_999_999_999_999_999)
        );
        for other in ["1e3", "0.0025", "1694039959123456.789", "-", "1.", ""] {
            assert_eq!(plain_micros_to_nanos(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn big_ids_stay_exact() {
        let n = Number("10159970886766084423");
        assert_eq!(n.as_i64(), None);
        assert_eq!(n.as_u64(), Some(10_159_970_886_766_084_423));
        let huge = Number("340282366920938463463374607431768211456");
        assert_eq!(huge.as_u64(), None);
        assert_eq!(huge.as_str(), "340282366920938463463374607431768211456");
    }
}
