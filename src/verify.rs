//! Checks a GPU result against the CPU reference: every element, in parallel, NaN (the poison) never
//! passing, the first mismatch kept for the message.

use rayon::prelude::*;

use crate::kernels::{Kernel, Role};
use crate::record::{Mismatch, Verification};

const CHUNK: usize = 1 << 16;

/// Compares every output element with the reference under the kernel's tolerance.
pub fn compare(kernel: &dyn Kernel, outputs: &[&[f32]], reference: &[Vec<f32>]) -> Verification {
    let buffers = kernel.buffers();
    let names: Vec<&str> = buffers.iter().filter(|b| b.role == Role::Output).map(|b| b.name.as_ref()).collect();
    let mut v = Verification { checked: 0, mismatches: 0, max_abs_error: 0.0, first_mismatch: None };
    for (k, (out, r)) in outputs.iter().zip(reference).enumerate() {
        if out.len() != r.len() {
            v.mismatches += r.len() as u64;
            v.checked += r.len() as u64;
            continue;
        }
        let tol = kernel.tolerance();
        let (count, max_err, first) = out
            .par_chunks(CHUNK)
            .zip(r.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, (o, r))| {
                let mut count = 0u64;
                let mut max_err = 0f32;
                let mut first = None;
                for (i, (&g, &e)) in o.iter().zip(r).enumerate() {
                    let err = (g - e).abs();
                    if err.is_finite() {
                        max_err = max_err.max(err);
                    }
                    if !tol.accepts(g, e) {
                        count += 1;
                        first.get_or_insert((c * CHUNK + i, g, e));
                    }
                }
                (count, max_err as f64, first)
            })
            .reduce(
                || (0, 0.0, None),
                |a, b| {
                    (
                        a.0 + b.0,
                        a.1.max(b.1),
                        match (a.2, b.2) {
                            (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
                            (x, y) => x.or(y),
                        },
                    )
                },
            );
        v.checked += r.len() as u64;
        v.mismatches += count;
        v.max_abs_error = v.max_abs_error.max(max_err);
        if v.first_mismatch.is_none()
            && let Some((i, got, expected)) = first
        {
            v.first_mismatch =
                Some(Mismatch { buffer: names.get(k).unwrap_or(&"out").to_string(), index: i as u64, got, expected });
        }
    }
    v
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
}
