//! Blur on a real photograph through the CPU implementations of every algorithm (no GPU, no mock), the
//! seed's estimate table, and the `blur` command on the mock backend.

mod common;

use std::path::Path;

use common::{mock, stdout};
use predicates::prelude::*;
use warpscope::kernels::{Gaussian, blur_error, gaussian_f64};
use warpscope::studies::blur_pipelines::{self as blur, ALGOS};
use warpscope::studies::image_io;

fn photo() -> image_io::Planes {
    image_io::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/astronaut-192.png")).unwrap()
}

#[test]
fn a_real_photograph_blurred_by_every_algorithm_is_within_its_bound() {
    let img = photo();
    assert_eq!((img.w, img.h, img.planes.len()), (192, 192, 3));
    let g = Gaussian::new(5.0).unwrap();
    for plane in &img.planes {
        let exact = gaussian_f64(plane, img.w, img.h, &g);
        for &algo in ALGOS {
            let out = blur::cpu(algo, plane, img.w, img.h, g).unwrap();
            let (max, rel) = blur_error(&out, &exact);
            let (bmax, brel) = algo.bound();
            assert!(max <= bmax && rel <= brel, "{}: max {max:.2e} rel {rel:.2e} over ({bmax}, {brel})", algo.name());
        }
    }
}

#[test]
fn the_seeds_estimate_table_offline() {
    let out = stdout(&mut common::cuda(&["blur", "--estimate", "--copy-mps", "14200", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    for r in rows {
        for key in ["algorithm", "io_per_pixel", "flops_per_pixel", "cm_ratio", "estimate_mps"] {
            assert!(r.get(key).is_some(), "{key}");
        }
        assert!(r.get("measured_mps").is_none());
    }
    let est: Vec<f64> = rows.iter().map(|r| r["estimate_mps"].as_f64().unwrap()).collect();
    // 30, 443, 2,840 and 2,030 MP/s in the seed (rounded there).
    assert_eq!(est[1].round(), 30.0);
    assert_eq!(est[2].floor(), 443.0);
    assert_eq!(est[4], 2840.0);
    assert_eq!((est[5] / 10.0).round() * 10.0, 2030.0);
    common::cuda(&["blur", "--estimate", "--copy-mps", "14200"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2D convolution, 31x31 kernel"));
}

#[test]
fn blur_command_on_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("blurred.png");
    let photo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/astronaut-192.png");
    mock(&["blur", "--image", photo.to_str().unwrap(), "--algo", "separable-tiled", "-o", out.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::contains("110592 of 110592 pixel values match the CPU implementation"))
        .stderr(predicate::str::contains("(bound 1e-5 / 1e-5: within)"));
    mock(&["blur", "--image", photo.to_str().unwrap(), "--algo", "recursive"])
        .assert()
        .success()
        .stderr(predicate::str::contains("(bound 5e-3 / 3e-3: within)"));
    assert_eq!(image_io::read(&out).unwrap().planes.len(), 3);
    let json =
        stdout(&mut mock(&["blur", "--bench", "--width", "128", "--height", "96", "--iters", "2", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(rows.as_array().unwrap().iter().all(|r| r["measured_mps"].is_number() && r["pct_of_estimate"].is_number()));
    for (args, msg) in [
        (vec!["blur"], "error: blur takes one of"),
        (vec!["blur", "--estimate"], "error: --estimate needs --copy-mps"),
        (vec!["blur", "--estimate", "--copy-mps", "0"], "error: invalid value '0' for '--copy-mps <MPS>'"),
        (vec!["blur", "--bench", "--sigma", "0"], "error: invalid value '0' for '--sigma <SIGMA>'"),
        (vec!["blur", "--image", "/no/such.png"], "error: /no/such.png: cannot read image"),
        (vec!["blur", "--image", photo.to_str().unwrap(), "--algo", "fast"], "error: unknown algorithm 'fast'"),
    ] {
        mock(&args).assert().code(2).stderr(predicate::str::starts_with(msg));
    }
}
