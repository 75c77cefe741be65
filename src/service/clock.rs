//! Time, from a clock the tests can set.

use chrono::{DateTime, Utc};

pub trait Clock: Send {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)] // the one place the real time is read
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock fixed at one instant (tests; `ADJUTANT_NOW` for the CLI).
pub struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

/// The clock for the CLI: `ADJUTANT_NOW` (RFC 3339) if set, else the system clock.
#[must_use]
pub fn from_env() -> Box<dyn Clock> {
    match std::env::var("ADJUTANT_NOW")
        .ok()
        .and_then(|s| DateTime::parse_from_rfc3339(&s).ok())
    {
        Some(t) => Box::new(FixedClock(t.with_timezone(&Utc))),
        None => Box::new(SystemClock),
    }
}

/// RFC 3339 in UTC with seconds: sorts as text in time order.
#[must_use]
pub fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
