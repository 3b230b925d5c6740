//! Issue 43, neighbours within a radius, the k nearest of each body: the GPU's lists against the
//! reference's on every kind (first and last body, k = 1, k above the neighbours, r = 0, a body
//! with none, bodies of several shapes, filters), and against an exact brute force on circles of
//! one radius (the k nearest centres).

mod common;

use satgpu::gpu;
use satgpu::neighbours::Neighbours;
use satgpu::scene::{generate, generate_bodies, SceneKind};
use satgpu::{reference, validate, Body, DetectOptions, Filter, Polygon, Transform};

/// The options of a one-shot call with `filters`.
fn opts(filters: &[Filter]) -> DetectOptions {
    DetectOptions::default().with_filters(filters.to_vec())
}

/// The band of the pair (a, b) at radius r, as validate::compare has it under a margin.
fn band<B: AsRef<[Polygon]>>(bodies: &[B], a: u32, b: u32, r: f64) -> f64 {
    validate::body_band(bodies[a as usize].as_ref(), bodies[b as usize].as_ref()) + 2.0 * f64::from(f32::EPSILON) * r
}

/// Checks the GPU's lists against the reference's, all within r (`k` None), under the band: the
/// same neighbours but for those within the band of r, distances within the band, normals
/// unit, each list sorted by (distance, neighbour) and each row's reverse present.
fn check_all<B: AsRef<[Polygon]>>(bodies: &[B], got: &Neighbours, want: &Neighbours, r: f64, what: &str) {
    assert_eq!((got.len(), want.len()), (bodies.len(), bodies.len()), "{what}: one list per body");
    for i in 0..bodies.len() {
        let (gn, gd, gnorm) = got.of(i);
        let (wn, wd, _) = want.of(i);
        for w in 1..gn.len() {
            assert!((gd[w - 1], gn[w - 1]) < (gd[w], gn[w]), "{what}: body {i}'s list is not sorted");
        }
        for (j, &n) in gn.iter().enumerate() {
            let len = gnorm[j][0].hypot(gnorm[j][1]);
            assert!((len - 1.0).abs() < 1e-5, "{what}: body {i}, neighbour {n}: normal of length {len}");
            let (rn, rd, rnorm) = got.of(n as usize);
            let back =
                rn.iter().position(|&m| m as usize == i).unwrap_or_else(|| panic!("{what}: ({i}, {n}) one way only"));
            assert_eq!(
                (rd[back], rnorm[back]),
                (gd[j], [-gnorm[j][0] + 0.0, -gnorm[j][1] + 0.0]),
                "{what}: ({i}, {n})"
            );
            let tol = band(bodies, i as u32, n, r);
            match wn.iter().position(|&m| m == n) {
                Some(p) => assert!((gd[j] - wd[p]).abs() <= tol, "{what}: ({i}, {n}) at {} against {}", gd[j], wd[p]),
                None => assert!((gd[j] - r).abs() <= tol, "{what}: ({i}, {n}) at {} only on the GPU", gd[j]),
            }
        }
        for (p, &n) in wn.iter().enumerate() {
            if !gn.contains(&n) {
                assert!((wd[p] - r).abs() <= band(bodies, i as u32, n, r), "{what}: ({i}, {n}) at {} missing", wd[p]);
            }
        }
    }
}

/// The k nearest: each GPU list is the first k of the GPU's whole list, each reference list the
/// first k of the reference's, and the two name the same neighbours wherever the reference's
/// k-th and next distances, and every distance and r, lie more than the bands apart (those
/// bodies are counted and returned).
fn check_k<B: AsRef<[Polygon]>>(
    bodies: &[B],
    k: usize,
    r: f64,
    all: [&Neighbours; 2],
    nearest: [&Neighbours; 2],
    what: &str,
) -> usize {
    let mut decided = 0;
    for i in 0..bodies.len() {
        for (whole, first) in all.iter().zip(&nearest) {
            let (an, ad, _) = whole.of(i);
            let (fnb, fd, _) = first.of(i);
            let m = an.len().min(k);
            assert_eq!((fnb, fd), (&an[..m], &ad[..m]), "{what}: body {i}: the k nearest are the list's first k");
        }
        let (wn, wd, _) = all[1].of(i);
        let tol = |n: u32| band(bodies, i as u32, n, r);
        let near_r = wn.iter().zip(wd).any(|(&n, &d)| (d - r).abs() <= 2.0 * tol(n));
        let tied = wn.len() > k && (wd[k] - wd[k - 1]).abs() <= 2.0 * (tol(wn[k]) + tol(wn[k - 1]));
        if !near_r && !tied {
            let mut g = nearest[0].of(i).0.to_vec();
            let mut w = nearest[1].of(i).0.to_vec();
            g.sort_unstable();
            w.sort_unstable();
            assert_eq!(g, w, "{what}: body {i}'s {k} nearest");
            decided += 1;
        }
    }
    decided
}

/// Both sides' lists for `bodies` at radius r, all of them and the k nearest for each k;
/// returns the share of (body, k) whose k nearest were decided (see [`check_k`]).
fn compare<B: AsRef<[Polygon]>>(bodies: &[B], r: f64, filters: &[Filter], what: &str) -> f64 {
    let g = common::gpu();
    let got = gpu::neighbours(&g, bodies, r, None, &opts(filters)).unwrap();
    let want = reference::neighbours(bodies, r, None, &opts(filters));
    check_all(bodies, &got, &want, r, what);
    let (first, last) = (got.of(0).0, got.of(bodies.len() - 1).0);
    assert!(!first.is_empty() && !last.is_empty(), "{what}: first and last have neighbours");
    let most = (0..bodies.len()).map(|i| got.of(i).0.len()).max().unwrap();
    let mut decided = 0;
    for k in [1, 3, most + 1] {
        let g_k = gpu::neighbours(&g, bodies, r, Some(k), &opts(filters)).unwrap();
        let w_k = reference::neighbours(bodies, r, Some(k), &opts(filters));
        decided += check_k(bodies, k, r, [&got, &want], [&g_k, &w_k], &format!("{what}, k {k}"));
    }
    decided as f64 / (3 * bodies.len()) as f64
}

/// The median AABB width of the shapes (strays and giants aside).
fn typical_width(polygons: &[Polygon]) -> f64 {
    let mut w: Vec<f64> = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).collect();
    w.sort_by(f64::total_cmp);
    w[w.len() / 2]
}

#[test]
fn neighbours_agree_with_the_reference_on_every_kind() {
    // Not `scales`: one radius across sizes from 1e-29 to 1e30 makes far bodies neighbours of
    // tiny ones, beyond what the margin's distances are held to (as in tests/proximity.rs);
    // not `round`, whose f64 reference takes minutes.
    for kind in SceneKind::ALL.into_iter().filter(|&k| k != SceneKind::Round && k != SceneKind::Scales) {
        let mut polygons = generate(kind, 1500, 5);
        let w = typical_width(&polygons);
        // The first and the last body overlap the next and the one before (moved by a tenth of
        // its width).
        let nudged = |p: &Polygon| {
            let b = p.aabb();
            p.transformed(&Transform { x: 0.1 * (b.max[0] - b.min[0]), y: 0.0, angle: 0.0 })
        };
        polygons[0] = nudged(&polygons[1]);
        polygons.push(nudged(&polygons[polygons.len() - 1]));
        // A body far from every other: no neighbours at any radius here.
        polygons.insert(700, Polygon::circle([1e6 * w, -1e6 * w], w).unwrap());
        for r in [0.0, 0.5 * w, 2.0 * w] {
            let what = format!("{kind}, r {r}");
            let decided = compare(&polygons, r, &[], &what);
            // Most bodies' k nearest are decided, but at exact touching (r = 0) and on the grid,
            // whose neighbours lie at a few exactly equal distances (ties, decided by index).
            assert!(r == 0.0 || kind == SceneKind::Grid || decided > 0.5, "{what}: {decided} of the k nearest decided");
            let g = common::gpu();
            assert!(
                gpu::neighbours(&g, &polygons, r, None, &DetectOptions::default()).unwrap().of(700).0.is_empty(),
                "{what}: the lone body"
            );
        }
    }
}

#[test]
fn neighbours_of_bodies_of_several_shapes_and_with_filters() {
    let mut bodies: Vec<Body> = generate_bodies(SceneKind::Rooms, 1200, 3);
    // The first and the last body overlap the next and the one before.
    let nudge = Transform { x: 0.05, y: 0.0, angle: 0.0 };
    bodies[0] = bodies[1].transformed(&nudge);
    bodies.push(bodies[bodies.len() - 1].transformed(&nudge));
    let polygons: Vec<Polygon> = bodies.iter().flat_map(|b| b.shapes().to_vec()).collect();
    let r = 0.5 * typical_width(&polygons);
    assert!(compare(&bodies, r, &[], "rooms") > 0.5);
    // The first and the last body in one negative group: never each other's neighbours.
    let mut filters = vec![Filter::DEFAULT; bodies.len()];
    let last = bodies.len() - 1;
    (filters[0].group, filters[last].group) = (-3, -3);
    assert!(compare(&bodies, r, &filters, "rooms, filtered") > 0.5);
}

#[test]
fn the_k_nearest_circles_of_one_radius_are_the_nearest_centres() {
    // Circles of radius 0.3 on a jittered grid: the k nearest by centre distance, brute force.
    let mut centres = vec![];
    for i in 0..40 {
        for j in 0..40 {
            let jitter = |s: u64| {
                let mut z = ((i * 40 + j) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(s);
                z = (z ^ (z >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                (z >> 40) as f64 / (1u64 << 24) as f64 * 0.4 - 0.2
            };
            centres.push([i as f64 + jitter(1), j as f64 + jitter(2)]);
        }
    }
    let circles: Vec<Polygon> = centres.iter().map(|&c| Polygon::circle(c, 0.3).unwrap()).collect();
    let (r, k) = (1.5, 6);
    let got = gpu::neighbours(&common::gpu(), &circles, r, Some(k), &DetectOptions::default()).unwrap();
    let mut decided = 0;
    for (i, c) in centres.iter().enumerate() {
        let mut near: Vec<(f64, u32)> = centres
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(j, d)| ((d[0] - c[0]).hypot(d[1] - c[1]) - 0.6, j as u32))
            .filter(|&(d, _)| d <= r)
            .collect();
        near.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        // Whether the k-th and the next centre lie within f32 rounding of each other.
        let tied = near.len() > k && near[k].0 - near[k - 1].0 < 1e-5;
        near.truncate(k);
        let (gn, gd, _) = got.of(i);
        assert_eq!(gn.len(), near.len(), "circle {i}");
        for ((&n, &d), &(want_d, want_n)) in gn.iter().zip(gd).zip(&near) {
            assert!((d - want_d).abs() < 1e-5, "circle {i}: neighbour {n} at {d}, brute force {want_n} at {want_d}");
        }
        if tied {
            continue;
        }
        let mut g: Vec<u32> = gn.to_vec();
        let mut w: Vec<u32> = near.iter().map(|x| x.1).collect();
        g.sort_unstable();
        w.sort_unstable();
        assert_eq!(g, w, "circle {i}'s {k} nearest");
        decided += 1;
    }
    assert!(decided > centres.len() / 2, "{decided} of {} circles decided", centres.len());
}

/// The gather on the GPU (each body's rows ranked there, the kept ones read back) gives, bit for
/// bit, what the host's gather gives from the same frame's pairs: every kind, compound bodies
/// with filters, k = 1, 3 and all, a radius that makes the first frame outgrow the world's
/// buffers, and no bodies.
#[test]
fn the_gather_on_the_gpu_equals_the_hosts() {
    let g = common::gpu();
    let same = |got: &Neighbours, want: &Neighbours, what: &str| {
        assert_eq!((&got.offsets, &got.neighbour), (&want.offsets, &want.neighbour), "{what}");
        let bits = |n: &Neighbours| -> Vec<u64> {
            n.distance.iter().chain(n.normal.iter().flatten()).map(|v| v.to_bits()).collect()
        };
        let (g, w) = (bits(got), bits(want));
        if let Some(at) = (0..g.len()).find(|&i| g[i] != w[i]) {
            let (gd, wd) = (f64::from_bits(g[at]), f64::from_bits(w[at]));
            panic!("{what}: value {at} of {} (distances, then normals): GPU {gd:?}, host {wd:?}", g.len());
        }
    };
    for kind in SceneKind::ALL.into_iter().filter(|&k| k != SceneKind::Round && k != SceneKind::Scales) {
        let polygons = generate(kind, 1200, 9);
        let w = typical_width(&polygons);
        for (r, k) in [(0.5 * w, None), (0.5 * w, Some(1)), (6.0 * w, Some(3)), (3.0 * w, None)] {
            let what = format!("{kind}, r {r}, k {k:?}");
            let got = gpu::neighbours(&g, &polygons, r, k, &DetectOptions::default()).unwrap();
            let frame = gpu::detect(&g, &polygons, &satgpu::DetectOptions::default().with_margin(r)).unwrap();
            same(&got, &Neighbours::from_contacts(polygons.len(), &frame.contacts, k), &what);
        }
    }
    let bodies = generate_bodies(SceneKind::Rooms, 600, 4);
    let filters: Vec<Filter> =
        (0..bodies.len()).map(|i| Filter { group: -((i % 3) as i32), ..Filter::default() }).collect();
    for k in [None, Some(2)] {
        let got = gpu::neighbours(&g, &bodies, 0.3, k, &opts(&filters)).unwrap();
        let options = satgpu::DetectOptions::default().with_margin(0.3).with_filters(filters.clone());
        let frame = gpu::detect(&g, &bodies, &options).unwrap();
        same(&got, &Neighbours::from_contacts(bodies.len(), &frame.contacts, k), &format!("rooms, k {k:?}"));
    }
    let none: Vec<Polygon> = vec![];
    assert_eq!(gpu::neighbours(&g, &none, 1.0, None, &DetectOptions::default()).unwrap().offsets, [0]);
}
