//! Each command's rows as a [`super::listing::Listing`]: what its table, CSV and JSON show, one file per
//! command.

mod archs;
mod baseline;
mod blur;
mod comparison;
mod devices;
mod kernels;
mod metrics;
mod model_check;
mod occupancy;

pub use archs::Database;
pub use baseline::Changes;
pub use blur::BlurTable;
pub use comparison::ComparisonListing;
pub use devices::Devices;
pub use kernels::KernelCatalogue;
pub use metrics::Catalogue;
pub use model_check::{ModelFits, ModelTerms};
pub use occupancy::{AgainstDriver, Calculator, calculate, check_driver};
