//! Contact events on the host: the pairs of the frame before and of this one, each sorted by
//! (a, b), merged once. Used where the GPU's events stage cannot run: pairs ordered on the host
//! ([`ContactOrder::Host`](crate::gpu::ContactOrder::Host)) and pairs of bodies of several
//! shapes, whose GPU records name shapes.

use crate::geometry::ContactEvents;

/// The pairs of the last frame read back, to compare the next one with.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostEvents {
    previous: Vec<[u32; 2]>,
    /// The frame's pairs being gathered, in memory the next frame reuses.
    current: Vec<[u32; 2]>,
}

impl HostEvents {
    /// The events from the last frame's pairs to `current` (sorted by (a, b), no pair twice),
    /// which become the pairs the next frame is compared with.
    pub(crate) fn next(&mut self, current: impl Iterator<Item = [u32; 2]>) -> ContactEvents {
        self.current.clear();
        self.current.extend(current);
        let events = between(&self.previous, &self.current);
        std::mem::swap(&mut self.previous, &mut self.current);
        events
    }
}

/// The pairs of `now` missing from `before` (began) and of `before` missing from `now` (ended),
/// both lists sorted by (a, b) with no pair twice: one merge.
pub(crate) fn between(before: &[[u32; 2]], now: &[[u32; 2]]) -> ContactEvents {
    let mut events = ContactEvents::default();
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(p), Some(q)) if p == q => (i, j) = (i + 1, j + 1),
            (Some(p), Some(q)) if p < q => {
                events.ended.push(*p);
                i += 1;
            }
            (_, Some(q)) => {
                events.began.push(*q);
                j += 1;
            }
            (Some(p), None) => {
                events.ended.push(*p);
                i += 1;
            }
            (None, None) => unreachable!("the loop runs while either list has pairs"),
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The definition: set differences.
    fn model(before: &[[u32; 2]], now: &[[u32; 2]]) -> ContactEvents {
        let (b, n): (BTreeSet<_>, BTreeSet<_>) = (before.iter().copied().collect(), now.iter().copied().collect());
        ContactEvents { began: n.difference(&b).copied().collect(), ended: b.difference(&n).copied().collect() }
    }

    #[test]
    fn the_merge_is_the_set_difference_at_the_edges_and_at_random() {
        type Frames = (Vec<[u32; 2]>, Vec<[u32; 2]>);
        let cases: Vec<Frames> = vec![
            (vec![], vec![]),
            (vec![], vec![[0, 1]]),
            (vec![[0, 1]], vec![]),
            (vec![[0, 1]], vec![[0, 1]]),
            // A change at index 0, at the last index, and a pair that shares `a` only.
            (vec![[0, 1], [0, 2], [5, 9]], vec![[0, 2], [5, 9], [7, 8]]),
            (vec![[0, 2], [3, 4]], vec![[0, 1], [0, 2], [3, 5]]),
            (vec![[u32::MAX - 1, u32::MAX]], vec![[0, u32::MAX]]),
        ];
        for (before, now) in &cases {
            assert_eq!(between(before, now), model(before, now), "{before:?} -> {now:?}");
        }
        // Random sorted lists drawn from a small square, so that many pairs are shared.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200 {
            let mut draw = || -> Vec<[u32; 2]> {
                let set: BTreeSet<[u32; 2]> = (0..next() % 40)
                    .map(|_| {
                        let (a, b) = ((next() % 12) as u32, (next() % 12) as u32);
                        [a.min(b), a.max(b) + 1]
                    })
                    .collect();
                set.into_iter().collect()
            };
            let (before, now) = (draw(), draw());
            assert_eq!(between(&before, &now), model(&before, &now));
        }
        // A sequence of frames: each is compared with the one before.
        let mut host = HostEvents::default();
        assert_eq!(host.next([[0, 1], [2, 3]].into_iter()).began, [[0, 1], [2, 3]]);
        let second = host.next([[2, 3], [4, 5]].into_iter());
        assert_eq!((second.began, second.ended), (vec![[4, 5]], vec![[0, 1]]));
    }
}
