//! The simulation kernel: virtual time, the one event queue, the seeded PRNG,
//! effects as data, and [`Sim`], the world that owns them.

pub mod cluster;
pub mod effect;
pub mod event;
pub mod queue;
pub mod rng;
pub mod simulation;
pub mod time;

pub use event::{Client, Event};
pub use queue::EventQueue;
pub use rng::Rng;
pub use simulation::Sim;
pub use time::Millis;
