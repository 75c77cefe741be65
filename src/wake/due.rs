//! When the next thing falls due that no mail announces: an outbox row's
//! next attempt, a deadline's reminder or its expiry, a review's end. The
//! loop wakes then (or at the poll interval, whichever is first), so a
//! deadline never waits for mail.
//!
//! The times are read from the same columns the passes use; a time that is
//! already past (a seat with an extension, a row claimed by another
//! deliverer) is left out, so the loop never spins: the poll interval
//! bounds it as before.

use chrono::{DateTime, Duration, Utc};

use crate::service::deadlines::REMINDER_BEFORE;
use crate::store;

/// The earliest due time after `now`, if any.
#[must_use]
pub fn next(conn: &store::Connection, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let mut times = outbox(conn);
    times.extend(games(conn));
    times.into_iter().filter(|t| *t > now).min()
}

fn parse(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The pending outbox rows' next attempts, the earliest first.
fn outbox(conn: &store::Connection) -> Vec<DateTime<Utc>> {
    let rows = store::next_attempts(conn);
    match rows {
        Ok(rows) => rows.iter().filter_map(|s| parse(s)).collect(),
        Err(e) => {
            tracing::debug!("outbox: cannot read the next attempt: {e}");
            Vec::new()
        }
    }
}

/// The active games' reminders, deadlines (with grace) and review ends.
fn games(conn: &store::Connection) -> Vec<DateTime<Utc>> {
    let Ok(games) = store::games_paged(conn) else {
        return Vec::new();
    };
    let mut times = Vec::new();
    // A page of games at a time (issue 57: not every game row at once); a
    // page that cannot be read ends the list, as a failed read did before.
    for g in games.map_while(Result::ok).filter(|g| g.status == "active") {
        if let Some(d) = g.deadline_at.as_deref().and_then(parse) {
            times.push(d - Duration::seconds(REMINDER_BEFORE));
            times.push(d + Duration::seconds(g.grace_secs));
        }
        if let (Some(secs), Some(since)) = (g.review_secs, g.held_since.as_deref().and_then(parse))
        {
            times.push(since + Duration::seconds(secs));
        }
    }
    times
}
