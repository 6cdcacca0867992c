//! The case-study benchmarks of source 000 (docs/GLOSSARY.md), apart from the core pipeline: `peak`
//! (what the machine gives before tuning), `transpose --bench` (every transpose against the copy of
//! the same bytes) and `blur` (Gaussian blur pipelines against the seed's estimate rule, and real images).

pub mod blur_pipelines;
pub mod image_io;
pub mod peak;
pub mod transpose_bench;
