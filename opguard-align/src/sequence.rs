//! Candidate stage: order-aware alignment of two operation sequences.
//!
//! Pairs are a longest common subsequence of run-invariant signatures,
//! found with Myers' O((N+M)·D) algorithm in linear space (divide and
//! conquer on the middle snake). Operations between matches stay unpaired:
//! nothing is forced, and one extra operation leaves exactly one operation
//! unpaired instead of shifting every later pair.
//!
//! The search has a work budget so adversarial inputs cannot take
//! quadratic time. When a sub-problem would exceed it, that sub-problem
//! keeps only its common prefix and suffix and the rest stays unpaired
//! ([`Alignment::budget_exhausted`] says so); the pairs are still in order
//! and still join equal signatures.

/// Default work budget per rank: diagonals visited plus signature
/// comparisons made by the middle-snake searches (about a second of work).
pub const DEFAULT_ALIGNMENT_BUDGET: u64 = 1_000_000_000;

/// The result of [`align_sequences`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alignment {
    /// Matched `(index in a, index in b)`, strictly increasing in both.
    pub pairs: Vec<(usize, usize)>,
    /// Whether the work budget ran out, leaving some sub-problems unpaired
    /// beyond their common prefix and suffix.
    pub budget_exhausted: bool,
}

/// Aligns two signature sequences: a longest common subsequence of equal
/// signatures (exact while the budget lasts).
///
/// ```
/// use opguard_align::align_sequences;
///
/// // b has one extra operation at the front: everything else still pairs.
/// let a = [1, 2, 3, 4];
/// let b = [9, 1, 2, 3, 4];
/// let alignment = align_sequences(&a, &b, u64::MAX);
/// assert_eq!(alignment.pairs, vec![(0, 1), (1, 2), (2, 3), (3, 4)]);
/// ```
pub fn align_sequences<T: Eq>(a: &[T], b: &[T], budget: u64) -> Alignment {
    let max_d = (a.len() + b.len()).div_ceil(2) + 1;
    let mut state = State {
        a,
        b,
        vf: V::new(max_d),
        vb: V::new(max_d),
        budget,
        exhausted: false,
        pairs: Vec::new(),
    };
    state.conquer(0, a.len(), 0, b.len());
    Alignment {
        pairs: state.pairs,
        budget_exhausted: state.exhausted,
    }
}

struct V {
    offset: isize,
    v: Vec<usize>,
}

impl V {
    fn new(max_d: usize) -> Self {
        V {
            offset: max_d as isize,
            v: vec![0; 2 * max_d + 2],
        }
    }
    fn get(&self, k: isize) -> usize {
        self.v[(k + self.offset) as usize]
    }
    fn set(&mut self, k: isize, x: usize) {
        self.v[(k + self.offset) as usize] = x;
    }
}

struct State<'a, T> {
    a: &'a [T],
    b: &'a [T],
    vf: V,
    vb: V,
    budget: u64,
    exhausted: bool,
    pairs: Vec<(usize, usize)>,
}

impl<T: Eq> State<'_, T> {
    fn conquer(&mut self, mut alo: usize, mut ahi: usize, mut blo: usize, mut bhi: usize) {
        while alo < ahi && blo < bhi && self.a[alo] == self.b[blo] {
            self.pairs.push((alo, blo));
            alo += 1;
            blo += 1;
        }
        let mut suffix = 0;
        while alo < ahi && blo < bhi && self.a[ahi - 1] == self.b[bhi - 1] {
            ahi -= 1;
            bhi -= 1;
            suffix += 1;
        }
        if alo < ahi && blo < bhi {
            if let Some((x, y)) = self.middle_snake(alo, ahi, blo, bhi) {
                self.conquer(alo, x, blo, y);
                self.conquer(x, ahi, y, bhi);
            } else {
                self.exhausted = true;
            }
        }
        for i in 0..suffix {
            self.pairs.push((ahi + i, bhi + i));
        }
    }

    /// Finds a split point `(x, y)` on an optimal path through the box
    /// `a[alo..ahi] × b[blo..bhi]` (both non-empty, first and last elements
    /// unequal). `None` when the budget runs out.
    fn middle_snake(
        &mut self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> Option<(usize, usize)> {
        let n = ahi - alo;
        let m = bhi - blo;
        let delta = n as isize - m as isize;
        let odd = delta & 1 == 1;
        self.vf.set(1, 0);
        self.vb.set(1, 0);
        let d_max = (n + m).div_ceil(2) as isize + 1;
        for d in 0..d_max {
            // Work of this round: its diagonals plus the snakes followed.
            let mut work = (d as u64 + 1) * 2;
            // Forward paths from the top-left corner.
            let mut k = d;
            while k >= -d {
                let mut x = if k == -d || (k != d && self.vf.get(k - 1) < self.vf.get(k + 1)) {
                    self.vf.get(k + 1)
                } else {
                    self.vf.get(k - 1) + 1
                };
                let y = (x as isize - k) as usize;
                let (x0, y0) = (x, y);
                let mut yy = y;
                while x < n && yy < m && self.a[alo + x] == self.b[blo + yy] {
                    x += 1;
                    yy += 1;
                }
                work += (x - x0) as u64;
                self.vf.set(k, x);
                if odd && (k - delta).abs() < d && self.vf.get(k) + self.vb.get(-(k - delta)) >= n {
                    return Some((alo + x0, blo + y0));
                }
                k -= 2;
            }
            // Backward paths from the bottom-right corner.
            let mut k = d;
            while k >= -d {
                let mut x = if k == -d || (k != d && self.vb.get(k - 1) < self.vb.get(k + 1)) {
                    self.vb.get(k + 1)
                } else {
                    self.vb.get(k - 1) + 1
                };
                let mut y = (x as isize - k) as usize;
                let start = x;
                while x < n && y < m && self.a[ahi - x - 1] == self.b[bhi - y - 1] {
                    x += 1;
                    y += 1;
                }
                work += (x - start) as u64;
                self.vb.set(k, x);
                if !odd && (k - delta).abs() <= d && self.vb.get(k) + self.vf.get(-(k - delta)) >= n
                {
                    return Some((ahi - x, bhi - y));
                }
                k -= 2;
            }
            if self.budget < work {
                self.budget = 0;
                return None;
            }
            self.budget -= work;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcs_len(a: &[u8], b: &[u8]) -> usize {
        let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                dp[i][j] = if a[i] == b[j] {
                    dp[i + 1][j + 1] + 1
                } else {
                    dp[i + 1][j].max(dp[i][j + 1])
                };
            }
        }
        dp[0][0]
    }

    fn check(a: &[u8], b: &[u8]) {
        let al = align_sequences(a, b, u64::MAX);
        assert!(!al.budget_exhausted);
        for w in al.pairs.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{a:?} {b:?} {al:?}");
        }
        for &(i, j) in &al.pairs {
            assert_eq!(a[i], b[j]);
        }
        assert_eq!(al.pairs.len(), lcs_len(a, b), "{a:?} {b:?} {al:?}");
    }

    #[test]
    fn exhaustive_small_sequences_are_optimal() {
        // Every pair of sequences over {0,1,2} up to length 5.
        let mut seqs = vec![vec![]];
        for len in 1..=5 {
            let mut n = 3usize.pow(len);
            while n > 0 {
                n -= 1;
                let mut v = Vec::new();
                let mut x = n;
                for _ in 0..len {
                    v.push((x % 3) as u8);
                    x /= 3;
                }
                seqs.push(v);
            }
        }
        for a in &seqs {
            for b in seqs.iter().step_by(7) {
                check(a, b);
            }
        }
    }

    #[test]
    fn budget_exhaustion_keeps_order_and_equality() {
        let a: Vec<u8> = (0..200).map(|i| (i * 7 % 5) as u8).collect();
        let b: Vec<u8> = (0..180).map(|i| (i * 3 % 5) as u8).collect();
        let al = align_sequences(&a, &b, 50);
        assert!(al.budget_exhausted);
        for &(i, j) in &al.pairs {
            assert_eq!(a[i], b[j]);
        }
        for w in al.pairs.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
        }
    }
}
