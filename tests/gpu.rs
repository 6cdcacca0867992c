//! On a real GPU (ignored elsewhere: `cargo test --release --test gpu -- --ignored`): the comparison the
//! GPU runs (kernels/verify.cu) against the CPU's, `verify::compare` over the outputs copied back, for
//! every kernel of the catalogue — passing outputs, outputs left poisoned by a launch that covers only
//! part of the problem, and references with planted errors, NaN and values on both sides of the
//! tolerance.

use std::sync::Arc;

use warpscope::gpu::{self, Backend, BackendKind, CompareOn, Launch};
use warpscope::kernels::{self, Kernel};
use warpscope::record::Verification;
use warpscope::{plan, spec, verify};

const SEED: u64 = 0x5eed_2026;

/// The catalogue's kernels at their selftest sizes, each with its first valid selftest block.
fn cases(backend: &mut dyn Backend) -> Vec<(Box<dyn Kernel>, Launch)> {
    kernels::all()
        .map(|info| {
            let kernel = info.selftest_kernel().unwrap();
            let attrs = backend.load(kernel.as_ref()).unwrap();
            let blocks = spec::parse_block_list(info.selftest_blocks).unwrap();
            let limits = backend.info().checked_limits().unwrap().clone();
            let planned = plan::plan(kernel.as_ref(), &blocks, &limits, &attrs);
            let launch = planned.iter().find(|p| p.invalid.is_none()).expect("a valid selftest block").launch;
            (kernel, launch)
        })
        .collect()
}

/// Loads `kernel`, fills its inputs on the GPU and hands over the CPU reference, which it returns.
fn set_up(backend: &mut dyn Backend, kernel: &dyn Kernel) -> Vec<Vec<f32>> {
    backend.load(kernel).unwrap();
    backend.upload(kernel, SEED).unwrap();
    let inputs = kernels::random_inputs(kernel, SEED);
    let reference = kernel.reference(&inputs);
    let on = backend.check_inputs(kernel, &inputs, &Arc::new(reference.clone())).unwrap();
    assert_eq!(on, CompareOn::Device, "{}: a small problem's reference fits on the device", kernel.entry());
    reference
}

/// The GPU's verification of `launch`, and the CPU's of the outputs it left.
fn both(backend: &mut dyn Backend, kernel: &dyn Kernel, launch: &Launch, reference: &[Vec<f32>]) -> [Verification; 2] {
    let (on_gpu, _) = backend.launch_verified(kernel, launch).unwrap();
    let outputs = backend.outputs().unwrap();
    let slices: Vec<&[f32]> = outputs.iter().map(Vec::as_slice).collect();
    [on_gpu, verify::compare(kernel, &slices, reference)]
}

/// A verification as bits (NaN, the poison, is not equal to itself): what "the same report" means.
fn bits(v: &Verification) -> String {
    let m = v.first_mismatch.as_ref().map(|m| (m.buffer.clone(), m.index, m.got.to_bits(), m.expected.to_bits()));
    format!("{} {} {:#x} {m:?}", v.checked, v.mismatches, v.max_abs_error.to_bits())
}

fn cuda() -> Box<dyn Backend> {
    gpu::open(BackendKind::Cuda, 0).expect("this test needs an NVIDIA GPU and its driver")
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn the_gpu_comparison_agrees_with_the_cpu_on_every_kernel() {
    let mut backend = cuda();
    for (kernel, launch) in cases(backend.as_mut()) {
        let reference = set_up(backend.as_mut(), kernel.as_ref());
        let [gpu, cpu] = both(backend.as_mut(), kernel.as_ref(), &launch, &reference);
        assert!(cpu.passed(), "{}: {}", kernel.entry(), cpu.summary());
        assert_eq!(bits(&gpu), bits(&cpu), "{}", kernel.entry());
        assert_eq!(gpu.checked, reference.iter().map(|r| r.len() as u64).sum::<u64>());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn outputs_left_poisoned_are_caught_with_the_same_report() {
    let mut backend = cuda();
    for (kernel, launch) in cases(backend.as_mut()) {
        let reference = set_up(backend.as_mut(), kernel.as_ref());
        // Half the blocks along the longest grid side: the rest of the outputs keep the NaN poison.
        let mut short = launch;
        if short.grid.y >= short.grid.x {
            short.grid.y = short.grid.y.div_ceil(2);
        } else {
            short.grid.x = short.grid.x.div_ceil(2);
        }
        let [gpu, cpu] = both(backend.as_mut(), kernel.as_ref(), &short, &reference);
        assert!(!cpu.passed(), "{}: half a grid cannot write every output", kernel.entry());
        assert!(cpu.first_mismatch.as_ref().unwrap().got.is_nan(), "{}: {}", kernel.entry(), cpu.summary());
        assert_eq!(bits(&gpu), bits(&cpu), "{}", kernel.entry());
        assert_eq!(gpu.summary(), cpu.summary());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn planted_errors_and_tolerance_edges_are_judged_alike() {
    let mut backend = cuda();
    for (kernel, launch) in cases(backend.as_mut()) {
        let mut reference = set_up(backend.as_mut(), kernel.as_ref());
        // What the GPU writes, to build references just inside and just outside the tolerance.
        backend.launch_verified(kernel.as_ref(), &launch).unwrap();
        let outputs = backend.outputs().unwrap();
        let tol = kernel.tolerance();
        let last = reference.len() - 1;
        let (r, got) = (&mut reference[last], &outputs[last]);
        let n = r.len();
        let mut planted = std::collections::BTreeSet::new();
        for k in 0..2000 {
            let i = (k * 7919 + 13) % n;
            let g = got[i];
            r[i] = match k % 8 {
                0 => g + 0.5,
                1 => f32::NAN,
                2 => f32::INFINITY,
                // Walk the reference ulp by ulp away from what was written: both sides of the bound.
                m => {
                    let mut w = g;
                    for _ in 0..(k % 97) * m {
                        w = if g >= 0.0 { w.next_up() } else { w.next_down() };
                    }
                    w
                }
            };
            planted.insert(i);
        }
        let wrong = planted.iter().filter(|&&i| !tol.accepts(got[i], r[i])).count();
        assert!(wrong > 0 && wrong < planted.len(), "{}: errors on both sides of the bound", kernel.entry());
        check_inputs_again(backend.as_mut(), kernel.as_ref(), &reference);
        let [gpu, cpu] = both(backend.as_mut(), kernel.as_ref(), &launch, &reference);
        assert_eq!(cpu.mismatches as usize, wrong, "{}", kernel.entry());
        assert_eq!(bits(&gpu), bits(&cpu), "{}", kernel.entry());
    }
}

/// Hands a changed reference to the backend (the one `set_up` gave is replaced).
fn check_inputs_again(backend: &mut dyn Backend, kernel: &dyn Kernel, reference: &[Vec<f32>]) {
    let inputs = kernels::random_inputs(kernel, SEED);
    backend.check_inputs(kernel, &inputs, &Arc::new(reference.to_vec())).unwrap();
}
