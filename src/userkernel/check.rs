//! Verifying a user kernel's outputs against the expected ones (a reference kernel's, `.npy` files', or the
//! first configuration's), element by element in parallel, into the same [`Verification`] built-in
//! kernels report: `|got - want| <= atol + rtol * |want|` as numpy.allclose (and Kernel Tuner) read it;
//! NaN (the poison of float outputs) never passes; integers compare exactly unless a tolerance is given.

use rayon::prelude::*;

use super::data::HostData;
use super::file::VerifySpec;
use crate::record::{Mismatch, Verification};

const CHUNK: usize = 1 << 16;

/// Compares each output (name, what the GPU wrote) with its expected contents.
pub fn compare(outputs: &[(&str, &HostData)], expected: &[&HostData], spec: &VerifySpec) -> Verification {
    let mut v = Verification { checked: 0, mismatches: 0, max_abs_error: 0.0, first_mismatch: None };
    for ((name, got), want) in outputs.iter().zip(expected) {
        if got.ty != want.ty || got.len() != want.len() {
            v.checked += want.len() as u64;
            v.mismatches += want.len().max(1) as u64;
            continue;
        }
        let (size, value) = (got.ty.size(), got.ty.to_f64());
        // Integers compare exactly (equal values, equal bytes) unless a tolerance was given.
        let exact = !got.ty.is_float() && !spec.tolerance_given;
        let n = got.len();
        let (count, max_err, first) = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let (mut count, mut max_err, mut first) = (0u64, 0f64, None);
                let range = c * CHUNK * size..((c + 1) * CHUNK).min(n) * size;
                let pairs = got.bytes[range.clone()].chunks_exact(size).zip(want.bytes[range].chunks_exact(size));
                for (k, (g, w)) in pairs.enumerate() {
                    let (gv, wv) = (value(g), value(w));
                    let err = (gv - wv).abs();
                    if err.is_finite() {
                        max_err = max_err.max(err);
                    }
                    let ok = if exact { g == w } else { err <= spec.atol + spec.rtol * wv.abs() || gv == wv };
                    if !ok {
                        count += 1;
                        first.get_or_insert((c * CHUNK + k, gv, wv));
                    }
                }
                (count, max_err, first)
            })
            .reduce(|| (0, 0.0, None), |a, b| (a.0 + b.0, a.1.max(b.1), a.2.or(b.2)));
        v.checked += n as u64;
        v.mismatches += count;
        v.max_abs_error = v.max_abs_error.max(max_err);
        if v.first_mismatch.is_none()
            && let Some((i, g, w)) = first
        {
            v.first_mismatch =
                Some(Mismatch { buffer: name.to_string(), index: i as u64, got: g as f32, expected: w as f32 });
        }
    }
    v
}

/// Each output's sum against its input's (name, output, input): within `atol + rtol * sum |input|`,
/// the scale of a float sum's rounding (a sum that cancels to near zero is not held to its own size);
/// integer sums exactly unless a tolerance is given. Sums are taken in f64. A mismatch reports the two
/// sums as its got and expected values, at index 0.
pub fn compare_sums(pairs: &[(&str, &HostData, &HostData)], spec: &VerifySpec) -> Verification {
    let mut v = Verification { checked: 0, mismatches: 0, max_abs_error: 0.0, first_mismatch: None };
    for (name, out, input) in pairs {
        let total = |d: &HostData| {
            let value = d.ty.to_f64();
            d.bytes.chunks_exact(d.ty.size()).map(value).fold((0.0, 0.0), |(s, a), x| (s + x, a + x.abs()))
        };
        let ((got, _), (want, scale)) = (total(out), total(input));
        let exact = !out.ty.is_float() && !input.ty.is_float() && !spec.tolerance_given;
        let ok = if exact { got == want } else { (got - want).abs() <= spec.atol + spec.rtol * scale };
        v.checked += out.len() as u64;
        if (got - want).is_finite() {
            v.max_abs_error = v.max_abs_error.max((got - want).abs());
        }
        if !ok {
            v.mismatches += 1;
            v.first_mismatch.get_or_insert(Mismatch {
                buffer: name.to_string(),
                index: 0,
                got: got as f32,
                expected: want as f32,
            });
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::userkernel::data::{ElemType, Init, Num, Poison, TYPES};
    use crate::userkernel::file::Expected;

    fn spec(rtol: f64, atol: f64, given: bool) -> VerifySpec {
        VerifySpec { expected: Expected::SameAsFirst, rtol, atol, tolerance_given: given }
    }

    fn f32s(xs: &[f32]) -> HostData {
        HostData { ty: ElemType::F32, bytes: xs.iter().flat_map(|x| x.to_le_bytes()).collect() }
    }

    #[test]
    fn sums_are_held_to_the_inputs_magnitude() {
        // Two blocks' partial sums of [1, -1, 2, -2, 0.5]: any split gives 0.5 in all.
        let x = f32s(&[1.0, -1.0, 2.0, -2.0, 0.5]);
        assert!(compare_sums(&[("partial", &f32s(&[0.0, 0.5]), &x)], &spec(1e-5, 1e-6, false)).passed());
        assert!(compare_sums(&[("partial", &f32s(&[2.0, -1.5]), &x)], &spec(1e-5, 1e-6, false)).passed());
        // Off by 1e-4: within 1e-5 x sum |x| = 6.5e-5? No: refused, and both sums reported.
        let v = compare_sums(&[("partial", &f32s(&[0.0, 0.5001]), &x)], &spec(1e-5, 1e-6, false));
        assert_eq!(v.mismatches, 1);
        let m = v.first_mismatch.unwrap();
        assert_eq!((m.buffer.as_str(), m.got, m.expected), ("partial", 0.5001, 0.5));
        // A poisoned (NaN) output never passes.
        let nan = HostData::poisoned(ElemType::F32, 2, Poison::Checked);
        assert!(!compare_sums(&[("partial", &nan, &x)], &spec(1.0, 1.0, true)).passed());
    }

    #[test]
    fn tolerance_as_numpy_allclose() {
        let want = f32s(&[1.0, 100.0, 0.0]);
        let close = f32s(&[1.000_005, 100.000_9, 0.000_000_5]);
        assert!(compare(&[("C", &close)], &[&want], &spec(1e-5, 1e-6, true)).passed());
        let far = f32s(&[1.0, 100.01, 0.0]);
        let v = compare(&[("C", &far)], &[&want], &spec(1e-5, 1e-6, true));
        assert_eq!(v.mismatches, 1);
        let m = v.first_mismatch.unwrap();
        assert_eq!((m.buffer.as_str(), m.index), ("C", 1));
    }

    #[test]
    fn poison_fails_and_integers_are_exact() {
        let want = f32s(&[1.0, 2.0]);
        let poisoned = HostData::poisoned(ElemType::F32, 2, Poison::Checked);
        assert_eq!(compare(&[("C", &poisoned)], &[&want], &spec(1.0, 1.0, true)).mismatches, 2);
        let a = Init::Sequence(Num::Int(0), Num::Int(1)).generate(ElemType::I64, 1000, 0, 0).unwrap();
        let mut b = a.clone();
        b.bytes[8 * 500] ^= 1;
        assert_eq!(compare(&[("idx", &b)], &[&a], &spec(1e-5, 1e-6, false)).mismatches, 1, "exact by default");
        assert!(compare(&[("idx", &b)], &[&a], &spec(0.0, 1.0, true)).passed(), "within atol 1 when asked");
        // Integer outputs that neither run wrote differ: the two poisons are different.
        let r = HostData::poisoned(ElemType::I32, 4, Poison::Reference);
        let c = HostData::poisoned(ElemType::I32, 4, Poison::Checked);
        assert!(!compare(&[("o", &c)], &[&r], &spec(0.0, 0.0, false)).passed());
    }

    /// Every type, exact and with a tolerance, against the rule applied element by element through
    /// [`Num`]: the same mismatches, the same largest error, the same first mismatch.
    #[test]
    fn typed_comparison_is_the_rule_element_by_element() {
        for (name, t) in TYPES {
            let (lo, hi) = if t.is_float() { (-4.0, 4.0) } else { (0.0, 100.0) };
            let want = Init::Uniform(lo, hi).generate(*t, 3 * CHUNK + 17, 1, 0).unwrap();
            let mut got = Init::Uniform(lo, hi).generate(*t, 3 * CHUNK + 17, 1, 0).unwrap();
            let size = t.size();
            for i in [5usize, CHUNK + 3, 2 * CHUNK, 3 * CHUNK + 16] {
                got.bytes[i * size] ^= 0x10;
            }
            for s in [spec(0.0, 0.0, false), spec(1e-3, 0.5, true)] {
                let v = compare(&[("o", &got)], &[&want], &s);
                let (mut count, mut max_err, mut first) = (0u64, 0f64, None);
                for i in 0..want.len() {
                    let (g, w) = (got.get(i), want.get(i));
                    let err = (g.as_f64() - w.as_f64()).abs();
                    if err.is_finite() {
                        max_err = max_err.max(err);
                    }
                    let ok = match (g, w) {
                        (Num::Int(a), Num::Int(b)) if !s.tolerance_given => a == b,
                        _ => err <= s.atol + s.rtol * w.as_f64().abs() || g.as_f64() == w.as_f64(),
                    };
                    if !ok {
                        count += 1;
                        first.get_or_insert(i as u64);
                    }
                }
                assert_eq!((v.mismatches, v.max_abs_error), (count, max_err), "{name}");
                assert_eq!(v.first_mismatch.map(|m| m.index), first, "{name}");
                assert!(count > 0 || s.tolerance_given, "{name}: the flipped bits differ");
            }
        }
    }

    #[test]
    fn a_wrong_length_fails() {
        let v = compare(&[("C", &f32s(&[1.0]))], &[&f32s(&[1.0, 2.0])], &spec(0.0, 0.0, false));
        assert!(!v.passed());
    }
}
