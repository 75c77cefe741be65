//! What the fuzz targets share (a library of this crate rather than a
//! module each target includes by `#[path]`).

pub mod orders_common;
