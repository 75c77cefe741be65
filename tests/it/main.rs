//! The one integration-test binary (docs/testing.md): a module per area,
//! sharing `common`. One binary links the library once instead of 36 times.

/// The judge's own allocator (src/main.rs) for the tests too: the
/// random-game property tests clone whole game states for every candidate
/// order, and half their time went to glibc's malloc and free.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;

mod airdrop;
mod browser;
mod campaign;
mod cases;
mod cli_game;
mod conformance;
mod crash;
mod deadlines;
mod delivery;
mod desert;
mod docs_stand_alone;
mod e2e_airdrop;
mod e2e_campaign;
mod e2e_desert;
mod e2e_grid;
mod e2e_mail;
mod e2e_measured;
mod e2e_minefields;
mod e2e_night;
mod e2e_syw;
mod e2e_worlds;
mod events;
mod faults;
mod fog_surfaces;
mod general;
mod golden;
mod hardening;
mod host;
mod host_faults;
mod kriegspiel_mail;
mod kriegspiel_no_leak;
mod kriegspiel_twins;
mod landmarks;
mod layering;
mod mail_corpus;
mod mailserver;
mod measured_referee;
mod minefields;
mod no_leak;
mod outbox_storage;
mod picture_mail;
mod predict;
mod predict_m44_property;
mod predict_measured_property;
mod predict_property;
mod presentation;
mod protocol;
mod push;
mod random;
mod receive;
mod records;
mod referee;
pub mod replay;
mod spine;
mod standings;
mod state_line;
mod tamper;
mod teams;
mod trains;
mod wrapped_replies;
