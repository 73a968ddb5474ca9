//! The panels: small function components, each given a [`crate::state::Snap`]
//! (or the few values it needs) and a callback that sends actions.

pub mod brokers;
pub mod controls;
pub mod events;
pub mod icons;
pub mod partitions;
pub mod sequence;
pub mod share;
#[cfg(test)]
mod tests;
pub mod tools;
pub mod tour;
pub mod znodes;
