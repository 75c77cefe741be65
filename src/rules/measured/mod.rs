//! Measured tables: miniatures rules measured in inches on an open table.
//! The geometry core is shared by every measured set.

pub mod geometry;
