//! The sample data every benchmark uses: support tickets with comments, and
//! sensor readings with every kind of typed key placeholder.

use singletable_runtime::DateTime;
use singletable_tests::generated::support_ticket::{Comment, Status, TenantId, Ticket};

use crate::generated::key_shapes::Reading;

/// The tenant of the samples.
pub fn tenant() -> TenantId {
    TenantId::new("acme_corp").expect("a tenant id of letters and `_` is valid")
}

/// 2024-05-01T12:00:00.123Z plus `n` seconds: the milliseconds are never
/// zero, so every RFC 3339 formatter writes the same three digits.
pub fn instant(n: i64) -> DateTime {
    DateTime::from_millis(1_714_564_800_123 + n * 1_000)
}

/// Ticket number `n`: every attribute set, the optional resolver too, so
/// the ticket is in the status index.
pub fn ticket(n: u32) -> Ticket {
    Ticket {
        id: format!("T-{n:08}"),
        title: format!("Printer on floor {} is out of toner again", n % 40),
        status: if n.is_multiple_of(4) {
            Status::Closed
        } else {
            Status::Open
        },
        resolver: Some(format!("agent.{}", n % 17)),
        created_at: instant(i64::from(n)),
    }
}

/// Comment number `n` on ticket `ticket`: a body of about 300 bytes.
pub fn comment(ticket: u32, n: u32) -> Comment {
    Comment {
        ticket_id: format!("T-{ticket:08}"),
        id: format!("C-{n:06}"),
        author: format!("user{}@example.com", n % 13),
        body: "Restarted the spooler and replaced the cartridge; the printer prints a test \
               page but jams on the second sheet. The tray roller looks worn, so I have \
               ordered a replacement part and will follow up when it arrives. Until then \
               please use the printer on floor 2, which has paper and toner."
            .to_owned(),
        created_at: instant(i64::from(n) * 60),
    }
}

/// Reading number `n`: a path with characters that must be escaped, an
/// offset integer that is sometimes negative.
pub fn reading(n: u32) -> Reading {
    Reading {
        sensor: format!("boiler_{}", n % 8),
        path: format!("site/north wing/room #{}", n % 50),
        seq: i64::from(n) * 7,
        offset: i64::from(n % 100) * 37 - 1_800,
        at: instant(i64::from(n)),
        logged_at: instant(i64::from(n) + 5),
        value: i64::from(n % 1_000),
    }
}
