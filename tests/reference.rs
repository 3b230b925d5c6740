//! Tests of the CPU reference: hand-checked SAT cases, and agreement with brute force and with
//! an independent geometric predicate on generated scenes.

use std::collections::{BTreeSet, HashMap};

use satgpu::reference;
use satgpu::reference::{broad_phase, colliding, contact, penetration_along, separation};
use satgpu::scene::{generate, SceneKind};
use satgpu::DetectOptions;
use satgpu::{Filter, Polygon, Transform};

mod common;

fn poly(v: &[[f64; 2]]) -> Polygon {
    Polygon::new(v.to_vec()).expect("test polygon is valid")
}

/// Axis-aligned box `[x0, x1] x [y0, y1]`.
fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    poly(&[[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
}

/// Unit square with lower-left corner `(x, y)`.
fn unit(x: f64, y: f64) -> Polygon {
    rect(x, y, x + 1.0, y + 1.0)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

fn assert_contact(a: &Polygon, b: &Polygon, normal: [f64; 2], depth: f64) {
    let (n, d) = contact(a, b).expect("pair should collide");
    assert!(
        close(n[0], normal[0]) && close(n[1], normal[1]) && close(d, depth),
        "contact {n:?} depth {d}, expected {normal:?} depth {depth}"
    );
}

#[test]
fn apart_squares_do_not_collide() {
    let (a, b) = (unit(0.0, 0.0), unit(3.0, 0.0));
    assert!(!colliding(&a, &b));
    assert_eq!(contact(&a, &b), None);
    assert_eq!(separation(&a, &b), 2.0);
}

#[test]
fn overlapping_squares_give_least_overlap_axis() {
    // Overlap 0.5 in x and 1.75 in y: the MTV pushes b right by 0.5.
    let (a, b) = (rect(0.0, 0.0, 2.0, 2.0), rect(1.5, 0.25, 3.5, 2.25));
    assert!(colliding(&a, &b));
    assert_contact(&a, &b, [1.0, 0.0], 0.5);
    assert_eq!(separation(&a, &b), -0.5);
}

#[test]
fn touching_edge_collides_with_depth_exactly_zero() {
    let a = unit(0.0, 0.0);
    for b in [unit(1.0, 0.0), unit(1.0, 0.5), unit(0.25, 1.0)] {
        assert!(colliding(&a, &b));
        let (n, d) = contact(&a, &b).unwrap();
        assert_eq!(d, 0.0, "touching edge must have depth exactly 0");
        assert_eq!(penetration_along(&a, &b, n), 0.0);
        assert_eq!(separation(&a, &b), 0.0);
    }
    assert_eq!(contact(&a, &unit(1.0, 0.0)).unwrap().0, [1.0, 0.0]);
}

#[test]
fn touching_corner_collides_with_depth_zero() {
    let a = unit(0.0, 0.0);
    let b = unit(1.0, 1.0);
    assert!(colliding(&a, &b));
    let (n, d) = contact(&a, &b).unwrap();
    assert_eq!(d, 0.0);
    assert!(n == [1.0, 0.0] || n == [0.0, 1.0], "normal {n:?} should point away from a");
    // A corner of a triangle resting on the middle of a square's edge.
    let t = poly(&[[0.5, 1.0], [1.0, 2.0], [0.0, 2.0]]);
    assert!(colliding(&a, &t));
    assert_eq!(contact(&a, &t).unwrap().1, 0.0);
    // Nudged off by a hair, they do not.
    let t2 = poly(&[[0.5, 1.0 + 1e-9], [1.0, 2.0], [0.0, 2.0]]);
    assert!(!colliding(&a, &t2));
}

#[test]
fn contained_polygon_leaves_the_shortest_way() {
    let big = rect(0.0, 0.0, 10.0, 10.0);
    let small = rect(1.0, 4.0, 2.0, 5.0);
    // Small inside big, closest to big's left side: move small left by 2.
    assert_contact(&big, &small, [-1.0, 0.0], 2.0);
    // Big around small: pushing big right by 2 clears small's right side at x = 2.
    assert_contact(&small, &big, [1.0, 0.0], 2.0);
}

#[test]
fn identical_polygons_depth_is_the_least_width() {
    let s = 3f64.sqrt();
    let hex = poly(&[[2.0, 0.0], [1.0, s], [-1.0, s], [-2.0, 0.0], [-1.0, -s], [1.0, -s]]);
    let (n, d) = contact(&hex, &hex).unwrap();
    assert!((d - 2.0 * s).abs() < 1e-12, "depth {d}, width across flats {}", 2.0 * s);
    assert!((penetration_along(&hex, &hex, n) - d).abs() < 1e-12);
    let sq = unit(0.0, 0.0);
    assert_eq!(contact(&sq, &sq).unwrap().1, 1.0);
}

#[test]
fn triangle_poking_into_hexagon() {
    let s = 3f64.sqrt();
    let hex = poly(&[[2.0, 0.0], [1.0, s], [-1.0, s], [-2.0, 0.0], [-1.0, -s], [1.0, -s]]);
    // Tip 0.5 below the hexagon's flat top edge y = sqrt(3).
    let tri = poly(&[[0.0, s - 0.5], [1.0, s + 2.0], [-1.0, s + 2.0]]);
    assert!(colliding(&hex, &tri));
    assert_contact(&hex, &tri, [0.0, 1.0], 0.5);
    assert_contact(&tri, &hex, [0.0, -1.0], 0.5);
    assert!(brute_force_min_penetration(&hex, &tri) >= 0.5 - 1e-12);
    // Lifted 0.6, it clears by 0.1.
    let lifted = tri.transformed(&Transform { x: 0.0, y: 0.6, angle: 0.0 });
    assert!(!colliding(&hex, &lifted));
    assert!((separation(&hex, &lifted) - 0.1).abs() < 1e-12);
}

#[test]
fn rotated_boxes() {
    let a = rect(-1.0, -0.5, 1.0, 0.5);
    // A diamond (unit square turned 45 degrees) whose left corner is 0.1 inside a's right side.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let cx = 1.0 + h - 0.1;
    let diamond = poly(&[[cx - h, 0.0], [cx, -h], [cx + h, 0.0], [cx, h]]);
    assert_contact(&a, &diamond, [1.0, 0.0], 0.1);
    // Rotating the whole configuration rotates the normal and keeps the depth.
    for angle in [0.3, 1.0, 2.5, -2.0] {
        let t = Transform { x: 5.0, y: -3.0, angle };
        let (ra, rd) = (a.transformed(&t), diamond.transformed(&t));
        let (n, d) = contact(&ra, &rd).unwrap();
        let expected = [angle.cos(), angle.sin()];
        assert!((d - 0.1).abs() < 1e-9, "angle {angle}: depth {d}");
        assert!((n[0] - expected[0]).abs() < 1e-9 && (n[1] - expected[1]).abs() < 1e-9);
    }
    // Two rotated boxes crossing like an X collide; moved apart along x they do not.
    let bar = rect(-2.0, -0.2, 2.0, 0.2);
    let x1 = bar.transformed(&Transform { x: 0.0, y: 0.0, angle: 0.7 });
    let x2 = bar.transformed(&Transform { x: 0.0, y: 0.0, angle: -0.7 });
    assert!(colliding(&x1, &x2));
    let x3 = bar.transformed(&Transform { x: 5.0, y: 0.0, angle: -0.7 });
    assert!(!colliding(&x1, &x3));
}

#[test]
fn textbook_squares() {
    assert!(!colliding(&unit(0.0, 0.0), &unit(2.0, 2.0)));
    assert_eq!(contact(&unit(0.0, 0.0), &unit(2.0, 2.0)), None);
    assert_eq!(separation(&unit(0.0, 0.0), &unit(2.0, 2.0)), 1.0);
    assert!(colliding(&unit(0.0, 0.0), &unit(0.0, 1.0)));
    assert_eq!(contact(&unit(0.0, 0.0), &unit(0.0, 1.0)), Some(([0.0, 1.0], 0.0)));
}

#[test]
fn normal_points_from_a_to_b_and_flips_on_swap() {
    let a = rect(0.0, 0.0, 2.0, 2.0);
    for (b, expected) in [
        (rect(1.7, 0.5, 3.7, 2.5), [1.0, 0.0]),
        (rect(-1.7, 0.5, 0.3, 2.5), [-1.0, 0.0]),
        (rect(0.5, 1.7, 2.5, 3.7), [0.0, 1.0]),
        (rect(0.5, -1.7, 2.5, 0.3), [0.0, -1.0]),
    ] {
        let (n, d) = contact(&a, &b).unwrap();
        assert_eq!(n, expected);
        let (m, e) = contact(&b, &a).unwrap();
        assert_eq!(m, [-n[0], -n[1]]);
        assert!(close(d, e) && close(d, 0.3));
    }
    // On random overlapping pairs the depth is symmetric and each normal is a valid MTV.
    let polys = generate(SceneKind::Dense, 400, 7);
    for c in reference::detect(&polys, &DetectOptions::default()).contacts {
        let (a, b) = (&polys[c.a as usize], &polys[c.b as usize]);
        let (m, e) = contact(b, a).unwrap();
        assert!((c.depth - e).abs() < 1e-9);
        assert!((penetration_along(a, b, c.normal) - c.depth).abs() < 1e-9);
        assert!((penetration_along(b, a, m) - e).abs() < 1e-9);
    }
}

#[test]
fn separation_sign_and_value() {
    let a = unit(0.0, 0.0);
    assert_eq!(separation(&a, &unit(1.5, 0.0)), 0.5);
    assert_eq!(separation(&a, &unit(0.0, -3.0)), 2.0);
    assert_eq!(separation(&a, &unit(1.0, 0.0)), 0.0);
    assert_eq!(separation(&a, &unit(0.75, 0.5)), -0.25);
    assert_eq!(separation(&a, &a), -1.0);
    // A triangle whose hypotenuse faces a square corner: the gap is along the diagonal normal.
    let t = poly(&[[2.0, 1.0], [2.0, 2.0], [1.0, 2.0]]);
    let gap = separation(&a, &t);
    assert!((gap - 0.5f64.sqrt()).abs() < 1e-12, "gap {gap}");
}

#[test]
fn penetration_along_measures_push_distance() {
    let (a, b) = (rect(0.0, 0.0, 2.0, 2.0), rect(1.5, 0.0, 3.5, 2.0));
    assert_eq!(penetration_along(&a, &b, [1.0, 0.0]), 0.5);
    assert_eq!(penetration_along(&a, &b, [-1.0, 0.0]), 3.5);
    assert_eq!(penetration_along(&a, &b, [0.0, 1.0]), 2.0);
    // Negative when already apart along that direction.
    assert_eq!(penetration_along(&a, &unit(3.0, 0.0), [1.0, 0.0]), -1.0);
}

/// Least penetration over many sampled directions: an independent upper bound check on the
/// MTV (the true minimum is attained on an edge normal, so sampling never beats it).
fn brute_force_min_penetration(a: &Polygon, b: &Polygon) -> f64 {
    (0..20_000)
        .map(|i| {
            let t = i as f64 * std::f64::consts::TAU / 20_000.0;
            penetration_along(a, b, [t.cos(), t.sin()])
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn mtv_is_not_beaten_by_any_sampled_direction() {
    let polys = generate(SceneKind::Mixed, 300, 3);
    let contacts = reference::detect(&polys, &DetectOptions::default()).contacts;
    assert!(!contacts.is_empty());
    for c in contacts.iter().take(40) {
        let (a, b) = (&polys[c.a as usize], &polys[c.b as usize]);
        let sampled = brute_force_min_penetration(a, b);
        assert!(sampled >= c.depth - 1e-9, "sampled {sampled} < depth {}", c.depth);
        // Sampling at 3e-4 rad steps gets within (diameter * step) of the optimum.
        let extent = |p: &Polygon| {
            let bb = p.aabb();
            (bb.max[0] - bb.min[0]).hypot(bb.max[1] - bb.min[1])
        };
        assert!(sampled <= c.depth + 1e-3 * (extent(a) + extent(b)), "sampled {sampled}");
    }
}

fn brute_force_aabb_pairs(polys: &[Polygon]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..polys.len() {
        for j in i + 1..polys.len() {
            if polys[i].aabb().overlaps(&polys[j].aabb()) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[test]
fn broad_phase_equals_all_pairs_aabb_overlap() {
    for kind in SceneKind::ALL {
        for seed in 0..4 {
            let polys = generate(kind, 300, seed);
            let expected = brute_force_aabb_pairs(&polys);
            assert!(!expected.is_empty(), "{kind} seed {seed} has no candidates");
            assert_eq!(broad_phase(&polys), expected, "{kind} seed {seed}");
        }
    }
    // Touching boxes count.
    assert_eq!(broad_phase(&[unit(0.0, 0.0), unit(1.0, 1.0), unit(5.0, 5.0)]), vec![(0, 1)]);
    assert!(broad_phase(&[]).is_empty());
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Closed point-in-convex-polygon (counter-clockwise vertices).
fn contains(p: &Polygon, q: [f64; 2]) -> bool {
    let v = p.vertices();
    (0..v.len()).all(|i| cross(v[i], v[(i + 1) % v.len()], q) >= 0.0)
}

/// Closed segment intersection by orientation tests.
fn segments_meet(p1: [f64; 2], p2: [f64; 2], q1: [f64; 2], q2: [f64; 2]) -> bool {
    let d1 = cross(q1, q2, p1);
    let d2 = cross(q1, q2, p2);
    let d3 = cross(p1, p2, q1);
    let d4 = cross(p1, p2, q2);
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    let on = |a: [f64; 2], b: [f64; 2], c: [f64; 2], d: f64| {
        d == 0.0 && c[0] >= a[0].min(b[0]) && c[0] <= a[0].max(b[0]) && c[1] >= a[1].min(b[1]) && c[1] <= a[1].max(b[1])
    };
    on(q1, q2, p1, d1) || on(q1, q2, p2, d2) || on(p1, p2, q1, d3) || on(p1, p2, q2, d4)
}

/// Whether two convex polygons intersect, decided without SAT: a vertex of one lies in the
/// other, or two edges cross.
fn intersect_geometrically(a: &Polygon, b: &Polygon) -> bool {
    let (va, vb) = (a.vertices(), b.vertices());
    if va.iter().any(|&q| contains(b, q)) || vb.iter().any(|&q| contains(a, q)) {
        return true;
    }
    (0..va.len())
        .any(|i| (0..vb.len()).any(|j| segments_meet(va[i], va[(i + 1) % va.len()], vb[j], vb[(j + 1) % vb.len()])))
}

#[test]
fn detect_equals_all_pairs_sat_and_geometry() {
    for kind in SceneKind::ALL {
        // `round`'s bodies of up to 1,024 vertices take 100 times the others' time per pair.
        let n = if kind == SceneKind::Round { 100 } else { 300 };
        for seed in 0..4 {
            let polys = generate(kind, n, seed);
            let (contacts, candidates) = {
                let d = reference::detect(&polys, &DetectOptions::default());
                (d.contacts, d.candidates)
            };
            assert_eq!(candidates, brute_force_aabb_pairs(&polys).len());
            assert_eq!(contacts, reference::detect(&polys, &DetectOptions::default()).contacts);
            let mut all_pairs = Vec::new();
            for i in 0..polys.len() {
                for j in i + 1..polys.len() {
                    let (a, b) = (&polys[i], &polys[j]);
                    if let Some((normal, depth)) = contact(a, b) {
                        all_pairs.push((i as u32, j as u32, normal, depth));
                    }
                    // SAT agrees with plain geometry away from the rounding band (polygons; the
                    // rounded shapes have their own cases).
                    let plain = |p: &Polygon| p.radius() == 0.0 && p.vertices().len() >= 3;
                    if plain(a) && plain(b) && (separation(a, b).abs() > 1e-9 || kind == SceneKind::Grid) {
                        assert_eq!(
                            colliding(a, b),
                            intersect_geometrically(a, b),
                            "{kind} seed {seed} pair ({i}, {j})"
                        );
                    }
                }
            }
            let got: Vec<_> = contacts.iter().map(|c| (c.a, c.b, c.normal, c.depth)).collect();
            assert_eq!(got, all_pairs, "{kind} seed {seed}");
            assert!(!got.is_empty(), "{kind} seed {seed} has no contacts");
            for c in &contacts {
                assert!(c.a < c.b && c.depth >= 0.0);
                assert!((c.normal[0].hypot(c.normal[1]) - 1.0).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn grid_touching_neighbours_are_all_reported_with_depth_zero() {
    for seed in 0..3 {
        let polys = generate(SceneKind::Grid, 2_000, seed);
        // Grid shapes never overlap; two of them touch exactly when they share a grid point
        // that is a vertex of both (shapes only meet at cell corners, whole cell sides or the
        // diagonal of a split cell).
        let mut by_vertex: HashMap<(i64, i64), Vec<u32>> = HashMap::new();
        for (i, p) in polys.iter().enumerate() {
            for v in p.vertices() {
                assert_eq!(v[0].fract(), 0.0);
                assert_eq!(v[1].fract(), 0.0);
                by_vertex.entry((v[0] as i64, v[1] as i64)).or_default().push(i as u32);
            }
        }
        let mut touching = BTreeSet::new();
        for ids in by_vertex.values() {
            for (k, &i) in ids.iter().enumerate() {
                for &j in &ids[k + 1..] {
                    touching.insert((i.min(j), i.max(j)));
                }
            }
        }
        let contacts = reference::detect(&polys, &DetectOptions::default()).contacts;
        let reported: BTreeSet<_> = contacts.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(reported, touching, "seed {seed}");
        assert!(touching.len() > polys.len(), "grid should be well connected");
        for c in &contacts {
            assert_eq!(c.depth, 0.0, "pair ({}, {}) depth {}", c.a, c.b, c.depth);
            let (a, b) = (&polys[c.a as usize], &polys[c.b as usize]);
            assert_eq!(separation(a, b), 0.0);
        }
    }
}

#[test]
fn rounded_shapes_on_analytic_cases() {
    for (what, a, b, want) in common::rounded_cases() {
        let got = contact(&a, &b);
        common::check_case(what, &a, &b, got, want, 1e-12);
        assert_eq!(colliding(&a, &b), want.is_some(), "{what}");
        // The exact normal where it is unique (no tie between opposite faces).
        if let (Some((n, _)), Some((m, _))) = (got, want) {
            let tied = ["crossing", "on a capsule's segment", "across"].iter().any(|t| what.contains(t));
            if !tied {
                assert!(
                    (n[0] - m[0]).abs() < 1e-12 && (n[1] - m[1]).abs() < 1e-12,
                    "{what}: normal {n:?}, expected {m:?}"
                );
            }
        }
        // Swapping a and b flips the normal and keeps the depth.
        let swapped = contact(&b, &a).map(|(n, d)| ([-n[0], -n[1]], d));
        common::check_case(what, &a, &b, swapped, want, 1e-12);
        // The sign of the separation says the same, and its size is the depth.
        let sep = separation(&a, &b);
        match want {
            Some((_, depth)) => assert!((sep + depth).abs() <= 1e-12, "{what}: separation {sep}"),
            None => assert!(sep > 0.0, "{what}: separation {sep}"),
        }
    }
}

#[test]
fn integer_circles_touch_exactly() {
    // Pythagorean triples: centre distances that are integers, touching at exactly r_a + r_b.
    for (dx, dy, d) in [(3.0, 4.0, 5.0), (5.0, 12.0, 13.0), (8.0, 15.0, 17.0), (20.0, 21.0, 29.0)] {
        for ra in [1.0, 2.0, d - 1.0] {
            let a = Polygon::circle([7.0, -3.0], ra).unwrap();
            let touching = Polygon::circle([7.0 + dx, -3.0 + dy], d - ra).unwrap();
            assert_eq!(contact(&a, &touching).map(|c| c.1), Some(0.0), "{dx},{dy} r {ra}");
            let apart = Polygon::circle([7.0 + dx, -3.0 + dy], d - ra - 1.0 / 1024.0);
            if let Ok(apart) = apart {
                assert!(!colliding(&a, &apart), "{dx},{dy} r {ra}");
            }
        }
    }
}

#[test]
fn filtered_detection_is_unfiltered_minus_the_excluded_pairs() {
    for kind in [SceneKind::Shapes, SceneKind::Agents, SceneKind::Dense] {
        let polygons = generate(kind, 3000, 5);
        let filters: Vec<Filter> = (0..polygons.len())
            .map(|i| Filter {
                category: 1 << (i % 3),
                mask: if i % 5 == 0 { 0b011 } else { u32::MAX },
                group: [0, 0, 1, -1, 2][i % 5],
            })
            .collect();
        let all = reference::detect(&polygons, &DetectOptions::default()).contacts;
        let kept =
            satgpu::reference::detect(&polygons, &DetectOptions::default().with_filters(filters.to_vec())).contacts;
        let want: Vec<_> =
            all.iter().filter(|c| filters[c.a as usize].should_collide(&filters[c.b as usize])).copied().collect();
        assert_eq!(kept, want, "{kind}");
        assert!(
            kept.len() < all.len() && !kept.is_empty(),
            "{kind}: the filters must exclude some pairs and keep some"
        );
    }
}
