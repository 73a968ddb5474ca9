//! `kzsim`: a deterministic simulator of Apache Kafka's ZooKeeper-era control
//! plane (Kafka 2.8.2 with inter.broker.protocol.version=2.6).
//!
//! See `ARCHITECTURE.md` at the repository root for the code map and the
//! invariants. In short: [`zookeeper`] is the coordination tree, [`sim`] owns
//! virtual time, the event queue and the PRNG, [`scenario`] is the script
//! language, and [`runner`] plays a script against a simulation step by step.

pub mod chaos;
pub mod console;
pub mod copy_on_write;
pub mod invariants;
pub mod kafka;
pub mod runner;
pub mod sandbox;
pub mod scenario;
pub mod share;
pub mod sim;
pub mod small_map;
pub mod trace;
pub mod view;
pub mod zookeeper;
