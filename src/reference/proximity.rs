//! Neighbours within a margin (issue 26), from the definitions: every pair of shapes at most a
//! given distance apart, with its signed distance.
//!
//! The signed distance of two shapes is minus the depth of their minimum translation vector
//! ([`contact`]) where they collide, and the distance between the closed shapes (their cores'
//! closest points, by brute force over every vertex and edge, less `r_a + r_b`) where they are
//! apart. A pair within the margin is reported as a [`Contact`](crate::Contact) whose `depth` is minus its signed
//! distance: positive (or zero) for colliding pairs, exactly as [`detect`](super::detect) gives
//! them, and negative, down to `-margin`, for pairs apart. Its normal points from `a` to `b`:
//! the contact's where they collide, else the direction from `a`'s closest point to `b`'s.

use super::{closest_points, contact, sub};
use crate::geometry::Polygon;

/// The signed distance of two shapes and the unit normal from `a` to `b` (see the module docs):
/// negative (minus the MTV depth) where they collide, zero where they touch, positive apart.
pub fn signed_distance(a: &Polygon, b: &Polygon) -> ([f64; 2], f64) {
    match contact(a, b) {
        Some((normal, depth)) => (normal, -depth),
        None => {
            let (pa, pb, d) = closest_points(a, b);
            let n = sub(pb, pa);
            ([n[0] / d + 0.0, n[1] / d + 0.0], d - a.radius() - b.radius())
        }
    }
}

/// The normal and depth (minus the signed distance) of two shapes at most `margin` apart: the
/// contact's where they collide, else, under a positive margin, their closest points'.
pub(super) fn within(pa: &Polygon, pb: &Polygon, margin: f64) -> Option<([f64; 2], f64)> {
    if let Some(found) = contact(pa, pb) {
        return Some(found);
    }
    if margin > 0.0 {
        let (normal, distance) = signed_distance(pa, pb);
        if distance <= margin {
            // Apart by the verdict on exact squared quantities: never a positive depth.
            return Some((normal, -distance.max(0.0) + 0.0));
        }
    }
    None
}
