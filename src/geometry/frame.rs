//! Coordinates moved into a body's frame, rounded once: the GPU holds each body relative to an
//! f32 anchor, and a vertex and a query's corner given as the same f64 number must land on the
//! same f32 there (`shaders/shared/exact.wgsl` rounds a query's coordinate the same way).

/// `x - anchor` as an f64 whose rounding to f32 is the f32 nearest the exact difference (ties to
/// even). The f64 subtraction is exact unless the anchor is much larger than `x`; where it is
/// not, and its result lies exactly halfway between two f32 values, a second rounding to f32
/// would break the tie the wrong way, so the result is moved one f64 step toward the exact
/// difference. Otherwise it is the plain f64 difference.
#[inline]
pub(crate) fn to_frame(x: f64, anchor: f32) -> f64 {
    let a = f64::from(anchor);
    let s = x - a;
    // Two-sum: s + e == x - a exactly.
    let back = s - x;
    let e = (x - (s - back)) + (-a - back);
    if e == 0.0 || !is_f32_midpoint(s) {
        return s;
    }
    if e > 0.0 {
        s.next_up()
    } else {
        s.next_down()
    }
}

/// Whether `s` lies exactly halfway between two neighbouring f32 values.
fn is_f32_midpoint(s: f64) -> bool {
    let f = s as f32;
    let other = if f64::from(f) < s { f.next_up() } else { f.next_down() };
    // Both differences are exact in f64: the three numbers are within one f32 step.
    f64::from(f) != s && s - f64::from(f) == f64::from(other) - s
}

/// `x` as three f32 values whose exact sum is `x` (the nearest f32, then the nearest f32 to what
/// is left, twice): what the GPU needs to round `x - anchor` exactly. Exact for every f64 whose
/// last bits stay above f32's smallest normal number, so for magnitudes from about 1e-22 to
/// [`MAX_COORDINATE`](crate::geometry::MAX_COORDINATE).
pub(crate) fn split(x: f64) -> [f32; 3] {
    let h = x as f32;
    let r = x - f64::from(h);
    let m = r as f32;
    let l = (r - f64::from(m)) as f32;
    [h, m, l]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f32 nearest `x - a` (ties to even), from integers: an independent check of
    /// [`to_frame`], for differences whose bits span at most 100 (`None` past that).
    fn nearest_by_integers(x: f64, a: f32) -> Option<f32> {
        // v == m * 2^e with an integer m.
        let parts = |v: f64| -> (i128, i32) {
            let bits = v.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i32;
            let mant = (bits & ((1 << 52) - 1)) | (1 << 52);
            (if v < 0.0 { -(mant as i128) } else { mant as i128 }, exp - 1075)
        };
        let ((mx, ex), (ma, ea)) = (parts(x), parts(f64::from(a)));
        let e = ex.min(ea);
        if ex.max(ea) - e > 70 {
            return None;
        }
        let d = (mx << (ex - e)) - (ma << (ea - e));
        if d == 0 {
            return Some(0.0);
        }
        // |d| rounded to 24 bits, ties to even.
        let (neg, mut m, mut e) = (d < 0, d.unsigned_abs(), e);
        let bits = 128 - m.leading_zeros() as i32;
        if bits > 24 {
            let cut = bits - 24;
            let (rest, half) = (m & ((1u128 << cut) - 1), 1u128 << (cut - 1));
            m >>= cut;
            e += cut;
            if rest > half || (rest == half && m & 1 == 1) {
                m += 1;
            }
        }
        let v = m as f64 * 2f64.powi(e);
        Some((if neg { -v } else { v }) as f32)
    }

    /// Uniform numbers in [0, 1) from `seed` (xorshift).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The GPU's first estimate of the f32 nearest `x - a` (`to_frame` in exact.wgsl): the
    /// split's parts and the exact `h - a` summed smallest first, in f32.
    fn first_estimate(x: f64, a: f32) -> f32 {
        let [h, m, l] = split(x);
        let s = h - a;
        let (back, back_a) = (s - h, s - (s - h));
        let e = (h - back_a) + (-a - back);
        s + (e + (m + l))
    }

    /// How many f32 steps apart two f32 values are.
    fn steps(a: f32, b: f32) -> u32 {
        let order = |v: f32| {
            let bits = v.to_bits() as i64;
            if bits >> 31 == 1 {
                -(bits & 0x7fff_ffff)
            } else {
                bits
            }
        };
        (order(a) - order(b)).unsigned_abs() as u32
    }

    /// The estimate exact.wgsl starts from is within two f32 steps of the nearest f32, so its
    /// two moves reach it: on random values at every scale, and on coordinates next to f32
    /// midpoints with anchors one step from them (where `h - a` and what rounding `x` left
    /// nearly cancel).
    #[test]
    fn the_gpus_first_estimate_is_within_two_steps() {
        let mut next = uniform(0x2545_f491_4f6c_dd1d);
        let mut worst = 0;
        for k in 0..400_000 {
            let scale = 10f64.powf(next() * 40.0 - 20.0);
            let base = (next() - 0.5) * scale;
            let f = base as f32;
            let gap = f64::from(f.next_up()) - f64::from(f);
            let (x, a) = match k % 4 {
                0 => (base, (base + (next() - 0.5) * scale * 1e-3) as f32),
                1 => (f64::from(f) + gap / 2.0 + (next() - 0.5) * gap * 1e-6, f.next_down()),
                2 => (f64::from(f) - gap / 2.0 * (1.0 - 1e-9 * next()), f.next_up().next_up()),
                _ => (base, ((next() - 0.5) * scale * 2f64.powi(-40)) as f32),
            };
            let Some(want) = nearest_by_integers(x, a) else { continue };
            assert_eq!(to_frame(x, a) as f32, want, "{x:e} - {a:e}");
            let apart = steps(first_estimate(x, a), want);
            worst = worst.max(apart);
            assert!(apart <= 2, "{x:e} - {a:e}: the estimate is {apart} steps from the nearest f32");
        }
        assert!(worst >= 1, "no estimate needed a move");
    }

    #[test]
    fn rounds_the_exact_difference_once() {
        // The f64 difference lands on an f32 midpoint (-2^30 + 32) while the exact one lies
        // above it: rounding twice gives -2^30, once -2^30 + 64.
        let (x, a) = (32.0 + 2f64.powi(-30), 2f32.powi(30));
        assert_eq!((x - f64::from(a)) as f32, -(2f32.powi(30)));
        assert_eq!(to_frame(x, a) as f32, -(2f32.powi(30)) + 64.0);
        assert_eq!(nearest_by_integers(x, a), Some(to_frame(x, a) as f32));
        let (x, a) = (-32.0 - 2f64.powi(-30), -(2f32.powi(30)));
        assert_eq!(to_frame(x, a) as f32, 2f32.powi(30) - 64.0);
        // Random values at every scale, anchors near, far and on the other side.
        let mut next = uniform(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for _ in 0..200_000 {
            let scale = 10f64.powf(next() * 40.0 - 20.0);
            let x = (next() - 0.5) * scale;
            let a = match (next() * 4.0) as u32 {
                0 => (x + (next() - 0.5) * scale * 1e-3) as f32,
                1 => ((next() - 0.5) * scale * 1e3) as f32,
                2 => -(x as f32),
                _ => ((next() - 0.5) * scale * 2f64.powi(-30)) as f32,
            };
            if let Some(want) = nearest_by_integers(x, a) {
                assert_eq!(to_frame(x, a) as f32, want, "{x:e} - {a:e}");
                checked += 1;
            }
            let [h, m, l] = split(x);
            assert_eq!(f64::from(h) + f64::from(m) + f64::from(l), x, "{x:e} split");
        }
        assert!(checked > 190_000, "only {checked} differences checked");
        // Differences that the f64 subtraction rounds onto an f32 midpoint: a large anchor `a`,
        // `x0` small with `x0 - a` exactly halfway, then `x` a few f64 steps of `x0` away.
        let mut on_midpoints = 0;
        for k in 0..2000 {
            let a = ((1.0 + next()) * 2f64.powi(20 + (k % 40))) as f32;
            let c = (f64::from(a) * -(1.0 - next() * 1e-3)) as f32;
            let midpoint = (f64::from(c) + f64::from(c.next_up())) / 2.0;
            let x0 = midpoint + f64::from(a);
            assert_eq!(x0 - f64::from(a), midpoint);
            for steps in [-3i32, -1, 1, 2] {
                let x = (0..steps.abs()).fold(x0, |x, _| if steps > 0 { x.next_up() } else { x.next_down() });
                if x - f64::from(a) == midpoint {
                    assert_eq!(Some(to_frame(x, a) as f32), nearest_by_integers(x, a), "{x:e} - {a:e}");
                    on_midpoints += 1;
                }
            }
        }
        assert!(on_midpoints > 7000, "{on_midpoints} differences rounded onto a midpoint");
    }
}
