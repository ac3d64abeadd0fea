//! Keeping a job's consumed capacity under a budget: a token bucket per
//! worker, refilled at the budget's rate and spent by the capacity each
//! request consumed (`ReturnConsumedCapacity`), as emr-dynamodb-connector's
//! rate controller does.

use std::time::{Duration, Instant};

/// A worker's capacity budget, in units per second; `None`: unbounded.
/// Split a table-wide budget across workers with [`Limits::per_worker`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    /// Read capacity units per second.
    pub max_rcu: Option<f64>,
    /// Write capacity units per second.
    pub max_wcu: Option<f64>,
}

impl Limits {
    /// This budget shared by `workers` workers: each gets its share.
    pub fn per_worker(self, workers: u32) -> Limits {
        let share = |v: Option<f64>| v.map(|v| v / f64::from(workers.max(1)));
        Limits {
            max_rcu: share(self.max_rcu),
            max_wcu: share(self.max_wcu),
        }
    }
}

/// Units available now, refilled at `rate` per second up to one second's
/// worth; spending more than there is waits for the debt to refill.
#[derive(Debug)]
pub(crate) struct Bucket {
    rate: Option<f64>,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    pub(crate) fn new(rate: Option<f64>) -> Bucket {
        Bucket {
            rate: rate.filter(|r| *r > 0.0),
            tokens: rate.unwrap_or(0.0),
            last: Instant::now(),
        }
    }

    /// Spends `units`; sleeps while the bucket is in debt.
    pub(crate) async fn spend(&mut self, units: f64) {
        let wait = self.spend_at(Instant::now(), units);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    /// Spends `units` at `now`: how long to wait for the debt to refill.
    fn spend_at(&mut self, now: Instant, units: f64) -> Duration {
        let Some(rate) = self.rate else {
            return Duration::ZERO;
        };
        let refill = now.saturating_duration_since(self.last).as_secs_f64() * rate;
        self.tokens = (self.tokens + refill).min(rate);
        self.last = now;
        self.tokens -= units;
        if self.tokens < 0.0 {
            Duration::from_secs_f64(-self.tokens / rate)
        } else {
            Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_holds_the_rate() {
        let mut bucket = Bucket::new(Some(10.0));
        let start = bucket.last;
        // One second's worth is there; past it, each unit waits a tenth.
        assert_eq!(bucket.spend_at(start, 10.0), Duration::ZERO);
        let wait = bucket.spend_at(start, 5.0);
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-9, "{wait:?}");
        // Two seconds later the bucket is full again (not more).
        let later = start + Duration::from_secs(2);
        assert_eq!(bucket.spend_at(later, 10.0), Duration::ZERO);
        assert!(bucket.spend_at(later, 1.0) > Duration::ZERO);
        assert_eq!(Bucket::new(None).spend_at(later, 1e9), Duration::ZERO);
    }

    #[test]
    fn a_table_budget_is_shared() {
        let l = Limits {
            max_rcu: Some(100.0),
            max_wcu: None,
        }
        .per_worker(4);
        assert_eq!(l.max_rcu, Some(25.0));
        assert_eq!(l.max_wcu, None);
    }
}
