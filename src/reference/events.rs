//! Contact events from the definition: the pairs of one frame that the other lacks.

use std::collections::BTreeSet;

use crate::geometry::{Contact, ContactEvents};

/// The pairs that began touching from `previous` to `current` (in `current`, not in
/// `previous`) and those that ended (in `previous`, not in `current`), each sorted by (a, b).
/// Only the pairs count, not their normals or depths; the inputs need not be sorted.
pub fn contact_events(previous: &[Contact], current: &[Contact]) -> ContactEvents {
    let set = |contacts: &[Contact]| contacts.iter().map(|c| [c.a, c.b]).collect::<BTreeSet<[u32; 2]>>();
    let (before, now) = (set(previous), set(current));
    ContactEvents {
        began: now.difference(&before).copied().collect(),
        ended: before.difference(&now).copied().collect(),
    }
}
