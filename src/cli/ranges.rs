//! Every numeric option's range, declared once: the value parser that refuses a value outside it
//! before any work is done, and the help text that documents it (`[range: 1 to 100000]` in `--help`),
//! both come from the same constant. NaN, infinities and numbers that do not fit are outside every range.

use std::fmt::Display;
use std::str::FromStr;

/// The values a numeric option accepts, both ends included.
#[derive(Clone, Copy, Debug)]
pub struct Range<T> {
    lo: T,
    hi: T,
}

impl<T> Range<T>
where
    T: Copy + PartialOrd + FromStr + Display + Send + Sync + 'static,
{
    /// The option's help: `what`, then its range.
    pub fn help(self, what: &str) -> String {
        format!("{what} [range: {} to {}]", self.lo, self.hi)
    }

    /// The value of `text`, if it is a number in the range.
    pub fn check(self, text: &str) -> Result<T, String> {
        match text.trim().parse::<T>() {
            // NaN compares false with both ends.
            Ok(v) if v >= self.lo && v <= self.hi => Ok(v),
            _ => Err(format!("expected a number from {} to {}", self.lo, self.hi)),
        }
    }

    /// The clap value parser checking the range.
    pub fn parser(self) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
        move |text: &str| self.check(text)
    }
}

/// A CUDA device ordinal.
pub const DEVICE: Range<u32> = Range { lo: 0, hi: 255 };
/// A problem side (matrix columns or rows, image width or height): the kernels index with 32-bit ints.
pub const SIDE: Range<u32> = Range { lo: 1, hi: i32::MAX as u32 };
/// Frames per launch: one grid.z row of blocks each (grid.z is at most 65535).
pub const FRAMES: Range<u32> = Range { lo: 1, hi: 65_535 };
/// `mad`'s multiply-adds per element (the instantiated counts are checked by the kernel).
pub const MAD_N: Range<u32> = Range { lo: 0, hi: 96 };
/// Gaussian sigma in pixels: the largest two-decimal sigma whose 2 ceil(3 sigma) + 1 taps fit the
/// kernels' 255 (see the test below).
pub const SIGMA: Range<f32> = Range { lo: 0.5, hi: 42.33 };
/// Untimed launches before timing.
pub const WARMUP: Range<u32> = Range { lo: 0, hi: 100_000 };
/// Timed launches per configuration (each sample is kept in the record).
pub const ITERS: Range<u32> = Range { lo: 1, hi: 100_000 };
/// `--until-noise`'s spread to reach, percent of the median.
pub const NOISE_PCT: Range<f64> = Range { lo: 0.01, hi: 100.0 };
/// `--until-noise`'s batch and cap: a spread needs at least 3 samples.
pub const NOISE_ITERS: Range<u32> = Range { lo: 3, hi: 100_000 };
/// `--until-noise`'s time cap per configuration, seconds (a day).
pub const MAX_TIME: Range<f64> = Range { lo: 0.001, hi: 86_400.0 };
/// `--timeout`, seconds (a week).
pub const TIMEOUT: Range<f64> = Range { lo: 0.001, hi: 604_800.0 };
/// Seed of the random inputs: any 64-bit number.
pub const SEED: Range<u64> = Range { lo: 0, hi: u64::MAX };
/// Registers per thread (255 is every architecture's most).
pub const REGS: Range<u32> = Range { lo: 1, hi: 255 };
/// Shared memory per block, bytes (1 MiB, four times any architecture's most).
pub const SMEM: Range<u32> = Range { lo: 0, hi: 1 << 20 };
/// Threads per 1D block (1024 is every architecture's most).
pub const THREADS: Range<u32> = Range { lo: 1, hi: 1024 };
/// A percentage threshold.
pub const PCT: Range<f64> = Range { lo: 0.0, hi: 1_000_000.0 };
/// A copy rate, MP/s.
pub const MPS: Range<f64> = Range { lo: 0.001, hi: 1e9 };
/// `nvprof -c`: launches to profile (Nsight Compute's `--launch-count`; 0 would profile none).
pub const LAUNCH_COUNT: Range<u64> = Range { lo: 1, hi: u64::MAX };
/// `nvprof -s`: launches to leave unprofiled first (Nsight Compute's `--launch-skip`).
pub const LAUNCH_SKIP: Range<u64> = Range { lo: 0, hi: u64::MAX };

#[cfg(test)]
mod tests {
    use super::*;
    use warpscope::kernels::Gaussian;

    #[test]
    fn ranges_refuse_what_does_not_fit() {
        assert_eq!(ITERS.check("20"), Ok(20));
        for bad in ["0", "-1", "NaN", "1e30", "18446744073709551616", "100001", "", "x"] {
            assert_eq!(ITERS.check(bad), Err("expected a number from 1 to 100000".into()), "{bad}");
        }
        for bad in ["NaN", "inf", "-inf", "1e30", "0", "-1"] {
            assert!(SIGMA.check(bad).is_err() && MPS.check(bad).is_err(), "{bad}");
        }
        assert_eq!(SEED.check("0"), Ok(0));
        assert_eq!(SEED.check("18446744073709551615"), Ok(u64::MAX));
        assert!(SEED.check("18446744073709551616").is_err() && SEED.check("-1").is_err());
        assert_eq!(ITERS.help("Timed launches"), "Timed launches [range: 1 to 100000]");
    }

    #[test]
    fn the_sigma_range_is_what_the_kernels_take() {
        assert!(Gaussian::new(SIGMA.lo).is_ok() && Gaussian::new(SIGMA.hi).is_ok());
        assert!(Gaussian::new(SIGMA.hi + 0.01).is_err() && Gaussian::new(SIGMA.lo - 0.01).is_err());
    }
}
