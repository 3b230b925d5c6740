//! Issue 44, shape casts on the GPU (`World::cast_shapes`) against the f64 reference
//! (`reference::cast_shapes`): by hand (parallel edges, through a vertex, grazing, starting in
//! contact, crossing cores, every kind of cast and body), ties and filters on the first and the
//! last body, every scene kind with casts of every kind at many angles and lengths, a circle cast
//! against the GPU's ray cast at shapes grown by its radius, at 1e-20 and 1e20, compound bodies,
//! and bad casts, under every broad phase.

mod common;

use satgpu::gpu::{World, WorldOptions};
use satgpu::reference::{cast_shapes, distance_to_shape};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Body, Error, Filter, Polygon, Ray, RayHit, ShapeCast, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

/// The shapes cast: a circle, a square, a capsule, a rounded triangle and a segment.
fn shapes(size: f64) -> Vec<Polygon> {
    let s = |v: f64| v * size;
    vec![
        Polygon::circle([0.0, 0.0], s(0.5)).unwrap(),
        rect(s(-0.5), s(-0.5), s(0.5), s(0.5)),
        Polygon::capsule([s(-0.6), 0.0], [s(0.6), 0.0], s(0.25)).unwrap(),
        Polygon::rounded(vec![[s(-0.4), s(-0.3)], [s(0.5), s(-0.2)], [s(0.0), s(0.5)]], s(0.1)).unwrap(),
        Polygon::segment([s(-0.5), s(0.1)], [s(0.5), s(-0.1)], 0.0).unwrap(),
    ]
}

/// The tolerance of a cast's answer on `body`: f32 at the scale of the body's coordinates, the
/// cast's origin, the shape's size and the distance along the way.
fn tolerance(body: &Polygon, shape: &Polygon, cast: &ShapeCast, t: f64) -> f64 {
    let reach = shape.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max) + shape.radius();
    let scale = body.vertices().iter().chain([&cast.origin]).flat_map(|v| [v[0].abs(), v[1].abs()]).fold(t, f64::max)
        + body.radius()
        + reach;
    64.0 * f64::from(f32::EPSILON) * scale.max(1e-30)
}

/// The reference's distance moved to the hit of `cast` on `polygons[i]` alone, within `extra`
/// past the cast's length.
fn alone(polygons: &[Polygon], i: usize, shapes: &[Polygon], cast: &ShapeCast, extra: f64) -> Option<f64> {
    let longer = ShapeCast { max_length: cast.max_length + extra, filter: Filter::DEFAULT, ..*cast };
    cast_shapes(&polygons[i..=i], &[], shapes, &[longer])[0].map(|h| h.fraction * longer.max_length)
}

/// Whether the reference's hit of `cast` on `polygons[i]` at `t` is marginal: the cast moved
/// sideways by up to the tolerance either way (by all of it, or by a quarter, a sixteenth or a
/// 256th: far from the origin the tolerance passes a body's size), or lengthened by it, changes
/// whether it hits.
fn marginal(polygons: &[Polygon], i: usize, shapes: &[Polygon], cast: &ShapeCast, t: f64) -> bool {
    let tol = tolerance(&polygons[i], &shapes[cast.shape as usize], cast, t);
    let len = cast.direction[0].hypot(cast.direction[1]);
    let side = [-cast.direction[1] / len * tol, cast.direction[0] / len * tol];
    let here = alone(polygons, i, shapes, cast, 0.0).is_some();
    let moved = |k: f64| ShapeCast { origin: [cast.origin[0] + k * side[0], cast.origin[1] + k * side[1]], ..*cast };
    [1.0, 0.25, 1.0 / 16.0, 1.0 / 256.0]
        .iter()
        .flat_map(|&k| [moved(k), moved(-k)])
        .any(|c| alone(polygons, i, shapes, &c, tol).is_some() != here)
        || alone(polygons, i, shapes, cast, tol).is_some() != here
        || (cast.max_length - t).abs() <= tol
}

/// The GPU's answers against the reference's: the same body at the same distance within the
/// tolerance; or another body at the reference's distance; or the reference's body only
/// marginally met (then judged again without it). Each GPU hit's point lies on its body and its
/// normal points out of it, against the way. Returns how many casts hit.
fn agree(polygons: &[Polygon], shapes: &[Polygon], casts: &[ShapeCast], got: &[Option<RayHit>], what: &str) -> usize {
    assert_eq!(got.len(), casts.len(), "{what}: one answer per cast");
    for (k, (cast, g)) in casts.iter().zip(got).enumerate() {
        let what = format!("{what}: cast {k} {cast:?}");
        let mut seen = vec![true; polygons.len()];
        judge(polygons, shapes, &mut seen, cast, g, &what);
        let Some(g) = g else { continue };
        let body = &polygons[g.body as usize];
        let tol = tolerance(body, &shapes[cast.shape as usize], cast, g.fraction * cast.max_length);
        assert!((0.0..=1.0).contains(&g.fraction), "{what}: {g:?}");
        if g.fraction == 0.0 {
            assert_eq!((g.point, g.normal), (cast.origin, [0.0, 0.0]), "{what}: {g:?}");
            continue;
        }
        assert!(distance_to_shape(body, g.point) <= tol, "{what}: {g:?} off its body");
        let n = g.normal;
        assert!((n[0].hypot(n[1]) - 1.0).abs() < 1e-6, "{what}: {g:?}");
        assert!(n[0] * cast.direction[0] + n[1] * cast.direction[1] <= 1e-3, "{what}: normal along the way {g:?}");
    }
    got.iter().flatten().count()
}

fn judge(
    polygons: &[Polygon],
    shapes: &[Polygon],
    seen: &mut [bool],
    cast: &ShapeCast,
    g: &Option<RayHit>,
    what: &str,
) {
    let visible: Vec<Filter> =
        seen.iter().map(|&s| if s { Filter::DEFAULT } else { Filter { category: 0, ..Filter::DEFAULT } }).collect();
    let w = cast_shapes(polygons, &visible, shapes, &[*cast])[0];
    let at = |h: &RayHit| h.fraction * cast.max_length;
    let shape = &shapes[cast.shape as usize];
    match (g, w) {
        (None, None) => {}
        (Some(g), Some(w)) if g.body == w.body => {
            let tol = tolerance(&polygons[g.body as usize], shape, cast, at(g).max(at(&w)));
            assert!((at(g) - at(&w)).abs() <= tol, "{what}: {g:?} against {w:?}");
        }
        (Some(g), Some(w)) => {
            let tol = tolerance(&polygons[g.body as usize], shape, cast, at(g)).max(tolerance(
                &polygons[w.body as usize],
                shape,
                cast,
                at(&w),
            ));
            let theirs = alone(polygons, g.body as usize, shapes, cast, tol);
            if theirs.is_some_and(|t| (t - at(&w)).abs() <= tol) {
                return;
            }
            assert!(marginal(polygons, w.body as usize, shapes, cast, at(&w)), "{what}: {g:?} against {w:?}");
            seen[w.body as usize] = false;
            judge(polygons, shapes, seen, cast, &Some(*g), what);
        }
        (None, Some(w)) => {
            assert!(marginal(polygons, w.body as usize, shapes, cast, at(&w)), "{what}: missed {w:?}");
            seen[w.body as usize] = false;
            judge(polygons, shapes, seen, cast, &None, what);
        }
        (Some(g), None) => {
            assert!(marginal(polygons, g.body as usize, shapes, cast, at(g)), "{what}: hit {g:?}, the reference none");
        }
    }
}

#[test]
fn gpu_casts_by_hand() {
    let scene = [
        rect(3.0, -1.0, 4.0, 1.0),
        Polygon::new(vec![[0.0, 4.0], [1.0, 5.0], [-1.0, 5.5]]).unwrap(),
        Polygon::circle([-4.0, 0.0], 1.0).unwrap(),
        Polygon::capsule([-1.0, -4.0], [1.0, -4.0], 0.5).unwrap(),
        Polygon::rounded(vec![[5.0, 5.0], [6.0, 5.0], [6.0, 6.0], [5.0, 6.0]], 0.5).unwrap(),
        Polygon::segment([-6.0, 3.0], [-6.0, 6.0], 0.0).unwrap(),
    ];
    let shapes = shapes(1.0);
    let mut casts = Vec::new();
    for shape in 0..shapes.len() as u32 {
        for k in 0..24 {
            let a = k as f64 * std::f64::consts::PI / 12.0;
            let angle = [0.0, 0.4, std::f64::consts::FRAC_PI_4][k % 3];
            casts.push(ShapeCast { angle, ..ShapeCast::new(shape, [0.0, 0.0], [a.cos(), a.sin()], 8.0) });
        }
        // Parallel edges head on; grazing the wall's bottom; starting in contact; too short.
        casts.push(ShapeCast::new(shape, [0.0, 0.0], [1.0, 0.0], 10.0));
        casts.push(ShapeCast::new(shape, [0.0, -1.5], [1.0, 0.0], 10.0));
        casts.push(ShapeCast::new(shape, [3.2, 0.0], [0.0, 1.0], 10.0));
        casts.push(ShapeCast::new(shape, [0.0, 0.0], [1.0, 0.0], 0.5));
    }
    let gpu = common::gpu();
    for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
        let got = world.cast_shapes(&shapes, &casts).unwrap();
        assert!(agree(&scene, &shapes, &casts, &got, name) >= 60, "{name}");
        // The square head on: its right side meets the wall's left side after 2.5.
        let head_on = got[24 + 28].unwrap();
        assert!((head_on.fraction - 0.25).abs() < 1e-6 && head_on.normal == [-1.0, 0.0], "{name}: {head_on:?}");
        assert!((head_on.point[0] - 3.0).abs() < 1e-6, "{name}: {head_on:?}");
        for shape in 0..shapes.len() {
            let at = |k: usize| got[shape * 28 + k];
            assert_eq!(at(26).map(|h| (h.body, h.fraction)), Some((0, 0.0)), "{name}: starts in the wall");
            assert_eq!(at(27), None, "{name}: too short");
        }
    }
    // The square's top slides along the wall's bottom (y = -1) and grazes it: 0.5 below, no hit.
    let graze =
        [ShapeCast::new(1, [0.0, -1.5], [1.0, 0.0], 10.0), ShapeCast::new(1, [0.0, -1.5 - 1e-3], [1.0, 0.0], 10.0)];
    for (mut world, name) in common::every_broad_phase(&gpu, &scene[..1]) {
        let got = world.cast_shapes(&shapes, &graze).unwrap();
        assert!(got[0].is_some_and(|h| (h.fraction - 0.25).abs() < 1e-6), "{name}: {got:?}");
        assert_eq!(got[1], None, "{name}");
    }
}

#[test]
fn gpu_casts_take_the_nearest_then_the_lowest_body_and_apply_filters() {
    let scene = [rect(5.0, 0.0, 6.0, 1.0), rect(2.0, 0.0, 3.0, 1.0), rect(2.0, 0.0, 3.0, 1.0)];
    let shapes = shapes(0.5);
    let cast = ShapeCast::new(1, [0.0, 0.5], [1.0, 0.0], 100.0);
    let back = ShapeCast::new(2, [10.0, 0.5], [-1.0, 0.0], 100.0);
    let only = |mask: u32, c: ShapeCast| ShapeCast { filter: Filter { mask, ..Filter::DEFAULT }, ..c };
    let gpu = common::gpu();
    for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
        let mut bodies = |casts: &[ShapeCast]| {
            world.cast_shapes(&shapes, casts).unwrap().iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>()
        };
        assert_eq!(bodies(&[cast, back]), [Some(1), Some(0)], "{name}");
        let mut first = vec![Filter::DEFAULT; 3];
        first[0].category = 2;
        world.set_filters(&first).unwrap();
        let casts = [only(!2, back), only(2, cast), only(0, cast)];
        let got = world.cast_shapes(&shapes, &casts).unwrap();
        assert_eq!(got.iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>(), [Some(1), Some(0), None], "{name}");
        let mut last = vec![Filter::DEFAULT; 3];
        last[2].category = 2;
        world.set_filters(&last).unwrap();
        let got = world.cast_shapes(&shapes, &[only(2, cast), only(!2, cast), cast]).unwrap();
        assert_eq!(got.iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>(), [Some(2), Some(1), Some(1)], "{name}");
    }
}

/// Casts of every shape from a grid over the scene, at many angles and turns and of three
/// lengths, the shapes a fiftieth of the scene.
fn casts_over(polygons: &[Polygon], count: usize) -> (Vec<Polygon>, Vec<ShapeCast>) {
    let (lo, hi) = polygons.iter().map(|p| p.aabb()).fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), b| {
        ([lo[0].min(b.min[0]), lo[1].min(b.min[1])], [hi[0].max(b.max[0]), hi[1].max(b.max[1])])
    });
    let (w, h) = (hi[0] - lo[0], hi[1] - lo[1]);
    let shapes = shapes(w.max(h) / 50.0);
    let casts = (0..count)
        .map(|k| {
            let origin =
                [lo[0] + w * ((k % 17) as f64 + 0.31) / 17.0, lo[1] + h * ((k / 17 % 17) as f64 + 0.57) / 17.0];
            let a = if k % 5 == 0 { (k / 5 % 4) as f64 * std::f64::consts::FRAC_PI_2 } else { k as f64 * 0.731 };
            let length = [0.02, 0.2, 1.5][k % 3] * w.max(h);
            let cast = ShapeCast::new((k % shapes.len()) as u32, origin, [a.cos(), a.sin()], length);
            ShapeCast { angle: k as f64 * 0.37, ..cast }
        })
        .collect();
    (shapes, casts)
}

#[test]
fn gpu_casts_agree_with_the_reference_on_every_kind() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 1000, 17);
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
        let (shapes, mut casts) = casts_over(&polygons, 300);
        // From far outside towards the 10 last bodies' centres.
        for (k, p) in polygons[polygons.len() - 10..].iter().enumerate() {
            let n = p.vertices().len() as f64;
            let v = [0, 1].map(|k| p.vertices().iter().map(|v| v[k]).sum::<f64>() / n);
            let far = 1e3 * p.aabb().max[0].abs().max(1.0);
            casts.push(ShapeCast::new((k % shapes.len()) as u32, [v[0] - far, v[1]], [1.0, 0.0], 2.0 * far));
        }
        let got = world.cast_shapes(&shapes, &casts).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let hits = agree(&polygons, &shapes, &casts, &got, kind.name());
        let least = if matches!(kind, SceneKind::Scales | SceneKind::Outliers) { 10 } else { 100 };
        assert!(hits >= least, "{kind:?}: only {hits} of {} casts hit", casts.len());
    }
}

#[test]
fn a_gpu_circle_cast_is_a_gpu_ray_cast_at_every_shape_grown_by_its_radius() {
    let gpu = common::gpu();
    for kind in [SceneKind::Crowd, SceneKind::Shapes, SceneKind::Mixed] {
        let polygons = generate(kind, 1000, 3);
        let (shapes, casts) = casts_over(&polygons, 300);
        let r = shapes[0].radius();
        let grown: Vec<Polygon> =
            polygons.iter().map(|p| Polygon::from_core(p.vertices().to_vec(), p.radius() + r).unwrap()).collect();
        let rays: Vec<Ray> = casts.iter().map(|c| Ray::new(c.origin, c.direction, c.max_length)).collect();
        let circles: Vec<ShapeCast> = casts.iter().map(|c| ShapeCast { shape: 0, ..*c }).collect();
        let by_ray = World::from_polygons(&gpu, &grown, &WorldOptions::default()).unwrap().cast_rays(&rays).unwrap();
        let by_cast = World::from_polygons(&gpu, &polygons, &WorldOptions::default())
            .unwrap()
            .cast_shapes(&shapes, &circles)
            .unwrap();
        let mut same = 0;
        for (k, (a, b)) in by_ray.iter().zip(&by_cast).enumerate() {
            let tol = 1e-4 * r;
            match (a, b) {
                (None, None) => {}
                (Some(a), Some(b)) if a.body == b.body => {
                    let t = |h: &RayHit| h.fraction * casts[k].max_length;
                    assert!((t(a) - t(b)).abs() <= tol, "{kind:?} {k}: {a:?} {b:?}");
                    let moved = [a.point[0] - r * a.normal[0], a.point[1] - r * a.normal[1]];
                    assert!(
                        a.fraction == 0.0 || (moved[0] - b.point[0]).abs().max((moved[1] - b.point[1]).abs()) <= tol,
                        "{kind:?} {k}"
                    );
                    same += 1;
                }
                // Only within rounding of a tie or a graze: then the cast agrees with the reference.
                _ => {
                    agree(&polygons, &shapes, &circles[k..=k], &[*b], kind.name());
                }
            }
        }
        assert!(same >= 100 && same + 3 >= by_ray.iter().flatten().count(), "{kind:?}: {same} the same");
    }
}

#[test]
fn gpu_casts_at_tiny_and_huge_scales() {
    for scale in [1e-20, 1e20] {
        let s = |v: f64| v * scale;
        let scene = [
            rect(s(3.0), s(-1.0), s(4.0), s(1.0)),
            Polygon::circle([s(0.0), s(4.0)], s(1.0)).unwrap(),
            Polygon::rounded(vec![[s(-5.0), s(-1.0)], [s(-4.0), s(-1.0)], [s(-4.0), s(0.0)]], s(0.25)).unwrap(),
        ];
        let shapes = shapes(scale);
        let casts: Vec<ShapeCast> = (0..shapes.len() as u32)
            .flat_map(|shape| {
                [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]
                    .map(|d| ShapeCast::new(shape, [0.0, 0.0], d, s(10.0)))
            })
            .collect();
        let gpu = common::gpu();
        for (mut world, name) in common::every_broad_phase(&gpu, &scene) {
            let got = world.cast_shapes(&shapes, &casts).unwrap();
            let what = format!("{name} at {scale:e}");
            assert_eq!(agree(&scene, &shapes, &casts, &got, &what), 3 * shapes.len(), "{what}: {got:?}");
        }
    }
}

#[test]
fn gpu_casts_follow_transforms_and_compound_bodies() {
    let gpu = common::gpu();
    let ell = Body::concave(&[[0.0, 0.0], [2.0, 0.0], [2.0, 0.5], [0.5, 0.5], [0.5, 2.0], [0.0, 2.0]]).unwrap();
    let square = rect(-0.5, -0.5, 0.5, 0.5);
    let place = [
        Transform { x: 10.0, y: 0.0, angle: 0.3 },
        Transform { x: 0.0, y: 5.0, angle: 1.0 },
        Transform { x: -6.0, y: -6.0, angle: 2.0 },
    ];
    let bodies: Vec<Body> =
        [Body::from(square.clone()), ell.clone(), ell].iter().zip(&place).map(|(b, t)| b.transformed(t)).collect();
    let parts: Vec<(u32, Polygon)> =
        bodies.iter().enumerate().flat_map(|(i, b)| b.shapes().iter().map(move |p| (i as u32, p.clone()))).collect();
    let polygons: Vec<Polygon> = parts.iter().map(|(_, p)| p.clone()).collect();
    let shapes = shapes(0.4);
    let casts: Vec<ShapeCast> = (0..120)
        .map(|k| {
            let a = k as f64 * 0.2;
            ShapeCast { angle: k as f64, ..ShapeCast::new((k % 5) as u32, [1.0, -1.0], [a.cos(), a.sin()], 20.0) }
        })
        .collect();
    let want = cast_shapes(&polygons, &[], &shapes, &casts);
    // Bodies of several shapes placed as given; squares moved by their transforms.
    let mut compound = World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap();
    let mut moved = World::new(&gpu, &[square], &[0; 3], &WorldOptions::default()).unwrap();
    moved.set_transforms(&place).unwrap();
    let squares: Vec<Polygon> = place.iter().map(|t| rect(-0.5, -0.5, 0.5, 0.5).transformed(t)).collect();
    let got = compound.cast_shapes(&shapes, &casts).unwrap();
    let mut hits = 0;
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (Some(g), Some(w)) = (g, w) else {
            assert_eq!(g.is_some(), w.is_some(), "cast {k}: {g:?} {w:?}");
            continue;
        };
        assert_eq!(g.body, parts[w.body as usize].0, "cast {k}: {g:?} {w:?}");
        assert!((g.fraction - w.fraction).abs() * 20.0 < 1e-4, "cast {k}: {g:?} {w:?}");
        hits += 1;
    }
    assert!(hits >= 15, "only {hits} hits");
    let got = moved.cast_shapes(&shapes, &casts).unwrap();
    assert!(agree(&squares, &shapes, &casts, &got, "moved") >= 10);
}

#[test]
fn gpu_casts_refuse_bad_input_naming_the_cast() {
    let gpu = common::gpu();
    let mut world = World::from_polygons(&gpu, &[rect(0.0, 0.0, 1.0, 1.0)], &WorldOptions::default()).unwrap();
    let shapes = shapes(1.0);
    assert!(world.cast_shapes(&shapes, &[]).unwrap().is_empty());
    let good = ShapeCast::new(0, [-2.0, 0.5], [1.0, 0.0], 10.0);
    let bad = [
        ShapeCast { direction: [0.0, 0.0], ..good },
        ShapeCast { origin: [f64::NAN, 0.0], ..good },
        ShapeCast { max_length: -1.0, ..good },
        ShapeCast { shape: 9, ..good },
        ShapeCast { angle: f64::NAN, ..good },
    ];
    for cast in bad {
        match world.cast_shapes(&shapes, &[good, cast]) {
            Err(Error::InvalidSetting { what: "cast", detail }) => assert!(detail.starts_with("cast 1: "), "{detail}"),
            other => panic!("{cast:?}: {other:?}"),
        }
    }
    assert_eq!(world.cast_shapes(&shapes, &[good]).unwrap()[0].map(|h| h.body), Some(0));
}

/// A cast whose walk passes more boxes than Mesa's software adapters run loop iterations is
/// answered (a real GPU) or refused by name (lavapipe, llvmpipe), never answered wrongly.
#[test]
fn a_cast_past_more_boxes_than_a_software_adapter_runs_is_answered_or_refused() {
    let gpu = common::gpu();
    let square = |x: f64| Polygon::new(vec![[x, 0.0], [x + 0.5, 0.0], [x + 0.5, 0.5], [x, 0.5]]).unwrap();
    let polygons: Vec<Polygon> = (0..70_000).map(|k| square(k as f64)).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let disc = [Polygon::circle([0.0, 0.0], 0.1).unwrap()];
    match world.cast_shapes(&disc, &[ShapeCast::new(0, [-5.0, 0.25], [1.0, 0.0], 1e6)]) {
        Ok(hits) => {
            let hit = hits[0].expect("the disc meets the first box");
            assert_eq!(hit.body, 0);
            assert!((hit.fraction * 1e6 - 4.9).abs() < 1e-3, "{hit:?}");
        }
        Err(satgpu::Error::UnsuitableAdapter { adapter, reason }) => {
            assert_eq!(gpu.adapter_info().device_type, wgpu::DeviceType::Cpu, "{adapter}: {reason}");
            assert!(reason.contains("65,535 loop iterations") && reason.contains("cast"), "{reason}");
        }
        Err(e) => panic!("{e}"),
    }
}

/// Two plain segments whose directions differ by a few f32 roundings (a body segment at 30
/// degrees, a segment shape turned by pi/6 and a little more or less): the cast across it hits (their Minkowski difference is a
/// sliver that no clipping may decide), and crossing segments touch at the start.
#[test]
fn gpu_casts_of_segments_near_parallel_to_a_body_segment_hit_it() {
    let gpu = common::gpu();
    let a = std::f64::consts::FRAC_PI_6;
    let (c, s) = (a.cos(), a.sin());
    let body = [Polygon::segment([-c, -s], [c, s], 0.0).unwrap()];
    let mut world = World::from_polygons(&gpu, &body, &WorldOptions::default()).unwrap();
    let stick = [Polygon::segment([-0.5, 0.0], [0.5, 0.0], 0.0).unwrap()];
    let normal = [-s, c];
    let casts: Vec<ShapeCast> = (0..20)
        .map(|k| {
            let along = -0.4 + 0.04 * k as f64;
            let from = [along * c + 2.0 * normal[0], along * s + 2.0 * normal[1]];
            // Turned by up to a few f32 roundings more or less than the body.
            let angle = a + (k as f64 - 10.0) * 3e-8;
            ShapeCast { angle, ..ShapeCast::new(0, from, [-normal[0], -normal[1]], 4.0) }
        })
        .collect();
    let got = world.cast_shapes(&stick, &casts).unwrap();
    for (k, hit) in got.iter().enumerate() {
        let hit = hit.unwrap_or_else(|| panic!("cast {k} missed"));
        assert!((hit.fraction * 4.0 - 2.0).abs() < 1e-5, "cast {k}: {hit:?}");
    }
    // Crossing it at the start (turned a quarter turn more): fraction 0.
    let across = ShapeCast { angle: a + 1.2, ..ShapeCast::new(0, [0.1 * c, 0.1 * s], [1.0, 0.0], 1.0) };
    assert_eq!(world.cast_shapes(&stick, &[across]).unwrap()[0].map(|h| h.fraction), Some(0.0));
}

/// Issue 62: casts and rays from 1e5 and 1e6 away onto corners (sharp and rounded) and sides,
/// under every broad phase: the reference's answers, each normal unit and against the way.
#[test]
fn gpu_long_casts_onto_corners_and_sides_give_unit_normals() {
    let (bodies, shapes, casts) = common::long_casts();
    let rays: Vec<Ray> = casts.iter().map(|c| Ray::new(c.origin, c.direction, c.max_length)).collect();
    let gpu = common::gpu();
    for (mut world, name) in common::every_broad_phase(&gpu, &bodies) {
        let got = world.cast_shapes(&shapes, &casts).unwrap();
        let hits = agree(&bodies, &shapes, &casts, &got, name);
        assert!(hits >= casts.len() / 4, "{name}: only {hits} of {} casts hit", casts.len());
        let by_ray = world.cast_rays(&rays).unwrap();
        for (k, h) in by_ray.iter().enumerate() {
            let Some(h) = h else { continue };
            let (n, d) = (h.normal, rays[k].direction);
            assert!((n[0].hypot(n[1]) - 1.0).abs() < 1e-6, "{name}: ray {k} {:?}: {h:?}", rays[k]);
            assert!(n[0] * d[0] + n[1] * d[1] <= 1e-3 * d[0].hypot(d[1]), "{name}: ray {k}: {h:?}");
        }
        assert!(by_ray.iter().flatten().count() >= rays.len() / 4, "{name}: too few rays hit");
    }
}
