//! One tracing span per repository call (feature `tracing`).
//!
//! Each call a generated repository makes — a query or scan (all its pages
//! and shards), a get, put, update or delete, a batch, a transaction — runs
//! in one `INFO` span of target `singletable`, named after its kind
//! (`singletable.query`, `singletable.put`, …), with the access pattern or
//! entity, the table and index, the shard fan-out, and, as the call goes,
//! the pages and items read, the requests sent, the retries of unprocessed
//! items and the capacity units consumed (every request asks for `TOTAL`). The SDK's own
//! spans nest inside it. Without the feature the spans compile to nothing;
//! the capacity a query or scan consumed is on its pages either way.

use std::future::Future;

use crate::sdk::types::ConsumedCapacity;

/// Capacity units of one response's consumed capacity.
pub(crate) fn units(capacity: Option<&ConsumedCapacity>) -> f64 {
    capacity.and_then(|c| c.capacity_units()).unwrap_or(0.0)
}

/// Capacity units of a batch or transaction response (one entry per table).
pub(crate) fn total_units(capacity: &[ConsumedCapacity]) -> f64 {
    capacity.iter().map(|c| units(Some(c))).sum()
}

#[cfg(feature = "tracing")]
mod imp {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use tracing::field::Empty;

    /// A repository call's span and its running totals.
    #[derive(Debug, Clone)]
    pub(crate) struct Call {
        span: tracing::Span,
        totals: Arc<Totals>,
    }

    #[derive(Debug, Default)]
    struct Totals {
        /// `f64` bits.
        capacity: AtomicU64,
        pages: AtomicU64,
        items: AtomicU64,
        retries: AtomicU64,
    }

    impl Call {
        fn new(span: tracing::Span) -> Self {
            Call {
                span,
                totals: Arc::default(),
            }
        }

        pub(crate) fn query(
            pattern: &str,
            table: &str,
            index: Option<&str>,
            partitions: usize,
        ) -> Self {
            Call::new(tracing::info_span!(
                target: "singletable",
                "singletable.query",
                pattern,
                table,
                index = index.unwrap_or(""),
                partitions,
                pages = Empty,
                items = Empty,
                requests = Empty,
                consumed_capacity = Empty,
            ))
        }

        pub(crate) fn scan(
            pattern: &str,
            table: &str,
            index: Option<&str>,
            segments: usize,
        ) -> Self {
            Call::new(tracing::info_span!(
                target: "singletable",
                "singletable.scan",
                pattern,
                table,
                index = index.unwrap_or(""),
                segments,
                pages = Empty,
                items = Empty,
                consumed_capacity = Empty,
            ))
        }

        pub(crate) fn item(
            operation: &'static str,
            pattern: &str,
            entity: &str,
            table: &str,
        ) -> Self {
            Call::new(tracing::info_span!(
                target: "singletable",
                "singletable.item",
                operation,
                pattern,
                entity,
                table,
                consumed_capacity = Empty,
            ))
        }

        pub(crate) fn batch(
            operation: &'static str,
            pattern: &str,
            table: &str,
            items: usize,
        ) -> Self {
            Call::new(tracing::info_span!(
                target: "singletable",
                "singletable.batch",
                operation,
                pattern,
                table,
                items,
                requests = Empty,
                retries = Empty,
                consumed_capacity = Empty,
            ))
        }

        pub(crate) fn transaction(
            operation: &'static str,
            pattern: &str,
            table: &str,
            items: usize,
        ) -> Self {
            Call::new(tracing::info_span!(
                target: "singletable",
                "singletable.transaction",
                operation,
                pattern,
                table,
                items,
                consumed_capacity = Empty,
            ))
        }

        fn add(counter: &AtomicU64, n: u64) -> u64 {
            counter.fetch_add(n, Ordering::Relaxed) + n
        }

        pub(crate) fn capacity(&self, units: f64) {
            let mut current = self.totals.capacity.load(Ordering::Relaxed);
            loop {
                let next = (f64::from_bits(current) + units).to_bits();
                match self.totals.capacity.compare_exchange_weak(
                    current,
                    next,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        self.span.record("consumed_capacity", f64::from_bits(next));
                        return;
                    }
                    Err(seen) => current = seen,
                }
            }
        }

        pub(crate) fn page(&self, items: usize) {
            let pages = Self::add(&self.totals.pages, 1);
            let items = Self::add(&self.totals.items, items as u64);
            self.span.record("pages", pages);
            self.span.record("items", items);
        }

        pub(crate) fn request(&self) {
            let n = Self::add(&self.totals.pages, 1);
            self.span.record("requests", n);
        }

        pub(crate) fn retry(&self) {
            let n = Self::add(&self.totals.retries, 1);
            self.span.record("retries", n);
        }

        pub(crate) fn instrument<F: std::future::Future>(
            &self,
            future: F,
        ) -> tracing::instrument::Instrumented<F> {
            tracing::Instrument::instrument(future, self.span.clone())
        }
    }
}

#[cfg(not(feature = "tracing"))]
mod imp {
    /// Without the `tracing` feature: nothing (`Clone` only, as with it).
    #[derive(Debug, Clone)]
    pub(crate) struct Call;

    impl Call {
        pub(crate) fn query(_: &str, _: &str, _: Option<&str>, _: usize) -> Self {
            Call
        }
        pub(crate) fn scan(_: &str, _: &str, _: Option<&str>, _: usize) -> Self {
            Call
        }
        pub(crate) fn item(_: &'static str, _: &str, _: &str, _: &str) -> Self {
            Call
        }
        pub(crate) fn batch(_: &'static str, _: &str, _: &str, _: usize) -> Self {
            Call
        }
        pub(crate) fn transaction(_: &'static str, _: &str, _: &str, _: usize) -> Self {
            Call
        }
        pub(crate) fn capacity(&self, _: f64) {}
        pub(crate) fn page(&self, _: usize) {}
        pub(crate) fn request(&self) {}
        pub(crate) fn retry(&self) {}
        pub(crate) fn instrument<F: std::future::Future>(&self, future: F) -> F {
            future
        }
    }
}

pub(crate) use imp::Call;

/// Runs `future` as the call `call`.
pub(crate) fn within<F: Future>(call: &Call, future: F) -> impl Future<Output = F::Output> {
    call.instrument(future)
}
