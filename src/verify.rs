//! Checks a GPU result against the CPU reference: every element, in parallel, NaN (the poison) never
//! passing, the first mismatch kept for the message. [`compare`] runs on the host; the GPU runs the
//! same arithmetic (kernels/verify.cu) and hands back one [`Tally`] per output, which [`from_tallies`]
//! turns into the same [`Verification`]; [`tally`] is that kernel's twin on the CPU.

use rayon::prelude::*;

use crate::kernels::{Kernel, Role, Tolerance};
use crate::record::{Mismatch, Verification};

const CHUNK: usize = 1 << 16;

/// What kernels/verify.cu leaves for one output buffer: mismatches; `!index` of the first mismatch (0
/// when none); the bits of the largest finite |got - expected| (as `f32`); got | expected << 32 (the
/// bits of both `f32`) at the first mismatch.
pub type Tally = [u64; 4];

/// The GPU comparison on the CPU (the mock backend's, and what the kernel's tally is checked against):
/// [`compare`]'s arithmetic, with the result packed as the kernel packs it.
pub fn tally(got: &[f32], want: &[f32], tol: Tolerance) -> Tally {
    let (count, max_err, first) = got
        .par_chunks(CHUNK)
        .zip(want.par_chunks(CHUNK))
        .enumerate()
        .map(|(c, (o, w))| {
            let (mut count, mut max_err, mut first) = (0u64, 0f32, None);
            for (i, (&g, &e)) in o.iter().zip(w).enumerate() {
                let err = (g - e).abs();
                if err.is_finite() {
                    max_err = max_err.max(err);
                }
                if !tol.accepts(g, e) {
                    count += 1;
                    first.get_or_insert(c * CHUNK + i);
                }
            }
            (count, max_err, first)
        })
        .reduce(
            || (0, 0.0, None),
            |a, b| {
                let first = match (a.2, b.2) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
                (a.0 + b.0, a.1.max(b.1), first)
            },
        );
    let at = first.map_or(0, |i| u64::from(got[i].to_bits()) | u64::from(want[i].to_bits()) << 32);
    [count, first.map_or(0, |i| !(i as u64)), u64::from(max_err.to_bits()), at]
}

/// The verification of a launch from one [`Tally`] per output buffer, in buffer order, and the
/// buffers' lengths: what [`compare`] reports for the same outputs.
pub fn from_tallies(kernel: &dyn Kernel, tallies: &[Tally], lens: &[usize]) -> Verification {
    let names = output_names(kernel);
    let mut v = Verification { checked: 0, mismatches: 0, max_abs_error: 0.0, first_mismatch: None };
    for (k, (t, &len)) in tallies.iter().zip(lens).enumerate() {
        v.checked += len as u64;
        v.mismatches += t[0];
        v.max_abs_error = v.max_abs_error.max(f64::from(f32::from_bits(t[2] as u32)));
        if v.first_mismatch.is_none() && t[0] > 0 && t[1] != 0 {
            v.first_mismatch = Some(Mismatch {
                buffer: names.get(k).map_or("out", String::as_str).to_string(),
                index: !t[1],
                got: f32::from_bits(t[3] as u32),
                expected: f32::from_bits((t[3] >> 32) as u32),
            });
        }
    }
    v
}

fn output_names(kernel: &dyn Kernel) -> Vec<String> {
    kernel.buffers().into_iter().filter(|b| b.role == Role::Output).map(|b| b.name.into_owned()).collect()
}

/// Compares every output element with the reference under the kernel's tolerance (an output of the
/// wrong length fails whole).
pub fn compare(kernel: &dyn Kernel, outputs: &[&[f32]], reference: &[Vec<f32>]) -> Verification {
    let tol = kernel.tolerance();
    let tallies: Vec<Tally> = outputs
        .iter()
        .zip(reference)
        .map(|(o, r)| if o.len() == r.len() { tally(o, r, tol) } else { [r.len() as u64, 0, 0, 0] })
        .collect();
    let lens: Vec<usize> = reference.iter().map(Vec::len).collect();
    from_tallies(kernel, &tallies, &lens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SumMatrix;

    #[test]
    fn exact_match_passes() {
        let k = SumMatrix::new(300, 300).unwrap();
        let r = vec![(0..90_000).map(|i| i as f32).collect::<Vec<_>>()];
        let v = compare(&k, &[&r[0]], &r);
        assert!(v.passed());
        assert_eq!(v.checked, 90_000);
    }

    #[test]
    fn poison_and_errors_are_caught_with_the_first_index() {
        let k = SumMatrix::new(300, 300).unwrap();
        let r = vec![vec![1.0f32; 90_000]];
        let mut o = r.clone();
        o[0][70_000] = f32::NAN;
        o[0][80_001] = 1.5;
        let v = compare(&k, &[&o[0]], &r);
        assert!(!v.passed());
        assert_eq!(v.mismatches, 2);
        let m = v.first_mismatch.unwrap();
        assert_eq!((m.buffer.as_str(), m.index), ("C", 70_000));
        assert!(m.got.is_nan());
        assert_eq!(v.max_abs_error, 0.5);
    }

    #[test]
    fn a_short_output_fails() {
        let k = SumMatrix::new(2, 2).unwrap();
        let v = compare(&k, &[&[0.0; 3]], &[vec![0.0; 4]]);
        assert!(!v.passed());
    }

    /// An element-by-element oracle sharing nothing with [`tally`]: (mismatches, first, max |error|).
    fn oracle(got: &[f32], want: &[f32], tol: Tolerance) -> (u64, Option<(usize, f32, f32)>, f64) {
        let (mut n, mut first, mut max) = (0, None, 0f64);
        for i in 0..got.len() {
            let err = (got[i] - want[i]).abs();
            if err.is_finite() && f64::from(err) > max {
                max = f64::from(err);
            }
            let bound = tol.abs + tol.rel * want[i].abs();
            // NaN compares false: a NaN error is a mismatch.
            if err.partial_cmp(&bound).is_none_or(|o| o.is_gt()) {
                n += 1;
                if first.is_none() {
                    first = Some((i, got[i], want[i]));
                }
            }
        }
        (n, first, max)
    }

    /// Outputs with NaN, infinities, flipped signs and values walked ulp by ulp across the bound, in every
    /// chunk; the reference has NaN too.
    fn hostile(n: usize) -> (Vec<f32>, Vec<f32>) {
        let mut want: Vec<f32> = (0..n).map(|i| ((i * 37 % 1001) as f32 - 500.0) * 0.37).collect();
        let mut got = want.clone();
        for (j, i) in (5..n).step_by(997).enumerate() {
            match j % 8 {
                0 => got[i] = f32::NAN,
                1 => got[i] = f32::INFINITY,
                2 => want[i] = f32::NAN,
                3 => got[i] = -got[i],
                m => (0..(j % 23) * m).for_each(|_| got[i] = got[i].next_up()),
            }
        }
        (got, want)
    }

    #[test]
    fn tallies_agree_with_an_element_by_element_check() {
        let (got, want) = hostile(300_000);
        for tol in [Tolerance { abs: 0.0, rel: 1e-6 }, Tolerance { abs: 1e-5, rel: 1e-4 }, Tolerance::EXACT] {
            let t = tally(&got, &want, tol);
            let (n, first, max) = oracle(&got, &want, tol);
            assert!(n > 100 && n < 300_000 - 100, "{n}: errors on both sides of the bound");
            let (i, g, e) = first.unwrap();
            let packed = u64::from(g.to_bits()) | u64::from(e.to_bits()) << 32;
            assert_eq!(t, [n, !(i as u64), u64::from((max as f32).to_bits()), packed]);
        }
    }

    #[test]
    fn compare_is_the_tallies_of_each_buffer() {
        let k = SumMatrix::new(1000, 300).unwrap();
        let (got, want) = hostile(300_000);
        let v = compare(&k, &[&got], std::slice::from_ref(&want));
        let (n, first, max) = oracle(&got, &want, k.tolerance());
        assert_eq!((v.checked, v.mismatches, v.max_abs_error), (300_000, n, max));
        let m = v.first_mismatch.clone().unwrap();
        let (i, g, e) = first.unwrap();
        assert_eq!(
            (m.buffer.as_str(), m.index, m.got.to_bits(), m.expected.to_bits()),
            ("C", i as u64, g.to_bits(), e.to_bits())
        );
        // NaN is not equal to itself: the reports are compared bit for bit.
        let bits = |v: &Verification| {
            let m =
                v.first_mismatch.as_ref().map(|m| (m.buffer.clone(), m.index, m.got.to_bits(), m.expected.to_bits()));
            (v.checked, v.mismatches, v.max_abs_error.to_bits(), m)
        };
        assert_eq!(bits(&from_tallies(&k, &[tally(&got, &want, k.tolerance())], &[got.len()])), bits(&v));
    }
}
