//! The analytical side of warpscope: architecture database, occupancy, memory-access model and the
//! compiled resources the models use when no GPU is at hand.

pub mod arch;
pub mod memory;
pub mod occupancy;
pub mod resources;
