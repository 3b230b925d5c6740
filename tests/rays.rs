//! Issue 26, ray casts on the GPU (`World::cast_rays`) against the f64 reference
//! (`reference::cast_rays`): by hand (along edges, through vertices, grazing circles, starting
//! inside, too short, ties, filters on the first body), on every scene kind with rays of many
//! directions and lengths, under transforms, with entries that outgrow their buffers, at 1e-20
//! and 1e30 scales, and bad input.

mod common;

use satgpu::gpu::{World, WorldOptions};
use satgpu::reference::{cast_rays, distance_to_shape, ray_shape};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Aabb, Filter, Polygon, Ray, RayHit, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn unit(d: [f64; 2]) -> [f64; 2] {
    let len = d[0].hypot(d[1]);
    [d[0] / len, d[1] / len]
}

/// The tolerance of a ray's answer on `body`: f32 at the scale of the body's coordinates, the
/// ray's origin and the distance along it (the GPU works in the body's frame, from f32 world
/// coordinates).
fn tolerance(body: &Polygon, ray: &Ray, t: f64) -> f64 {
    let scale = body.vertices().iter().chain([&ray.origin]).flat_map(|v| [v[0].abs(), v[1].abs()]).fold(t, f64::max)
        + body.radius();
    64.0 * f64::from(f32::EPSILON) * scale.max(1e-30)
}

/// The ray moved sideways by `by`.
fn shifted(ray: &Ray, by: f64) -> Ray {
    let d = unit(ray.direction);
    Ray { origin: [ray.origin[0] - d[1] * by, ray.origin[1] + d[0] * by], ..*ray }
}

/// Whether the ray barely meets (or barely misses) `body`: moved sideways by the tolerance
/// either way, or lengthened by it, the answer changes.
fn marginal(body: &Polygon, ray: &Ray, t: f64) -> bool {
    let tol = tolerance(body, ray, t);
    let d = unit(ray.direction);
    let meets = |r: &Ray, len: f64| ray_shape(body, r.origin, d, len).is_some();
    let here = meets(ray, ray.max_length);
    [shifted(ray, tol), shifted(ray, -tol)].iter().any(|r| meets(r, ray.max_length + tol) != here)
        || meets(ray, ray.max_length + tol) != here
        || (ray.max_length - t).abs() <= tol
}

/// The GPU's answers against the reference's, under the tolerance (see [`judge`]). Each GPU
/// hit's point lies on its body and its normal points out. Returns how many rays hit.
fn agree(polygons: &[Polygon], filters: &[Filter], rays: &[Ray], got: &[Option<RayHit>], what: &str) -> usize {
    assert_eq!(got.len(), rays.len(), "{what}: one answer per ray");
    for (k, (ray, g)) in rays.iter().zip(got).enumerate() {
        let what = format!("{what}: ray {k} {ray:?}");
        let mut filters = filters.to_vec();
        if filters.is_empty() {
            filters = vec![Filter::DEFAULT; polygons.len()];
        }
        judge(polygons, &mut filters, ray, g, &what);
        if let Some(g) = g {
            let d = unit(ray.direction);
            let body = &polygons[g.body as usize];
            let tol = tolerance(body, ray, g.fraction * ray.max_length);
            assert!((0.0..=1.0).contains(&g.fraction), "{what}: {g:?}");
            assert!(distance_to_shape(body, g.point) <= tol, "{what}: {g:?} off its body");
            if g.fraction > 0.0 {
                let n = g.normal;
                assert!((n[0].hypot(n[1]) - 1.0).abs() < 1e-6, "{what}: {g:?}");
                assert!(n[0] * d[0] + n[1] * d[1] <= 1e-3, "{what}: normal along the ray {g:?}");
                let out = [g.point[0] + 8.0 * tol * n[0], g.point[1] + 8.0 * tol * n[1]];
                assert!(distance_to_shape(body, out) > 0.0, "{what}: normal points in {g:?}");
            } else {
                assert_eq!(g.normal, [0.0, 0.0], "{what}: {g:?}");
            }
        }
    }
    got.iter().flatten().count()
}

/// One GPU answer `g` against the reference's: the same body at the same distance; or another
/// body the reference puts within the tolerance of the nearest; or the reference's body only
/// marginally met (then `g` is judged against the reference without it); or no hit where the
/// reference's is marginal, or a marginal hit where the reference has none.
fn judge(polygons: &[Polygon], filters: &mut [Filter], ray: &Ray, g: &Option<RayHit>, what: &str) {
    let w = cast_rays(polygons, filters, &[*ray])[0];
    let d = unit(ray.direction);
    let at = |h: &RayHit| h.fraction * ray.max_length;
    match (g, w) {
        (None, None) => {}
        (Some(g), Some(w)) if g.body == w.body => {
            let tol = tolerance(&polygons[g.body as usize], ray, at(g).max(at(&w)));
            assert!((at(g) - at(&w)).abs() <= tol, "{what}: {g:?} against {w:?}");
        }
        (Some(g), Some(w)) => {
            let body = &polygons[g.body as usize];
            let tol = tolerance(body, ray, at(g)).max(tolerance(&polygons[w.body as usize], ray, at(&w)));
            let theirs = ray_shape(body, ray.origin, d, ray.max_length + tol).map(|(t, _)| t);
            if theirs.is_some_and(|t| (t - at(&w)).abs() <= tol) {
                return;
            }
            let theirs_marginal = marginal(&polygons[w.body as usize], ray, at(&w));
            assert!(theirs_marginal, "{what}: body {} against {}: {g:?} {w:?}", g.body, w.body);
            filters[w.body as usize].category = 0;
            judge(polygons, filters, ray, &Some(*g), what);
        }
        (None, Some(w)) => {
            assert!(marginal(&polygons[w.body as usize], ray, at(&w)), "{what}: missed {w:?}");
            filters[w.body as usize].category = 0;
            judge(polygons, filters, ray, &None, what);
        }
        (Some(g), None) => {
            let body = &polygons[g.body as usize];
            assert!(marginal(body, ray, at(g)), "{what}: hit {g:?}, the reference none");
        }
    }
}

#[test]
fn gpu_rays_by_hand() {
    let scene = [
        rect(0.0, 0.0, 1.0, 1.0),
        Polygon::circle([0.0, 5.0], 1.0).unwrap(),
        Polygon::capsule([10.0, 0.0], [14.0, 0.0], 0.5).unwrap(),
        Polygon::rounded(vec![[10.0, 5.0], [11.0, 5.0], [11.0, 6.0], [10.0, 6.0]], 0.5).unwrap(),
    ];
    let ray = |origin: [f64; 2], direction: [f64; 2], length: f64| Ray::new(origin, direction, length);
    let rays = [
        ray([-1.0, 0.5], [2.0, 0.0], 10.0),   // head on: the square's left face at a tenth
        ray([-1.0, 0.5], [1.0, 0.0], 0.5),    // too short
        ray([-1.0, 0.5], [-1.0, 0.0], 10.0),  // pointing away
        ray([-1.0, 1.5], [1.0, 0.0], 3.0),    // passing by
        ray([-1.0, 0.5], [1.0, 0.0], 1.0),    // exactly long enough
        ray([-1.0, 0.0], [1.0, 0.0], 10.0),   // along the bottom edge's line: the corner
        ray([2.0, 1.0], [-1.0, 0.0], 10.0),   // along the top edge's line, from the right
        ray([0.5, -3.0], [0.0, 1.0], 10.0),   // up, parallel to the sides
        ray([-1.0, -1.0], [1.0, 1.0], 10.0),  // through the corner
        ray([0.5, 0.5], [1.0, 0.0], 10.0),    // from inside
        ray([1.0, 0.3], [1.0, 0.0], 10.0),    // from the boundary
        ray([-5.0, 6.0], [1.0, 0.0], 10.0),   // tangent to the circle's top
        ray([-5.0, 5.0], [1.0, 0.0], 10.0),   // the circle head on
        ray([12.0, 3.0], [0.0, -1.0], 10.0),  // the capsule's side
        ray([17.0, 0.0], [-1.0, 0.0], 10.0),  // the capsule's end
        ray([13.0, 8.0], [-1.0, -1.0], 10.0), // the rounded box's corner
        ray([10.5, 9.0], [0.0, -1.0], 10.0),  // the rounded box's top
        ray([30.0, 30.0], [1.0, 0.0], 10.0),  // nothing there
        ray([-1.0, 0.5], [1.0, 0.0], 0.0),    // no length, outside
        ray([0.5, 0.5], [0.0, 1.0], 0.0),     // no length, inside
    ];
    let gpu = common::gpu();
    for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
        let got = world.cast_rays(&rays).unwrap();
        agree(&scene, &[], &rays, &got, name);
        let body = |k: usize| got[k].map(|h| h.body);
        assert_eq!(
            (0..rays.len()).map(body).collect::<Vec<_>>(),
            [0, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 9, 9, 0].map(|b| (b != 9).then_some(b as u32)).to_vec(),
            "{name}"
        );
        let head_on = got[0].unwrap();
        assert!((head_on.fraction - 0.1).abs() < 1e-6 && head_on.normal == [-1.0, 0.0], "{name}: {head_on:?}");
        assert_eq!((got[9].unwrap().fraction, got[9].unwrap().point), (0.0, [0.5, 0.5]), "{name}");
        let end = got[14].unwrap();
        assert!((end.point[0] - 14.5).abs() < 1e-5 && end.normal == [1.0, 0.0], "{name}: {end:?}");
        let corner = got[15].unwrap();
        let s = 0.5f64.sqrt();
        assert!((corner.normal[0] - s).abs() < 1e-5 && (corner.normal[1] - s).abs() < 1e-5, "{name}: {corner:?}");
    }
}

#[test]
fn gpu_rays_take_the_nearest_then_the_lowest_body_and_apply_filters() {
    // Bodies 1 and 2 are the same square: a tie at 2, won by body 1. Body 0 lies beyond them.
    let scene = [rect(5.0, 0.0, 6.0, 1.0), rect(2.0, 0.0, 3.0, 1.0), rect(2.0, 0.0, 3.0, 1.0)];
    let ray = Ray::new([0.0, 0.5], [1.0, 0.0], 100.0);
    let back = Ray::new([10.0, 0.5], [-1.0, 0.0], 100.0);
    // The first body in category 2: a ray that does not see it passes through to body 1; one
    // that sees only it skips bodies 1 and 2.
    let mut filters = vec![Filter::DEFAULT; 3];
    filters[0].category = 2;
    let blind = Ray { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..back };
    let only = Ray { filter: Filter { mask: 2, ..Filter::DEFAULT }, ..ray };
    let nothing = Ray { filter: Filter { mask: 0, ..Filter::DEFAULT }, ..ray };
    let gpu = common::gpu();
    for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
        let bodies = |got: Vec<Option<RayHit>>| got.iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>();
        assert_eq!(bodies(world.cast_rays(&[ray, back]).unwrap()), [Some(1), Some(0)], "{name}");
        world.set_filters(&filters).unwrap();
        let rays = [ray, back, blind, only, nothing];
        let got = world.cast_rays(&rays).unwrap();
        agree(&scene, &filters, &rays, &got, name);
        assert_eq!(bodies(got), [Some(1), Some(0), Some(1), Some(0), None], "{name}");
        // The last body alone in category 2 instead: the tie goes to it or past it.
        let mut last = vec![Filter::DEFAULT; 3];
        last[2].category = 2;
        world.set_filters(&last).unwrap();
        let front_blind = Ray { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..ray };
        let rays = [only, front_blind, ray];
        let got = world.cast_rays(&rays).unwrap();
        agree(&scene, &last, &rays, &got, name);
        assert_eq!(bodies(got), [Some(2), Some(1), Some(1)], "{name}");
    }
}

/// Rays from a grid over the scene, at many angles (the axes among them) and of three lengths.
fn rays_over(polygons: &[Polygon], count: usize) -> Vec<Ray> {
    let bounds = polygons.iter().map(|p| p.aabb()).fold(polygons[0].aabb(), |a, b| Aabb {
        min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
        max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
    });
    let (w, h) = (bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]);
    (0..count)
        .map(|k| {
            let origin = [
                bounds.min[0] + w * ((k % 17) as f64 + 0.31) / 17.0,
                bounds.min[1] + h * ((k / 17 % 17) as f64 + 0.57) / 17.0,
            ];
            let angle = match k % 5 {
                0 => (k / 5 % 4) as f64 * std::f64::consts::FRAC_PI_2,
                _ => k as f64 * 0.731,
            };
            let length = [0.02, 0.2, 1.5][k % 3] * w.max(h);
            Ray::new(origin, [angle.cos(), angle.sin()], length)
        })
        .collect()
}

#[test]
fn gpu_rays_agree_with_the_reference_on_every_kind() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 1500, 17);
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
        let mut rays = rays_over(&polygons, 400);
        // From each of the first 10 bodies' first vertex (on the boundary) outwards, and from
        // far outside towards the 10 last bodies' centres.
        for p in &polygons[..10] {
            let v = p.vertices()[0];
            rays.push(Ray::new(v, [1.0, 0.3], 1.0));
        }
        for p in &polygons[polygons.len() - 10..] {
            let n = p.vertices().len() as f64;
            let v = [0, 1].map(|k| p.vertices().iter().map(|v| v[k]).sum::<f64>() / n);
            let from = [v[0] - 1e3 * p.aabb().max[0].abs().max(1.0), v[1]];
            rays.push(Ray::new(from, [1.0, 0.0], 2e3 * p.aabb().max[0].abs().max(1.0)));
        }
        let got = world.cast_rays(&rays).unwrap();
        let hits = agree(&polygons, &[], &rays, &got, kind.name());
        // Few grid rays meet the sparse kinds; of the rays aimed at the last bodies, outliers'
        // farthest are smaller than f32's spacing where they lie (either way within the band).
        let least = if matches!(kind, SceneKind::Scales | SceneKind::Outliers) { 15 } else { 100 };
        assert!(hits >= least, "{kind:?}: only {hits} of {} rays hit", rays.len());
        // The first vertices: a hit at fraction 0.
        for (k, hit) in got.iter().enumerate().take(410).skip(400) {
            assert_eq!(hit.map(|h| h.fraction), Some(0.0), "{kind:?}: ray {k} {hit:?}");
        }
    }
}

/// Walls among shapes (issue 42): every third shape from the 20th on becomes the segment of
/// radius 0 along its first edge.
fn with_segments(polygons: Vec<Polygon>) -> Vec<Polygon> {
    let wall = |p: &Polygon| Polygon::segment(p.vertices()[0], p.vertices()[1], 0.0).unwrap();
    polygons
        .into_iter()
        .enumerate()
        .map(|(i, p)| if i >= 20 && i % 3 == 0 && p.vertices().len() > 1 { wall(&p) } else { p })
        .collect()
}

#[test]
fn gpu_rays_agree_with_the_reference_on_segments() {
    let gpu = common::gpu();
    let polygons = with_segments(generate(SceneKind::Shapes, 1500, 17));
    let walls: Vec<&Polygon> = polygons.iter().filter(|p| p.kind() == satgpu::ShapeKind::Segment).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let mut rays = rays_over(&polygons, 400);
    // At 50 segments' middles along their normals from a little away, and 20 along their own line
    // from outside an end (grazing: either way within the band).
    for p in walls.iter().take(50) {
        let [a, b] = [p.vertices()[0], p.vertices()[1]];
        let (m, d) = ([(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0], [b[0] - a[0], b[1] - a[1]]);
        let n = unit([-d[1], d[0]]);
        rays.push(Ray::new([m[0] + 0.01 * n[0], m[1] + 0.01 * n[1]], [-n[0], -n[1]], 0.05));
    }
    for p in walls.iter().skip(50).take(20) {
        let [a, b] = [p.vertices()[0], p.vertices()[1]];
        let d = [b[0] - a[0], b[1] - a[1]];
        rays.push(Ray::new([a[0] - d[0], a[1] - d[1]], d, 3.0 * d[0].hypot(d[1])));
    }
    let got = world.cast_rays(&rays).unwrap();
    let hits = agree(&polygons, &[], &rays, &got, "segments");
    assert!(walls.len() > 300 && hits >= 150, "{} segments, {hits} hits", walls.len());
    assert!(got[400..450].iter().all(Option::is_some), "a ray at a segment's middle missed");
}

#[test]
fn gpu_rays_follow_transforms_and_grow_the_entries() {
    let gpu = common::gpu();
    let shapes = [
        rect(-0.5, -0.5, 0.5, 0.5),
        Polygon::circle([0.0, 0.0], 0.5).unwrap(),
        Polygon::capsule([-0.5, 0.0], [0.5, 0.0], 0.2).unwrap(),
    ];
    let n = 2000;
    let body_shapes: Vec<u32> = (0..n).map(|i| (i % 3) as u32).collect();
    // Room for 16 entries: the first cast needs more and grows them.
    let options = WorldOptions::default().with_entry_capacity(16);
    let mut world = World::new(&gpu, &shapes, &body_shapes, &options).unwrap();
    let place = |i: usize, spread: f64| Transform {
        x: (i % 50) as f64 * spread,
        y: (i / 50) as f64 * spread,
        angle: i as f64 * 0.37,
    };
    for spread in [1.5, 0.9] {
        let transforms: Vec<Transform> = (0..n).map(|i| place(i, spread)).collect();
        world.set_transforms(&transforms).unwrap();
        let polygons: Vec<Polygon> =
            (0..n).map(|i| shapes[body_shapes[i] as usize].transformed(&transforms[i])).collect();
        let rays = rays_over(&polygons, 300);
        let got = world.cast_rays(&rays).unwrap();
        let hits = agree(&polygons, &[], &rays, &got, &format!("spread {spread}"));
        assert!(hits >= 150, "spread {spread}: {hits} hits");
    }
    assert!(world.entry_capacity() > 16, "the entries grew: {}", world.entry_capacity());
    // A frame afterwards finds the same pairs as a new world's.
    let frame = world.step().unwrap();
    let mut fresh = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default()).unwrap();
    fresh.set_transforms(&(0..n).map(|i| place(i, 0.9)).collect::<Vec<_>>()).unwrap();
    assert_eq!(frame.contacts, fresh.step().unwrap().contacts);
}

#[test]
fn gpu_rays_at_tiny_and_huge_scales() {
    for scale in [1e-20, 1e30] {
        let s = |v: f64| v * scale;
        let scene = [
            rect(s(0.0), s(0.0), s(1.0), s(1.0)),
            Polygon::circle([s(3.0), s(0.5)], s(0.5)).unwrap(),
            Polygon::rounded(vec![[s(6.0), s(0.0)], [s(7.0), s(0.0)], [s(7.0), s(1.0)]], s(0.1)).unwrap(),
        ];
        let rays = [
            Ray::new([s(-1.0), s(0.5)], [1.0, 0.0], s(10.0)),
            Ray::new([s(1.5), s(0.5)], [1.0, 0.0], s(10.0)),
            Ray::new([s(5.0), s(0.5)], [1.0, 0.0], s(10.0)),
            Ray::new([s(3.0), s(3.0)], [0.0, -1.0], s(10.0)),
            Ray::new([s(3.0), s(3.0)], [0.0, 1.0], s(10.0)),
        ];
        let gpu = common::gpu();
        for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
            let got = world.cast_rays(&rays).unwrap();
            let what = format!("{name} at {scale:e}");
            assert_eq!(agree(&scene, &[], &rays, &got, &what), 4, "{what}: {got:?}");
            let bodies: Vec<_> = got.iter().map(|h| h.map(|h| h.body)).collect();
            assert_eq!(bodies, [Some(0), Some(1), Some(2), Some(1), None], "{what}");
        }
    }
}

#[test]
fn gpu_rays_refuse_bad_input_naming_the_ray() {
    let gpu = common::gpu();
    let scene = [rect(0.0, 0.0, 1.0, 1.0)];
    let mut world = World::from_polygons(&gpu, &scene, &WorldOptions::default()).unwrap();
    let good = Ray::new([-1.0, 0.5], [1.0, 0.0], 10.0);
    assert!(world.cast_rays(&[]).unwrap().is_empty());
    let bad = [
        Ray::new([f64::NAN, 0.0], [1.0, 0.0], 1.0),
        Ray::new([2e37, 0.0], [1.0, 0.0], 1.0),
        Ray::new([0.0, 0.0], [0.0, 0.0], 1.0),
        Ray::new([0.0, 0.0], [f64::INFINITY, 0.0], 1.0),
        Ray::new([0.0, 0.0], [1.0, 0.0], -1.0),
        Ray::new([0.0, 0.0], [1.0, 0.0], f64::INFINITY),
    ];
    for ray in bad {
        match world.cast_rays(&[good, ray]) {
            Err(satgpu::Error::InvalidSetting { what: "ray", detail }) => {
                assert!(detail.starts_with("ray 1: "), "{detail}")
            }
            other => panic!("{ray:?}: expected InvalidSetting, got {other:?}"),
        }
    }
    // The world still answers; a very long ray reaches as far as bodies can lie.
    let long = Ray::new([-1e36, 0.5], [1.0, 0.0], f64::MAX);
    let got = world.cast_rays(&[good, long]).unwrap();
    assert_eq!(got.iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>(), [Some(0), Some(0)]);
    assert!((got[1].unwrap().point[0]).abs() < 1e30, "{:?}", got[1]);
    // An empty world: no hits.
    let mut empty = World::from_polygons(&gpu, &[], &WorldOptions::default()).unwrap();
    assert_eq!(empty.cast_rays(&[good]).unwrap(), [None]);
}

/// Compound bodies: each ray's nearest body is the body of the nearest part (the reference over
/// the parts), and region queries give each body once; filters apply to every part of a body.
#[test]
fn compound_worlds_cast_rays_and_answer_region_queries() {
    let gpu = common::gpu();
    let bodies = satgpu::scene::generate_bodies(SceneKind::Rooms, 400, 5);
    let parts: Vec<Polygon> = bodies.iter().flat_map(|b| b.shapes().iter().cloned()).collect();
    let owner: Vec<u32> =
        bodies.iter().enumerate().flat_map(|(i, b)| std::iter::repeat_n(i as u32, b.shapes().len())).collect();
    assert!(parts.len() > bodies.len(), "some bodies have several parts");
    let mut world = satgpu::gpu::World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap();
    let rays = rays_over(&parts, 300);
    let got = world.cast_rays(&rays).unwrap();
    let mut filters = vec![Filter::DEFAULT; parts.len()];
    for (k, (ray, g)) in rays.iter().zip(&got).enumerate() {
        // The GPU's body as the reference's nearest part of that body, then judged on the parts.
        let as_part = g.map(|g| {
            let d = unit(ray.direction);
            let of_body = (0..parts.len()).filter(|&p| owner[p] == g.body);
            let nearest = of_body
                .clone()
                .filter_map(|p| ray_shape(&parts[p], ray.origin, d, 2.0 * ray.max_length).map(|(t, _)| (t, p)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let part = nearest.map_or_else(|| of_body.clone().next().unwrap(), |(_, p)| p);
            RayHit { body: part as u32, ..g }
        });
        judge(&parts, &mut filters.clone(), ray, &as_part, &format!("rooms: ray {k} {ray:?}"));
    }
    let hits = got.iter().flatten().count();
    assert!(hits >= 100, "{hits} of 300 rays hit");
    // Filters: the first body in category 2, unseen by rays that do not see category 2.
    let first = got.iter().position(|h| h.is_some_and(|h| h.body == 0));
    let mut body_filters = vec![Filter::DEFAULT; bodies.len()];
    body_filters[0].category = 2;
    world.set_filters(&body_filters).unwrap();
    let blind: Vec<Ray> = rays.iter().map(|r| Ray { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..*r }).collect();
    let got_blind = world.cast_rays(&blind).unwrap();
    assert!(got_blind.iter().flatten().all(|h| h.body != 0));
    if let Some(k) = first {
        assert_ne!(got_blind[k].map(|h| h.body), Some(0));
    }
    for (p, f) in filters.iter_mut().enumerate() {
        f.category = if owner[p] == 0 { 2 } else { 1 };
    }
    let want = cast_rays(&parts, &filters, &blind);
    let same =
        got_blind.iter().zip(&want).filter(|(g, w)| g.map(|h| h.body) == w.map(|h| owner[h.body as usize])).count();
    assert!(same >= 290, "{same} of 300 blind rays name the reference's body");
    // Region queries: each body once, sorted; a box around a body's first part, and the centre
    // of that part, find it.
    let boxes: Vec<satgpu::BoxQuery> = bodies
        .iter()
        .take(20)
        .map(|b| satgpu::BoxQuery { aabb: b.shapes()[0].aabb(), filter: Filter::DEFAULT, world: 0 })
        .collect();
    let found = world.query_boxes(&boxes).unwrap();
    for (k, f) in found.iter().enumerate() {
        assert!(f.windows(2).all(|w| w[0] < w[1]), "box {k}: {f:?}");
        assert!(f.contains(&(k as u32)), "box {k}: {f:?}");
    }
    let points: Vec<satgpu::PointQuery> = bodies
        .iter()
        .take(20)
        .map(|b| {
            let v = b.shapes()[0].vertices();
            let centre = [0, 1].map(|k| v.iter().map(|p| p[k]).sum::<f64>() / v.len() as f64);
            satgpu::PointQuery { point: centre, filter: Filter::DEFAULT, world: 0 }
        })
        .collect();
    for (k, f) in world.query_points(&points).unwrap().iter().enumerate() {
        assert!(f.contains(&(k as u32)) && f.windows(2).all(|w| w[0] < w[1]), "point {k}: {f:?}");
    }
}

/// Mesa's software adapters end an invocation's loops after 65,535 iterations in all: a ray along
/// a row of 70,000 boxes in one strip tests more of them than that. Its answer is then refused
/// with an error that says so, never returned short; elsewhere it hits the first box.
#[test]
fn a_ray_past_more_boxes_than_a_software_adapter_runs_is_answered_or_refused() {
    let gpu = common::gpu();
    let square = |x: f64| Polygon::new(vec![[x, 0.0], [x + 0.5, 0.0], [x + 0.5, 0.5], [x, 0.5]]).unwrap();
    let polygons: Vec<Polygon> = (0..70_000).map(|k| square(k as f64)).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let ray = Ray { origin: [-5.0, 0.25], direction: [1.0, 0.0], max_length: 1e6, filter: Filter::DEFAULT, world: 0 };
    match world.cast_rays(&[ray]) {
        Ok(hits) => {
            let hit = hits[0].expect("the ray hits the first box");
            assert_eq!(hit.body, 0);
            assert!((hit.point[0] - 0.0).abs() < 1e-4, "{hit:?}");
        }
        Err(satgpu::Error::UnsuitableAdapter { adapter, reason }) => {
            assert_eq!(gpu.adapter_info().device_type, wgpu::DeviceType::Cpu, "{adapter}: {reason}");
            assert!(reason.contains("65,535 loop iterations"), "{reason}");
        }
        Err(e) => panic!("{e}"),
    }
}
