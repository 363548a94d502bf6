//! What a capture's guards admit for one size symbol: the values of the
//! symbol's range that every guard written in that symbol alone allows.
//!
//! A pin is decided by this set, never by how a guard is spelt: `Eq(s0, 2)`,
//! `s0 == 2`, `s0 <= 2`, `s0 < 3`, `2 >= s0` and `Ne(s0, 3)` beside `s0 < 4`
//! all admit only 2 over a size symbol's range `[2, ∞)`.

use crate::expr::{Linear, RelOp};

/// The smallest value torch gives a size symbol: its default range is
/// `[2, ∞)` (0 and 1 are specialised before a symbol is made), which is
/// also what makes a guard such as `s0 + 1 > 2` vacuous.
pub(crate) const SIZE_SYMBOL_MIN: i64 = 2;

/// What the guards admit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admitted {
    /// No value of the range: the guards contradict each other or the range.
    Nothing,
    /// Exactly one value: the symbol is specialised to it.
    Only(i64),
    /// More than one value.
    Many,
}

/// The set, and the guards that decide it when it is `Nothing` or `Only`
/// (those setting the final bounds and the `Ne` guards removing values
/// inside them), in guard order.
#[derive(Debug)]
pub(crate) struct Admits {
    pub(crate) admitted: Admitted,
    pub(crate) deciding: Vec<usize>,
}

/// One guard as `a*x + b op 0`, `x` the symbol (every symbol of its set).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Constraint {
    /// The guard's position in the capture's guard list.
    pub(crate) guard: usize,
    pub(crate) op: RelOp,
    pub(crate) a: i128,
    pub(crate) b: i128,
}

impl Constraint {
    /// `lhs op rhs`, both linear in symbols of one set: `(lhs - rhs) op 0`.
    pub(crate) fn of<S>(guard: usize, l: &Linear<S>, op: RelOp, r: &Linear<S>) -> Constraint {
        // i128: sums of i64 coefficients from the input cannot overflow it.
        let sum = |lin: &Linear<S>| lin.terms.iter().map(|t| i128::from(t.1)).sum::<i128>();
        Constraint {
            guard,
            op,
            a: sum(l) - sum(r),
            b: i128::from(l.constant) - i128::from(r.constant),
        }
    }
}

fn floor_div(n: i128, d: i128) -> i128 {
    // d > 0 here.
    n.div_euclid(d)
}

fn ceil_div(n: i128, d: i128) -> i128 {
    -((-n).div_euclid(d))
}

/// The values of `[SIZE_SYMBOL_MIN, ∞)` every constraint admits.
pub(crate) fn admitted(constraints: &[Constraint]) -> Admits {
    let mut lo = (i128::from(SIZE_SYMBOL_MIN), None::<usize>);
    let mut hi: Option<(i128, usize)> = None;
    let mut excluded: Vec<(i128, usize)> = Vec::new();
    let mut contradiction: Option<usize> = None;
    for c in constraints {
        let mut upper = |v: i128| {
            if hi.is_none_or(|(h, _)| v < h) {
                hi = Some((v, c.guard));
            }
        };
        let mut lower = |v: i128| {
            if v > lo.0 {
                lo = (v, Some(c.guard));
            }
        };
        let (a, b) = (c.a, c.b);
        let holds_always = match c.op {
            RelOp::Lt if a > 0 => {
                upper(floor_div(-b - 1, a));
                true
            }
            RelOp::Lt if a < 0 => {
                lower(floor_div(b, -a) + 1);
                true
            }
            RelOp::Lt => b < 0,
            RelOp::Le if a > 0 => {
                upper(floor_div(-b, a));
                true
            }
            RelOp::Le if a < 0 => {
                lower(ceil_div(b, -a));
                true
            }
            RelOp::Le => b <= 0,
            RelOp::Eq if a != 0 => {
                if (-b) % a == 0 {
                    lower(-b / a);
                    upper(-b / a);
                    true
                } else {
                    false
                }
            }
            RelOp::Eq => b == 0,
            RelOp::Ne if a != 0 => {
                if (-b) % a == 0 {
                    excluded.push((-b / a, c.guard));
                }
                true
            }
            RelOp::Ne => b != 0,
        };
        if !holds_always && contradiction.is_none() {
            contradiction = Some(c.guard);
        }
    }
    if let Some(g) = contradiction {
        return Admits {
            admitted: Admitted::Nothing,
            deciding: vec![g],
        };
    }
    let Some((hi, hi_by)) = hi else {
        return Admits {
            admitted: Admitted::Many,
            deciding: Vec::new(),
        };
    };
    let inside: Vec<(i128, usize)> = excluded
        .into_iter()
        .filter(|(v, _)| (lo.0..=hi).contains(v))
        .collect();
    // More values than exclusions plus one: at least two remain.
    let span = hi - lo.0 + 1;
    if span > inside.len() as i128 + 1 {
        return Admits {
            admitted: Admitted::Many,
            deciding: Vec::new(),
        };
    }
    let left: Vec<i128> = (lo.0..=hi)
        .filter(|v| !inside.iter().any(|(x, _)| x == v))
        .collect();
    let admitted = match left.as_slice() {
        [] => Admitted::Nothing,
        [v] => match i64::try_from(*v) {
            Ok(v) => Admitted::Only(v),
            Err(_) => Admitted::Many,
        },
        _ => Admitted::Many,
    };
    let mut deciding: Vec<usize> = lo.1.into_iter().chain([hi_by]).collect();
    deciding.extend(inside.iter().map(|(_, g)| *g));
    deciding.sort_unstable();
    deciding.dedup();
    Admits { admitted, deciding }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(op: RelOp, a: i128, b: i128) -> Constraint {
        Constraint { guard: 0, op, a, b }
    }

    fn only(cs: &[Constraint]) -> Admitted {
        let indexed: Vec<Constraint> = cs
            .iter()
            .enumerate()
            .map(|(i, c)| Constraint { guard: i, ..*c })
            .collect();
        admitted(&indexed).admitted
    }

    #[test]
    fn bounds_at_the_range_minimum_admit_one_value() {
        use RelOp::*;
        // x <= 2, x < 3, 2 >= x (x - 2 <= 0 either way), x == 2
        assert_eq!(only(&[c(Le, 1, -2)]), Admitted::Only(2));
        assert_eq!(only(&[c(Lt, 1, -3)]), Admitted::Only(2));
        assert_eq!(only(&[c(Le, -1, 2)]), Admitted::Many, "x >= 2 is the range");
        assert_eq!(only(&[c(Eq, 1, -8)]), Admitted::Only(8));
        assert_eq!(only(&[c(Eq, 2, -16)]), Admitted::Only(8), "2x == 16");
        assert_eq!(only(&[c(Eq, 2, -15)]), Admitted::Nothing, "2x == 15");
        // x >= 8 and x <= 8
        assert_eq!(only(&[c(Le, -1, 8), c(Le, 1, -8)]), Admitted::Only(8));
        // x < 4 and x != 3
        assert_eq!(only(&[c(Lt, 1, -4), c(Ne, 1, -3)]), Admitted::Only(2));
        assert_eq!(only(&[c(Ne, 1, -3)]), Admitted::Many);
        assert_eq!(only(&[c(Le, 1, -8)]), Admitted::Many);
        assert_eq!(only(&[c(Le, 1, -1)]), Admitted::Nothing, "x <= 1");
        // 2x + 1 > 5, i.e. -2x + 4 < 0: x >= 3, with x <= 3
        assert_eq!(only(&[c(Lt, -2, 4), c(Le, 1, -3)]), Admitted::Only(3));
    }

    #[test]
    fn the_deciding_guards_are_the_final_bounds_and_the_exclusions_inside() {
        use RelOp::*;
        let cs = [
            Constraint {
                guard: 0,
                op: Lt,
                a: 1,
                b: -100,
            }, // x < 100
            Constraint {
                guard: 1,
                op: Le,
                a: 1,
                b: -3,
            }, // x <= 3
            Constraint {
                guard: 2,
                op: Ne,
                a: 1,
                b: -3,
            }, // x != 3
            Constraint {
                guard: 3,
                op: Ne,
                a: 1,
                b: -50,
            }, // x != 50
        ];
        let a = admitted(&cs);
        assert_eq!(a.admitted, Admitted::Only(2));
        assert_eq!(a.deciding, [1, 2]);
    }
}
