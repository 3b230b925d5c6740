//! Issue 44, shape casts: the f64 reference (`reference::cast_shapes`) by hand (parallel edges,
//! through a vertex, grazing, starting in contact, crossing cores, every kind, filters on the
//! first and the last body, ties), at 1e-20 and 1e20, against itself (A along d against B is B
//! along -d against A; at the hit the shapes touch), a circle cast against a ray cast at every
//! shape grown by the circle's radius, long casts onto corners and sides (unit normals), and bad
//! casts.

mod common;

use satgpu::reference::{cast_rays, cast_shapes, distance_to_shape, signed_distance};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Error, Filter, Polygon, Ray, RayHit, ShapeCast, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

/// The one hit of one cast.
fn cast1(scene: &[Polygon], filters: &[Filter], shape: &Polygon, cast: ShapeCast) -> Option<RayHit> {
    cast_shapes(scene, filters, std::slice::from_ref(shape), &[cast])[0]
}

fn close(a: [f64; 2], b: [f64; 2], tol: f64) -> bool {
    (a[0] - b[0]).abs() <= tol && (a[1] - b[1]).abs() <= tol
}

#[test]
fn casts_by_hand() {
    let square = rect(-0.5, -0.5, 0.5, 0.5);
    let right = |origin: [f64; 2], length: f64| ShapeCast::new(0, origin, [1.0, 0.0], length);
    // Parallel edges: the square's right side meets the wall's left side after 2.5.
    let wall = [rect(3.0, -1.0, 4.0, 1.0)];
    let h = cast1(&wall, &[], &square, right([0.0, 0.0], 10.0)).unwrap();
    assert_eq!((h.body, h.fraction, h.normal, h.point[0]), (0, 0.25, [-1.0, 0.0], 3.0), "{h:?}");
    // Too short, exactly long enough, away, no length.
    assert!(cast1(&wall, &[], &square, right([0.0, 0.0], 2.4)).is_none());
    assert_eq!(cast1(&wall, &[], &square, right([0.0, 0.0], 2.5)).unwrap().fraction, 1.0);
    assert!(cast1(&wall, &[], &square, ShapeCast::new(0, [0.0, 0.0], [-1.0, 0.0], 10.0)).is_none());
    assert!(cast1(&wall, &[], &square, right([0.0, 0.0], 0.0)).is_none());
    // Through a vertex: the square turned by 45 degrees leads with a corner.
    let turned = ShapeCast { angle: std::f64::consts::FRAC_PI_4, ..right([0.0, 0.0], 10.0) };
    let h = cast1(&wall, &[], &square, turned).unwrap();
    assert!((h.fraction * 10.0 - (3.0 - 0.5f64.sqrt())).abs() < 1e-12, "{h:?}");
    assert!(close(h.point, [3.0, 0.0], 1e-12) && h.normal == [-1.0, 0.0], "{h:?}");
    // The wall's corner onto the square's face: a triangle pointing left, its tip at (3, 0).
    let tip = [Polygon::new(vec![[3.0, 0.0], [4.0, -1.0], [4.0, 1.0]]).unwrap()];
    let h = cast1(&tip, &[], &square, right([0.0, 0.0], 10.0)).unwrap();
    assert_eq!((h.fraction, h.point), (0.25, [3.0, 0.0]), "{h:?}");
    assert!(close(h.normal, [-1.0, 0.0], 1e-12), "{h:?}");
    // Grazing: the square's top slides along the wall's bottom and touches its corner; a
    // billionth lower, never.
    let above = [rect(2.0, 0.5, 3.0, 1.5)];
    let h = cast1(&above, &[], &square, right([0.0, 0.0], 10.0)).unwrap();
    assert_eq!((h.fraction, h.point), (0.15, [2.0, 0.5]), "{h:?}");
    assert!(cast1(&above, &[], &square, right([0.0, -1e-9], 10.0)).is_none());
    // Starting in contact (touching, overlapping, cores crossing with no vertex inside): at 0,
    // at the cast's origin, no normal.
    let start = |scene: &[Polygon], shape: &Polygon| cast1(scene, &[], shape, right([0.0, 0.0], 10.0));
    let at_start = Some(RayHit { body: 0, fraction: 0.0, point: [0.0, 0.0], normal: [0.0, 0.0] });
    assert_eq!(start(&[rect(0.5, -1.0, 1.5, 1.0)], &square), at_start);
    assert_eq!(start(&[rect(0.2, -1.0, 1.5, 1.0)], &square), at_start);
    assert_eq!(start(&[rect(-0.1, -2.0, 0.1, 2.0)], &rect(-2.0, -0.1, 2.0, 0.1)), at_start);
    // Rounded kinds: a capsule up into a capsule, a circle into a rounded box's corner.
    let capsule = Polygon::capsule([-1.0, 0.0], [1.0, 0.0], 0.5).unwrap();
    let over = [Polygon::capsule([-1.0, 3.0], [1.0, 3.0], 0.5).unwrap()];
    let h = cast1(&over, &[], &capsule, ShapeCast::new(0, [0.5, 0.0], [0.0, 1.0], 4.0)).unwrap();
    assert_eq!((h.fraction, h.normal, h.point[1]), (0.5, [0.0, -1.0], 2.5), "{h:?}");
    let ball = Polygon::circle([0.0, 0.0], 1.0).unwrap();
    let rounded = [Polygon::rounded(vec![[3.0, 3.0], [4.0, 3.0], [4.0, 4.0], [3.0, 4.0]], 1.0).unwrap()];
    let h = cast1(&rounded, &[], &ball, ShapeCast::new(0, [0.0, 0.0], [1.0, 1.0], 10.0)).unwrap();
    let t = 3.0 * 2f64.sqrt() - 2.0;
    let s = 0.5f64.sqrt();
    assert!((h.fraction * 10.0 - t).abs() < 1e-12 && close(h.normal, [-s, -s], 1e-12), "{h:?}");
    assert!(close(h.point, [3.0 - s, 3.0 - s], 1e-12), "{h:?}");
    // A segment of radius 0 cast edge-on into a segment: the ends meet.
    let stick = Polygon::segment([-1.0, 0.0], [1.0, 0.0], 0.0).unwrap();
    let line = [Polygon::segment([3.0, 0.0], [5.0, 0.0], 0.0).unwrap()];
    let h = cast1(&line, &[], &stick, right([0.0, 0.0], 10.0)).unwrap();
    assert_eq!((h.fraction, h.point), (0.2, [3.0, 0.0]), "{h:?}");
}

#[test]
fn casts_take_the_nearest_then_the_lowest_body_and_apply_filters() {
    // Bodies 1 and 2 are the same square, a tie won by body 1; body 0 lies beyond them.
    let scene = [rect(5.0, 0.0, 6.0, 1.0), rect(2.0, 0.0, 3.0, 1.0), rect(2.0, 0.0, 3.0, 1.0)];
    let ball = Polygon::circle([0.0, 0.0], 0.25).unwrap();
    let cast = ShapeCast::new(0, [0.0, 0.5], [1.0, 0.0], 100.0);
    let back = ShapeCast::new(0, [10.0, 0.5], [-1.0, 0.0], 100.0);
    let bodies = |filters: &[Filter], casts: &[ShapeCast]| {
        cast_shapes(&scene, filters, std::slice::from_ref(&ball), casts)
            .iter()
            .map(|h| h.map(|h| h.body))
            .collect::<Vec<_>>()
    };
    assert_eq!(bodies(&[], &[cast, back]), [Some(1), Some(0)]);
    // The first body alone in category 2, then the last.
    let only = |mask: u32, c: ShapeCast| ShapeCast { filter: Filter { mask, ..Filter::DEFAULT }, ..c };
    let mut first = vec![Filter::DEFAULT; 3];
    first[0].category = 2;
    assert_eq!(bodies(&first, &[only(!2, back), only(2, cast), only(0, cast)]), [Some(1), Some(0), None]);
    let mut last = vec![Filter::DEFAULT; 3];
    last[2].category = 2;
    assert_eq!(bodies(&last, &[only(2, cast), only(!2, cast), cast]), [Some(2), Some(1), Some(1)]);
}

#[test]
fn casts_keep_their_answers_at_tiny_and_huge_scales() {
    let shapes = [
        rect(-0.5, -0.5, 0.5, 0.5),
        Polygon::capsule([-1.0, 0.0], [1.0, 0.0], 0.5).unwrap(),
        Polygon::circle([0.0, 0.0], 0.75).unwrap(),
    ];
    let scene = [
        rect(3.0, -1.0, 4.0, 1.0),
        Polygon::new(vec![[0.0, 4.0], [1.0, 5.0], [-1.0, 5.5]]).unwrap(),
        Polygon::rounded(vec![[-4.0, -1.0], [-3.0, -1.0], [-3.0, 0.0]], 0.25).unwrap(),
    ];
    let casts: Vec<ShapeCast> = (0..3 * 24)
        .map(|k| {
            let a = (k / 3) as f64 * 0.2618;
            ShapeCast { angle: 0.3 * k as f64, ..ShapeCast::new((k % 3) as u32, [0.0, 0.0], [a.cos(), a.sin()], 8.0) }
        })
        .collect();
    let at_one = cast_shapes(&scene, &[], &shapes, &casts);
    assert!(at_one.iter().flatten().count() >= 20, "{at_one:?}");
    for scale in [1e-20, 1e20] {
        let grow = |p: &Polygon| {
            Polygon::from_core(p.vertices().iter().map(|v| v.map(|x| x * scale)).collect(), p.radius() * scale).unwrap()
        };
        let (scene, shapes): (Vec<_>, Vec<_>) = (scene.iter().map(grow).collect(), shapes.iter().map(grow).collect());
        let casts: Vec<ShapeCast> =
            casts.iter().map(|c| ShapeCast { max_length: c.max_length * scale, ..*c }).collect();
        let scaled = cast_shapes(&scene, &[], &shapes, &casts);
        for (k, (a, b)) in at_one.iter().zip(&scaled).enumerate() {
            match (a, b) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    assert!(
                        a.body == b.body && (a.fraction - b.fraction).abs() < 1e-12,
                        "{scale}: cast {k}: {a:?} {b:?}"
                    );
                    assert!(
                        close(a.normal, b.normal, 1e-9) && close(a.point, b.point.map(|x| x / scale), 1e-9),
                        "{scale}: {k}"
                    );
                }
                _ => panic!("{scale}: cast {k}: {a:?} against {b:?}"),
            }
        }
    }
}

/// Shapes of every kind, with casts from around each at many angles and lengths.
fn scenes() -> Vec<(SceneKind, Vec<Polygon>)> {
    SceneKind::ALL.into_iter().map(|kind| (kind, generate(kind, 200, 5))).collect()
}

fn bounds(polygons: &[Polygon]) -> ([f64; 2], [f64; 2]) {
    polygons.iter().map(|p| p.aabb()).fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), b| {
        ([lo[0].min(b.min[0]), lo[1].min(b.min[1])], [hi[0].max(b.max[0]), hi[1].max(b.max[1])])
    })
}

#[test]
fn a_circle_cast_is_a_ray_cast_at_every_shape_grown_by_its_radius() {
    for (kind, polygons) in scenes() {
        let (lo, hi) = bounds(&polygons);
        let size = (hi[0] - lo[0]).max(hi[1] - lo[1]);
        let mut hits = 0;
        for r in [0.01 * size, 0.001 * size] {
            let grown: Vec<Polygon> =
                polygons.iter().map(|p| Polygon::from_core(p.vertices().to_vec(), p.radius() + r).unwrap()).collect();
            let circle = Polygon::circle([0.0, 0.0], r).unwrap();
            let rays: Vec<Ray> = (0..300)
                .map(|k| {
                    let o = [
                        lo[0] + (hi[0] - lo[0]) * ((k % 13) as f64 + 0.3) / 13.0,
                        lo[1] + (hi[1] - lo[1]) * ((k / 13) as f64 + 0.6) / 24.0,
                    ];
                    let a = k as f64 * 0.731;
                    Ray::new(o, [a.cos(), a.sin()], [0.05, 0.3][k % 2] * size)
                })
                .collect();
            let casts: Vec<ShapeCast> =
                rays.iter().map(|r| ShapeCast::new(0, r.origin, r.direction, r.max_length)).collect();
            let by_ray = cast_rays(&grown, &[], &rays);
            let by_cast = cast_shapes(&polygons, &[], &[circle], &casts);
            hits += by_ray.iter().flatten().count();
            for (k, (a, b)) in by_ray.iter().zip(&by_cast).enumerate() {
                let expect =
                    a.map(|h| RayHit { point: [h.point[0] - r * h.normal[0], h.point[1] - r * h.normal[1]], ..h });
                assert_eq!(&expect, b, "{kind:?}: ray {k}");
            }
        }
        // Few casts meet the sparse kinds' shapes.
        let least = if matches!(kind, SceneKind::Scales | SceneKind::Outliers) { 1 } else { 30 };
        assert!(hits >= least, "{kind:?}: only {hits} hits");
    }
}

#[test]
fn a_cast_of_a_against_b_is_b_cast_back_against_a_and_ends_touching() {
    let mut checked = 0;
    for (kind, polygons) in scenes() {
        // Each shape in its own frame (moved to the origin), cast from its place at others.
        for (i, a) in polygons.iter().enumerate().take(40) {
            let c = a.vertices()[0];
            let local =
                Polygon::from_core(a.vertices().iter().map(|v| [v[0] - c[0], v[1] - c[1]]).collect(), a.radius())
                    .unwrap();
            let b = &polygons[(i * 7 + 3) % polygons.len()];
            let aim = b.vertices()[b.vertices().len() / 2];
            let wobble = (i as f64 * 0.37).sin() * 0.3;
            let d = [aim[0] - c[0] - wobble * (aim[1] - c[1]), aim[1] - c[1] + wobble * (aim[0] - c[0])];
            let len = 2.0 * d[0].hypot(d[1]);
            if len == 0.0 {
                continue;
            }
            let forth = cast1(std::slice::from_ref(b), &[], &local, ShapeCast::new(0, c, d, len));
            // B in its own frame, cast back at A where it stands.
            let cb = b.vertices()[0];
            let b_local =
                Polygon::from_core(b.vertices().iter().map(|v| [v[0] - cb[0], v[1] - cb[1]]).collect(), b.radius())
                    .unwrap();
            let back = cast1(std::slice::from_ref(a), &[], &b_local, ShapeCast::new(0, cb, [-d[0], -d[1]], len));
            let scale = a.aabb().max[0].abs().max(b.aabb().max[0].abs()).max(len);
            match (forth, back) {
                (None, None) => {}
                (Some(f), Some(g)) => {
                    assert!((f.fraction - g.fraction).abs() * len <= 1e-9 * scale, "{kind:?} {i}: {f:?} {g:?}");
                    if f.fraction > 0.0 {
                        // Moved to the hit, A touches B: their distance is 0 (to rounding).
                        let t = f.fraction * len / d[0].hypot(d[1]);
                        let moved = a.transformed(&Transform { x: t * d[0], y: t * d[1], angle: 0.0 });
                        let (_, gap) = signed_distance(&moved, b);
                        assert!(gap.abs() <= 1e-9 * scale, "{kind:?} {i}: gap {gap} at {f:?}");
                        assert!((f.normal[0].hypot(f.normal[1]) - 1.0).abs() < 1e-9, "{kind:?} {i}: {f:?}");
                        checked += 1;
                    }
                }
                (f, g) => panic!("{kind:?} {i}: {f:?} against {g:?}"),
            }
        }
    }
    assert!(checked >= 100, "only {checked} casts hit");
}

/// Issue 62: a circle cast 1.1e5 onto a heptagon's vertex had a normal of length 0.99981 (the
/// meeting with the vertex's circle from `|oc|^2 - (oc . d)^2`, which cancels far away).
#[test]
fn long_casts_onto_corners_and_sides_give_unit_normals_on_their_bodies() {
    let (bodies, shapes, casts) = common::long_casts();
    let found = Polygon::new(bodies[0].vertices().to_vec()).unwrap();
    let circle = Polygon::circle([0.0, 0.0], 0.125).unwrap();
    let cast = ShapeCast::new(
        0,
        [-110040.421875, 18791.92578125],
        [0.9858946204185486, -0.16736739873886108],
        112252.43242257796,
    );
    let h = cast1(&[found], &[], &circle, cast).unwrap();
    assert!((h.normal[0].hypot(h.normal[1]) - 1.0).abs() <= 4.0 * f64::EPSILON, "{h:?}");
    // The exact answer, to 50 digits (mpmath): it had been 2.5e-10 short, its normal 2e-4.
    assert!((h.fraction - 0.9943668476523295).abs() <= 1e-15, "{h:?}");
    assert!(close(h.point, [5.31924295425415, 110.27442932128906], 1e-9), "{h:?}");
    assert!(close(h.normal, [-0.7221778503394289, 0.6917074182623181], 1e-9), "{h:?}");
    // Every long cast's and ray's hit: a unit normal against the way, at a point on the body.
    let rays: Vec<Ray> = casts.iter().map(|c| Ray::new(c.origin, c.direction, c.max_length)).collect();
    let hits = cast_shapes(&bodies, &[], &shapes, &casts).into_iter().zip(&casts);
    let ray_hits = cast_rays(&bodies, &[], &rays).into_iter().zip(&casts);
    let mut met = [0; 4];
    for (what, (hit, cast)) in hits.map(|h| ("cast", h)).chain(ray_hits.map(|h| ("ray", h))) {
        let Some(h) = hit else { continue };
        let n = h.normal;
        assert!((n[0].hypot(n[1]) - 1.0).abs() <= 4.0 * f64::EPSILON, "{what} {cast:?}: {h:?}");
        assert!(n[0] * cast.direction[0] + n[1] * cast.direction[1] <= 0.0, "{what} {cast:?}: {h:?}");
        let off = distance_to_shape(&bodies[h.body as usize], h.point);
        assert!(off <= 1e-9 * cast.max_length, "{what} {cast:?}: {h:?} {off} off its body");
        met[h.body as usize] += 1;
    }
    assert!(met.iter().all(|&m| m >= 100), "hits per body {met:?} of {} casts", casts.len());
}

#[test]
fn bad_casts_are_errors_naming_the_cast() {
    let ok = ShapeCast::new(0, [0.0, 0.0], [1.0, 0.0], 1.0);
    assert!(ok.check(0, 1).is_ok());
    let bad = [
        (ShapeCast { direction: [0.0, 0.0], ..ok }, "direction"),
        (ShapeCast { origin: [f64::NAN, 0.0], ..ok }, "origin"),
        (ShapeCast { max_length: -1.0, ..ok }, "length"),
        (ShapeCast { max_length: f64::NAN, ..ok }, "length"),
        (ShapeCast { angle: f64::INFINITY, ..ok }, "angle"),
        (ShapeCast { shape: 1, ..ok }, "shape 1"),
    ];
    for (cast, what) in bad {
        match cast.check(7, 1) {
            Err(Error::InvalidSetting { what: "cast", detail }) => {
                assert!(detail.starts_with("cast 7: ") && detail.contains(what), "{detail}");
            }
            other => panic!("{cast:?}: {other:?}"),
        }
    }
}
