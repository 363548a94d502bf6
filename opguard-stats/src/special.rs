//! Special functions the tests' distributions need: `ln Γ`, the regularized
//! incomplete beta and gamma functions, Student's t and the standard normal
//! distribution.
//!
//! Each is held to scipy's value in `tests/scipy.rs` (relative error below
//! 1e-12 for the beta and t functions, 1e-13 for the normal tail).

/// `P(|T| >= |t|)` for Student's t with `dof` degrees of freedom:
/// `I_{dof/(dof+t²)}(dof/2, 1/2)`.
pub fn student_t_two_sided_p(t: f64, dof: f64) -> f64 {
    if t.is_nan() || dof.is_nan() || dof <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let x = dof / (dof + t * t);
    regularized_incomplete_beta(dof / 2.0, 0.5, x)
}

/// The regularized incomplete beta function `I_x(a, b)` for `a, b > 0` and
/// `x` in `[0, 1]` (NaN outside), by its continued fraction (modified Lentz),
/// evaluated on the side where it converges fast.
pub fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (-x).ln_1p();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const EPS: f64 = 1e-16;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away_from_zero(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // Even and odd terms of the fraction, each one modified-Lentz step.
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let step = lentz_step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= step;
        if (step - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// Keeps a Lentz denominator off zero.
fn away_from_zero(v: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if v.abs() < TINY {
        TINY
    } else {
        v
    }
}

/// One modified-Lentz update with coefficient `aa`; returns the factor the
/// convergent is multiplied by.
fn lentz_step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
    *d = 1.0 / away_from_zero(1.0 + aa * *d);
    *c = away_from_zero(1.0 + aa / *c);
    *d * *c
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms; reflection below 0.5).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Γ(x)Γ(1-x) = π / sin(πx)
        let s = (std::f64::consts::PI * x).sin();
        return (std::f64::consts::PI / s.abs()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularized upper incomplete gamma function `Q(a, x) = Γ(a, x) /
/// Γ(a)` for `a > 0`, `x >= 0` (NaN outside): its series below `x = a + 1`,
/// its continued fraction (modified Lentz) above, where each converges fast.
pub fn regularized_gamma_q(a: f64, x: f64) -> f64 {
    if !(a > 0.0 && x >= 0.0) {
        return f64::NAN;
    }
    if x == 0.0 {
        return 1.0;
    }
    if x.is_infinite() {
        return 0.0;
    }
    let ln_front = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        // P(a, x) = e^{-x} x^a / Γ(a + 1) · Σ x^n / ((a + 1)…(a + n))
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * ln_front.exp()
    } else {
        // Q(a, x) = e^{-x} x^a / Γ(a) · 1/(x + 1 - a - 1·(1 - a)/(x + 3 - a - …))
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / 1e-300;
        let mut d = 1.0 / away_from_zero(b);
        let mut h = d;
        for i in 1..=10_000 {
            let i = f64::from(i);
            let an = -i * (i - a);
            b += 2.0;
            d = 1.0 / away_from_zero(an * d + b);
            c = away_from_zero(b + an / c);
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        ln_front.exp() * h
    }
}

/// `P(Z >= z)` for a standard normal `Z` (`scipy.stats.norm.sf`), accurate
/// in the far tail: `Q(1/2, z²/2) / 2` for `z >= 0`.
pub fn normal_sf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    let tail = 0.5 * regularized_gamma_q(0.5, 0.5 * z * z);
    if z >= 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// The `p` quantile of the standard normal distribution
/// (`scipy.stats.norm.ppf`) for `p` in `(0, 1)`; `±inf` at 0 and 1, NaN
/// outside. Acklam's rational approximation, refined by one Halley step on
/// [`normal_sf`].
pub fn normal_quantile(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.02425;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // One Halley step: e is the error in probability at x.
    let e = normal_sf(-x) - p;
    let u = e * (2.0 * std::f64::consts::PI).sqrt() * (0.5 * x * x).exp();
    x - u / (1.0 + 0.5 * x * u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_matches_factorials() {
        for (n, fact) in [(1.0, 1.0_f64), (2.0, 1.0), (5.0, 24.0), (11.0, 3_628_800.0)] {
            assert!((ln_gamma(n) - fact.ln()).abs() < 1e-12, "Γ({n})");
        }
        // Γ(1/2) = √π
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
    }

    #[test]
    fn outside_their_domain_functions_are_nan() {
        assert!(regularized_incomplete_beta(1.0, 1.0, 1.5).is_nan());
        assert!(student_t_two_sided_p(1.0, 0.0).is_nan());
        assert!(regularized_gamma_q(0.0, 1.0).is_nan());
        assert!(normal_quantile(1.5).is_nan());
        assert!(normal_sf(f64::NAN).is_nan());
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_sf(f64::INFINITY), 0.0);
        assert_eq!(normal_sf(0.0), 0.5);
    }
}
