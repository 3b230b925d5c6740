//! Issue 25: concave outlines split into convex parts. Property tests on random simple polygons
//! of 4 to 2,000 vertices, stars, spirals, combs, collinear runs, nearly collinear vertices and
//! long thin spikes: the parts are valid convex polygons of the outline's own vertices, cover it
//! exactly (by area, and by points sampled inside and outside), number at most 2r + 1, and come
//! out the same every time and in either winding.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::geometry::{decompose, PolygonError, MAX_OUTLINE_VERTICES};
use satgpu::Polygon;
use std::f64::consts::TAU;

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Signed area (positive counter-clockwise).
fn area(v: &[[f64; 2]]) -> f64 {
    0.5 * (0..v.len()).map(|i| cross([0.0, 0.0], v[i], v[(i + 1) % v.len()])).sum::<f64>()
}

/// Whether `q` is inside the outline `v` (even-odd crossings; points on the boundary either way).
fn inside(v: &[[f64; 2]], q: [f64; 2]) -> bool {
    let mut odd = false;
    for i in 0..v.len() {
        let (a, b) = (v[i], v[(i + 1) % v.len()]);
        if (a[1] > q[1]) != (b[1] > q[1]) && q[0] < a[0] + (q[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) {
            odd = !odd;
        }
    }
    odd
}

/// The distance from `q` to the outline's nearest edge.
fn boundary_distance(v: &[[f64; 2]], q: [f64; 2]) -> f64 {
    (0..v.len())
        .map(|i| {
            let (a, b) = (v[i], v[(i + 1) % v.len()]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let t = (((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
            (q[0] - a[0] - t * dx).hypot(q[1] - a[1] - t * dy)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Whether the convex counter-clockwise part contains `q`, `slack` outside its edges allowed
/// (negative: at least that far inside).
fn part_contains(p: &Polygon, q: [f64; 2], slack: f64) -> bool {
    let v = p.vertices();
    (0..v.len()).all(|i| {
        let (a, b) = (v[i], v[(i + 1) % v.len()]);
        cross(a, b, q) / (b[0] - a[0]).hypot(b[1] - a[1]) >= -slack
    })
}

/// The exact turn `o -> a -> b` (Shewchuk's predicate): its sign is right at every scale.
fn orient(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let c = |p: [f64; 2]| robust::Coord { x: p[0], y: p[1] };
    robust::orient2d(c(o), c(a), c(b))
}

/// Reflex vertices of the outline, straight ones not counted (decided exactly).
fn reflex(v: &[[f64; 2]]) -> usize {
    let s = area(v).signum();
    let n = v.len();
    (0..n).filter(|&i| s * orient(v[(i + n - 1) % n], v[i], v[(i + 1) % n]) < 0.0).count()
}

/// Decomposes `v` and checks every property; returns the part count.
fn check(v: &[[f64; 2]], what: &str, rng: &mut ChaCha8Rng) -> usize {
    let parts = decompose(v).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(!parts.is_empty(), "{what}");
    // The parts are convex polygons (validated by Polygon::new) of the outline's own vertices.
    for p in &parts {
        assert!(p.vertices().len() >= 3 && p.radius() == 0.0);
        assert!(p.vertices().iter().all(|x| v.contains(x)), "{what}: a part has a vertex of its own");
        // Convex in exact arithmetic: every corner turns left.
        let (pv, m) = (p.vertices(), p.vertices().len());
        assert!(
            (0..m).all(|k| orient(pv[(k + m - 1) % m], pv[k], pv[(k + 1) % m]) > 0.0),
            "{what}: a part is not convex"
        );
    }
    let want = area(v).abs();
    let got: f64 = parts.iter().map(|p| area(p.vertices())).sum();
    assert!((got - want).abs() <= 1e-9 * want, "{what}: parts' area {got} against {want}");
    assert!(parts.len() <= 2 * reflex(v) + 1, "{what}: {} parts for {} reflex vertices", parts.len(), reflex(v));
    // Sampled points: inside the outline means in one part, outside means in none.
    let (lo, hi) = v.iter().fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), p| {
        ([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0]), hi[1].max(p[1])])
    });
    let size = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let eps = 1e-9 * size;
    let mut inner = 0;
    for _ in 0..400 {
        let q = [rng.random_range(lo[0]..=hi[0]), rng.random_range(lo[1]..=hi[1])];
        if boundary_distance(v, q) <= 1e3 * eps {
            continue;
        }
        let holding = parts.iter().filter(|p| part_contains(p, q, eps)).count();
        let strictly = parts.iter().filter(|p| part_contains(p, q, -eps)).count();
        if inside(v, q) {
            inner += 1;
            assert!(holding >= 1, "{what}: {q:?} is inside the outline but in no part");
            assert!(strictly <= 1, "{what}: {q:?} is inside {strictly} parts");
        } else {
            assert_eq!(holding, 0, "{what}: {q:?} is outside the outline but in a part");
        }
    }
    assert!(inner > 0 || want < 0.01 * size * size, "{what}: no sample fell inside");
    // The same parts every time, and the same area in the other winding.
    assert_eq!(decompose(v).unwrap(), parts, "{what}: not deterministic");
    let reversed: Vec<[f64; 2]> = v.iter().rev().copied().collect();
    let back = decompose(&reversed).unwrap_or_else(|e| panic!("{what} reversed: {e}"));
    let back_area: f64 = back.iter().map(|p| area(p.vertices())).sum();
    assert!((back_area - want).abs() <= 1e-9 * want, "{what} reversed");
    parts.len()
}

/// A random outline star-shaped about the origin: `n` distinct angles, no two consecutive ones
/// half a turn apart or more (so that it is simple), radii from `r_min` to 1.
fn star(rng: &mut ChaCha8Rng, n: usize, r_min: f64) -> Vec<[f64; 2]> {
    let angles = loop {
        let mut angles: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..TAU)).collect();
        angles.sort_by(f64::total_cmp);
        angles.dedup();
        let gaps = angles.windows(2).map(|w| w[1] - w[0]).chain([angles[0] + TAU - angles[angles.len() - 1]]);
        if gaps.fold(0.0, f64::max) < 0.9 * std::f64::consts::PI {
            break angles;
        }
    };
    angles
        .iter()
        .map(|&a| {
            let r = rng.random_range(r_min..=1.0);
            [r * a.cos(), r * a.sin()]
        })
        .collect()
}

/// A spiral arm of `turns` turns and width `w`, `n` vertices along each side.
fn spiral(n: usize, turns: f64, w: f64) -> Vec<[f64; 2]> {
    let at = |t: f64, r: f64| [r * t.cos(), r * t.sin()];
    let step = turns * TAU / (n - 1) as f64;
    let mut v: Vec<[f64; 2]> = (0..n).map(|i| i as f64 * step).map(|t| at(t, 1.0 + t)).collect();
    v.extend((0..n).rev().map(|i| i as f64 * step).map(|t| at(t, 1.0 + t + w)));
    v
}

/// A comb of `teeth` teeth (width 1, gaps 1, height `h`) on a base of height 1, with `extra`
/// collinear vertices along the base's bottom edge.
fn comb(teeth: usize, h: f64, extra: usize) -> Vec<[f64; 2]> {
    let len = (2 * teeth - 1) as f64;
    let mut v: Vec<[f64; 2]> = (0..=extra).map(|i| [len * i as f64 / (extra + 1) as f64, 0.0]).collect();
    v.push([len, 0.0]);
    for t in (0..teeth).rev() {
        let x = 2.0 * t as f64;
        v.extend([[x + 1.0, 1.0 + h], [x, 1.0 + h]]);
        if t > 0 {
            v.extend([[x, 1.0], [x - 1.0, 1.0]]);
        }
    }
    v
}

#[test]
fn random_stars_of_4_to_2000_vertices() {
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    let mut total = 0;
    for n in [4, 5, 6, 8, 12, 20, 50, 100, 300, 1000, 2000] {
        for k in 0..3 {
            let r_min = [0.05, 0.3, 0.8][k];
            let v = star(&mut rng, n, r_min);
            total += check(&v, &format!("star of {n}, radii from {r_min}"), &mut rng);
        }
    }
    assert!(total > 100);
}

#[test]
fn spirals_combs_and_collinear_runs() {
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    for (n, turns) in [(10, 0.8), (100, 2.0), (1000, 4.0)] {
        check(&spiral(n, turns, 2.0), &format!("spiral {n}"), &mut rng);
    }
    for (teeth, extra) in [(2, 0), (10, 3), (200, 50)] {
        let v = comb(teeth, 5.0, extra);
        check(&v, &format!("comb of {teeth}"), &mut rng);
    }
    // A square with 100 collinear vertices along every side is the square.
    let side = |i: usize| i as f64 / 100.0;
    let mut square: Vec<[f64; 2]> = (0..100).map(|i| [side(i), 0.0]).collect();
    square.extend((0..100).map(|i| [1.0, side(i)]));
    square.extend((0..100).map(|i| [1.0 - side(i), 1.0]));
    square.extend((0..100).map(|i| [0.0, 1.0 - side(i)]));
    let parts = decompose(&square).unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].vertices().len(), 4);
    check(&square, "square with collinear runs", &mut rng);
}

#[test]
fn nearly_collinear_vertices_and_thin_spikes() {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    // A bumpy floor: 1,500 vertices along y = 0 jittered by 1e-13 to 1e-6 of the length.
    for jitter in [1e-13, 1e-10, 1e-6] {
        let mut v: Vec<[f64; 2]> =
            (0..1500).map(|i| [i as f64, jitter * 1500.0 * rng.random_range(-1.0..1.0)]).collect();
        v.extend([[1499.0, 300.0], [0.0, 300.0]]);
        check(&v, &format!("floor jittered by {jitter}"), &mut rng);
    }
    // Long thin spikes out of a square: 100 long, 1e-4 and 1e-7 wide.
    for width in [1e-4, 1e-7] {
        let v = vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 0.5 - width],
            [101.0, 0.5],
            [1.0, 0.5 + width],
            [1.0, 1.0],
            [0.5 + width, 1.0],
            [0.5, 101.0],
            [0.5 - width, 1.0],
            [0.0, 1.0],
        ];
        check(&v, &format!("spikes {width} wide"), &mut rng);
    }
    // A regular 2,000-gon with every other vertex pulled in a little: a fine crown.
    let crown: Vec<[f64; 2]> = (0..2000)
        .map(|i| {
            let (a, r) = (i as f64 * TAU / 2000.0, if i % 2 == 0 { 1.0 } else { 0.999 });
            [r * a.cos(), r * a.sin()]
        })
        .collect();
    check(&crown, "crown of 2,000", &mut rng);
}

#[test]
fn convex_outlines_are_one_part_and_large_ones_are_split_at_the_vertex_limit() {
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let ring =
        |n: usize| -> Vec<[f64; 2]> { (0..n).map(|i| i as f64 * TAU / n as f64).map(|a| [a.cos(), a.sin()]).collect() };
    assert_eq!(decompose(&ring(1000)).unwrap().len(), 1);
    // Past the 1,024 vertices of a part, a convex outline still splits into valid parts.
    let parts = decompose(&ring(3000)).unwrap();
    assert!(parts.len() >= 3 && parts.iter().all(|p| p.vertices().len() <= 1024), "{} parts", parts.len());
    let got: f64 = parts.iter().map(|p| area(p.vertices())).sum();
    assert!((got - area(&ring(3000))).abs() <= 1e-9 * got);
    check(&star(&mut rng, 5, 0.9), "a small star", &mut rng);
}

#[test]
fn bad_outlines_are_typed_errors_naming_the_place() {
    let figure_eight = [[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]];
    assert_eq!(decompose(&figure_eight), Err(PolygonError::SelfIntersecting { first: 0, second: 2 }));
    // Edges 1 and 5 cross far from the start.
    let crossing = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [4.0, -1.0], [3.0, 10.0], [0.0, 10.0]];
    assert!(matches!(decompose(&crossing), Err(PolygonError::SelfIntersecting { .. })));
    let line = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]];
    assert!(matches!(decompose(&line), Err(PolygonError::SelfIntersecting { .. } | PolygonError::ZeroArea)));
    let repeated = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 1.0]];
    assert!(matches!(decompose(&repeated), Err(PolygonError::DuplicateVertex { vertex: 3, .. })));
    // A vertex visited twice (two squares touching at a corner) touches itself.
    let twice = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0], [0.0, 1.0]];
    assert!(matches!(decompose(&twice), Err(PolygonError::SelfIntersecting { .. })));
    let nan = [[0.0, 0.0], [1.0, f64::NAN], [0.0, 1.0]];
    assert!(matches!(decompose(&nan), Err(PolygonError::NonFinite { vertex: 1, .. })));
    let too_many: Vec<[f64; 2]> = (0..MAX_OUTLINE_VERTICES + 1).map(|i| [i as f64, (i % 2) as f64]).collect();
    assert!(matches!(decompose(&too_many), Err(PolygonError::TooManyVertices { .. })));
    assert_eq!(
        PolygonError::SelfIntersecting { first: 0, second: 2 }.at(7).to_string(),
        "polygon 7 intersects itself: edges 0 and 2 cross (edge k runs from vertex k to the next)"
    );
}

/// Issue 47: a simple comb was refused ("could not be split ... within f64 precision"): rotated,
/// its tooth tips lie on one line and its roots on another, collinear vertices that are not
/// neighbours. Every decision is exact now, so it and every outline above split rotated by many
/// angles, scaled from 1e-20 to 1e20, with teeth exactly and nearly collinear.
#[test]
fn rotated_and_scaled_outlines_with_collinear_vertices_are_split() {
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    let reported = [
        [89.44391422237192, 65.63468399058968],
        [89.95350355252916, 66.10296379920334],
        [89.4852237439155, 66.61255312936058],
        [89.43426481089978, 66.56572514849921],
        [89.76206067692934, 66.20901261738913],
        [89.38330587788406, 66.51889716763785],
        [89.33234694486833, 66.47206918677648],
        [89.66014281089788, 66.11535665566642],
        [89.2813880118526, 66.42524120591511],
        [89.23042907883688, 66.37841322505375],
        [89.55822494486644, 66.02170069394369],
        [89.17947014582116, 66.33158524419238],
        [89.12851121280544, 66.28475726333102],
        [89.456307078835, 65.92804473222095],
        [89.0775522797897, 66.23792928246965],
        [88.97563441375826, 66.14427332074692],
    ];
    check(&reported, "the reported comb", &mut rng);
    // Sixteen-vertex combs like it: teeth whose tips and roots lie on two lines.
    let teeth = |n: usize, jitter: f64, rng: &mut ChaCha8Rng| -> Vec<[f64; 2]> {
        let mut v = vec![[0.0, 0.0], [2.0 * n as f64, 0.0]];
        for t in (0..n).rev() {
            let x = 2.0 * t as f64;
            let mut j = || jitter * rng.random_range(-1.0..1.0);
            v.extend([[x + 2.0, 2.0 + j()], [x + 1.0, 0.5 + j()]]);
        }
        v.push([0.0, 2.0]);
        v
    };
    let mut outlines: Vec<(String, Vec<[f64; 2]>)> = vec![
        ("comb".into(), comb(4, 3.0, 2)),
        ("saw".into(), teeth(7, 0.0, &mut rng)),
        ("saw, nearly collinear".into(), teeth(7, 1e-15, &mut rng)),
        ("saw, jittered 1e-9".into(), teeth(7, 1e-9, &mut rng)),
        ("spiral".into(), spiral(20, 1.5, 2.0)),
        ("star".into(), star(&mut rng, 30, 0.3)),
        ("notched square".into(), vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 2.0], [0.0, 4.0]]),
        (
            "spike".into(),
            vec![[0.0, 0.0], [1.0, 0.0], [1.0, 0.5 - 1e-7], [101.0, 0.5], [1.0, 0.5 + 1e-7], [1.0, 1.0], [0.0, 1.0]],
        ),
    ];
    let mut square: Vec<[f64; 2]> = (0..5).map(|i| [i as f64 / 5.0, 0.0]).collect();
    square.extend([[1.0, 0.0], [1.0, 1.0], [0.5, 0.5], [0.0, 1.0]]);
    outlines.push(("collinear run".into(), square));
    let mut splits = 0;
    for (name, v) in &outlines {
        for k in 0..61 {
            let angle = k as f64 * TAU / 61.0 + 0.001 * k as f64;
            let (sin, cos) = angle.sin_cos();
            for scale in [1e-20, 1e-7, 1.0, 3e5, 1e20] {
                let placed: Vec<[f64; 2]> = v
                    .iter()
                    .map(|p| [scale * (p[0] * cos - p[1] * sin + 89.4), scale * (p[0] * sin + p[1] * cos + 65.6)])
                    .collect();
                check(&placed, &format!("{name} turned by {angle:.4}, scaled by {scale:e}"), &mut rng);
                splits += 1;
            }
        }
    }
    assert_eq!(splits, outlines.len() * 61 * 5);
}
