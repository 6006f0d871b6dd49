//! Typed ids: what a `GlobalId` names — a user's object (tables, views, indexes, sources,
//! sinks, connections: durable, counted by the catalog's counter that the data directory
//! keeps), a system relation (the introspection relations and the system catalogs: fixed,
//! never stored), or something transient (a peek's or a subscription's dataflow, an
//! introspection request: per process, never stored).
//!
//! The engine knows ids only as `u64`s, so each kind is a range of them, and this file is the
//! one place that knows the ranges: user ids count up from 1 (as they always have, so data
//! directories keep their ids), transient ids from 2^62, system ids down from `u64::MAX - 1`.
//! The planner's own placeholder ids for correlated subqueries count up from 2^63 - 1
//! (`kpg_sql`'s `subquery.rs`), between the transient and system ranges, and its outer-row id
//! is `u64::MAX` itself (`kpg_types::OUTER_ROW`): neither is a user's or a system id. Ids are
//! shown as `u5`, `s1`, `t12` (`Display`).

use kpg_types::GlobalId;

/// The first transient id.
const TRANSIENT_BASE: u64 = 1 << 62;

/// The largest number a system id can carry.
const SYSTEM_MAX: u64 = 1 << 20;

/// What a `GlobalId` names, with its number within its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectId {
    User(u64),
    System(u64),
    Transient(u64),
}

impl ObjectId {
    /// The id as the engine knows it.
    pub const fn global(self) -> GlobalId {
        match self {
            ObjectId::User(n) => n,
            ObjectId::Transient(n) => TRANSIENT_BASE + n,
            ObjectId::System(n) => u64::MAX - n,
        }
    }

    /// The kind and number of an engine id. Ids in none of the ranges (the planner's
    /// placeholders and outer row) count as transient.
    pub const fn of(id: GlobalId) -> ObjectId {
        if id < TRANSIENT_BASE {
            ObjectId::User(id)
        } else if id > u64::MAX - SYSTEM_MAX && id < u64::MAX {
            ObjectId::System(u64::MAX - id)
        } else {
            ObjectId::Transient(id - TRANSIENT_BASE)
        }
    }
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectId::User(n) => write!(f, "u{n}"),
            ObjectId::System(n) => write!(f, "s{n}"),
            ObjectId::Transient(n) => write!(f, "t{n}"),
        }
    }
}

/// `id` as users see it: `u5`, `s1`, `t12`.
pub fn shown(id: GlobalId) -> String {
    ObjectId::of(id).to_string()
}

/// Whether `id` names a system relation.
pub fn is_system(id: GlobalId) -> bool {
    matches!(ObjectId::of(id), ObjectId::System(_))
}

/// Counts transient ids for one process.
#[derive(Debug, Default)]
pub struct TransientIds {
    next: u64,
}

impl TransientIds {
    pub fn allocate(&mut self) -> GlobalId {
        let id = ObjectId::Transient(self.next).global();
        self.next += 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_user(id: GlobalId) -> bool {
        matches!(ObjectId::of(id), ObjectId::User(_))
    }

    #[test]
    fn kinds_round_trip_and_do_not_overlap() {
        for id in [
            ObjectId::User(1),
            ObjectId::User(TRANSIENT_BASE - 1),
            ObjectId::Transient(0),
            ObjectId::Transient(1 << 40),
            ObjectId::System(1),
            ObjectId::System(1000 + 200),
            ObjectId::System(SYSTEM_MAX - 1),
        ] {
            assert_eq!(ObjectId::of(id.global()), id, "{id:?}");
        }
        assert!(is_user(1) && !is_system(1));
        assert!(!is_user(ObjectId::Transient(0).global()));
        assert!(is_system(ObjectId::System(3).global()));
        // The ids of the first releases: user ids unchanged, system ids as they were numbered
        // (u64::MAX - n), so nothing stored or shown changes.
        assert_eq!(ObjectId::User(42).global(), 42);
        assert_eq!(ObjectId::System(1).global(), u64::MAX - 1);
        // The planner's placeholders (from 2^63 - 1) and outer row are neither user nor system
        // ids.
        for placeholder in [u64::MAX / 2 + 10, kpg_types::OUTER_ROW] {
            assert!(!is_user(placeholder) && !is_system(placeholder));
        }
        assert_eq!(shown(7), "u7");
        assert_eq!(shown(ObjectId::System(2).global()), "s2");
        assert_eq!(shown(ObjectId::Transient(3).global()), "t3");
        let mut transient = TransientIds::default();
        let (a, b) = (transient.allocate(), transient.allocate());
        assert_ne!(a, b);
        assert_eq!(ObjectId::of(b), ObjectId::Transient(1));
    }
}
