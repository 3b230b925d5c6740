//! Containment flags and contact manifolds (`ContactDetail::Full`): analytic cases with known
//! answers, then the GPU against the reference (`validate::check_manifold`) on generated scenes
//! of every kind, nested shapes and a pile-up run in batches.

mod common;

use satgpu::gpu::{ContactDetail, Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::validate;
use satgpu::validate::check_manifold;

use satgpu::DetectOptions;
use satgpu::{reference, Contact, ContactPoint, Manifold, Polygon, Transform};

fn full_options() -> WorldOptions {
    WorldOptions::default().with_contact_detail(ContactDetail::Full)
}

/// One frame with manifolds.
fn full(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> (Vec<Contact>, Vec<Manifold>) {
    let mut world = World::from_polygons(gpu, polygons, options).expect("world");
    let frame = world.step().expect("frame");
    assert_eq!(frame.manifolds.len(), frame.contacts.len(), "one manifold per contact");
    (frame.contacts, frame.manifolds)
}

/// The GPU's manifolds on `polygons` pass `check_manifold` for every pair, and asking for them
/// changes no contact. Returns the manifolds.
fn check_scene(gpu: &Gpu, polygons: &[Polygon], what: &str) -> (Vec<Contact>, Vec<Manifold>) {
    let (basic, _) = common::gpu_contacts(gpu, polygons, &WorldOptions::default());
    let (contacts, manifolds) = full(gpu, polygons, &full_options());
    assert_eq!(common::bits(&contacts), common::bits(&basic), "{what}: the full detail changed the contacts");
    let wrong = validate::compare_manifolds(polygons, &contacts, &[], &[], &DetectOptions::default());
    assert!(wrong.is_empty(), "{what}: {} of {} manifolds wrong, first: {:?}", wrong.len(), contacts.len(), wrong[0]);
    (contacts, manifolds)
}

#[test]
fn generated_scenes_of_every_kind_agree_with_the_reference() {
    let gpu = common::gpu();
    let mut two_points = 0;
    let mut total = 0;
    for kind in SceneKind::ALL {
        for seed in 1..=2 {
            let polygons = scene::generate(kind, 1500, seed);
            let (_, manifolds) = check_scene(&gpu, &polygons, &format!("{kind:?} seed {seed}"));
            total += manifolds.len();
            two_points += manifolds.iter().filter(|m| m.points().len() == 2).count();
        }
    }
    eprintln!("{total} manifolds, {two_points} with two points");
    assert!(total > 10_000 && two_points > 1000, "the scenes must exercise both kinds of manifold");
}

fn poly(v: &[[f64; 2]]) -> Polygon {
    Polygon::new(v.to_vec()).unwrap()
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    poly(&[[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
}

/// One analytic case: two shapes, the flags `(a_in_b, b_in_a)` and the points `(x, y, depth)`
/// in order, or `None` where only the count is known in advance (and checked by the reference).
struct Case {
    name: &'static str,
    a: Polygon,
    b: Polygon,
    flags: (bool, bool),
    points: Vec<(f64, f64, f64)>,
}

fn cases() -> Vec<Case> {
    let c = |name, a, b, flags, points| Case { name, a, b, flags, points };
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let diamond = poly(&[[2.0, 1.7], [2.0 + s, 1.7 + s], [2.0, 1.7 + 2.0 * s], [2.0 - s, 1.7 + s]]);
    let hexagon = poly(&[[0.0, -4.0], [4.0, -2.0], [4.0, 2.0], [0.0, 4.0], [-4.0, 2.0], [-4.0, -2.0]]);
    let inner = poly(&[[0.0, -4.0], [2.0, 0.0], [0.0, 3.0], [-4.0, 2.0]]);
    let tilted = rect(0.0, 0.0, 2.0, 1.0).transformed(&Transform { x: 1.0, y: 1.9, angle: 0.3 });
    vec![
        // Face on face: the incident face clipped to the reference face, two points midway.
        c(
            "box on box",
            rect(0.0, 0.0, 4.0, 2.0),
            rect(1.0, 1.0, 3.0, 3.0),
            (false, false),
            vec![(1.0, 1.5, 1.0), (3.0, 1.5, 1.0)],
        ),
        // A corner into a face: one point, the corner moved half the depth out of the face.
        c("diamond corner into a face", rect(0.0, 0.0, 4.0, 2.0), diamond, (false, false), vec![(2.0, 1.85, 0.3)]),
        // A tilted box's lower corner in a face: one point at that corner.
        c("rotated box on a box", rect(-1.0, 0.0, 5.0, 2.0), tilted.clone(), (false, false), vec![]),
        c(
            "circle in a box",
            rect(0.0, 0.0, 10.0, 10.0),
            Polygon::circle([5.0, 5.0], 2.0).unwrap(),
            (false, true),
            vec![(5.0, 3.5, 7.0)],
        ),
        // Touching the wall from inside still lies inside (closed sets), exactly.
        c(
            "circle touching a box from inside",
            rect(0.0, 0.0, 10.0, 10.0),
            Polygon::circle([2.0, 5.0], 2.0).unwrap(),
            (false, true),
            vec![],
        ),
        c(
            "circle poking out of a box",
            rect(0.0, 0.0, 10.0, 10.0),
            Polygon::circle([2.0, 5.0], 2.5).unwrap(),
            (false, false),
            vec![],
        ),
        c(
            "circle on a box's face",
            Polygon::circle([2.0, 3.0], 1.5).unwrap(),
            rect(0.0, 0.0, 4.0, 2.0),
            (false, false),
            vec![(2.0, 1.75, 0.5)],
        ),
        // The capsule's core crosses the box: the box's bottom face wins the tie, points at the
        // box's sides midway between the box's bottom and the capsule's top surface.
        c(
            "capsule across a box",
            rect(0.0, 0.0, 4.0, 2.0),
            Polygon::capsule([-2.0, 1.0], [6.0, 1.0], 0.5).unwrap(),
            (false, false),
            vec![(4.0, 0.75, 1.5), (0.0, 0.75, 1.5)],
        ),
        c(
            "capsule on a triangle",
            Polygon::capsule([30.0, 0.0], [36.0, 0.0], 1.0).unwrap(),
            poly(&[[32.0, -0.5], [34.0, -0.5], [33.0, 2.0]]),
            (false, false),
            vec![],
        ),
        c("nested polygons", hexagon.clone(), inner.clone(), (false, true), vec![]),
        c("nested polygons, b first", inner.clone(), hexagon.clone(), (true, false), vec![]),
        c("a polygon in itself", hexagon.clone(), hexagon.clone(), (true, true), vec![]),
        c(
            "one vertex out",
            hexagon.clone(),
            poly(&[[0.0, -4.0], [2.0, 0.0], [0.0, 5.0], [-4.0, 2.0]]),
            (false, false),
            vec![],
        ),
        // Rounded: a circle of radius 3 in a rounded square of radius 1 around [0,4]^2 touches
        // its flat sides from inside (delta = 2 >= 0); a square in a circle reaches it at a corner
        // (delta < 0, the 3-4-5 triangle).
        c(
            "circle in a rounded square",
            Polygon::rounded(vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]], 1.0).unwrap(),
            Polygon::circle([2.0, 2.0], 3.0).unwrap(),
            (false, true),
            vec![],
        ),
        c(
            "circle too big for a rounded square",
            Polygon::rounded(vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]], 1.0).unwrap(),
            Polygon::circle([2.0, 2.0], 3.5).unwrap(),
            (false, false),
            vec![],
        ),
        c(
            "box in a circle (3-4-5)",
            rect(0.0, 0.0, 3.0, 4.0),
            Polygon::circle([0.0, 0.0], 5.0).unwrap(),
            (true, false),
            vec![],
        ),
        c(
            "box out of a circle",
            rect(0.0, 0.0, 3.0, 4.0),
            Polygon::circle([0.0, 0.0], 4.5).unwrap(),
            (false, false),
            vec![],
        ),
        c(
            "capsule in a capsule",
            Polygon::capsule([0.0, 0.0], [4.0, 0.0], 1.0).unwrap(),
            Polygon::capsule([1.0, 0.0], [3.0, 0.0], 1.0).unwrap(),
            (false, true),
            vec![],
        ),
        // Corners touching: depth 0, one point at the shared corner.
        c(
            "touching corners",
            rect(0.0, 0.0, 2.0, 2.0),
            rect(2.0, 2.0, 4.0, 4.0),
            (false, false),
            vec![(2.0, 2.0, 0.0)],
        ),
    ]
}

fn close(p: &ContactPoint, want: (f64, f64, f64)) -> bool {
    let tol = 1e-5;
    (p.point[0] - want.0).abs() <= tol && (p.point[1] - want.1).abs() <= tol && (p.depth - want.2).abs() <= tol
}

#[test]
fn analytic_cases_on_the_gpu_and_the_reference() {
    let gpu = common::gpu();
    for case in cases() {
        let polygons = [case.a.clone(), case.b.clone()];
        let (contacts, manifolds) = full(&gpu, &polygons, &full_options());
        assert_eq!(contacts.len(), 1, "{}: the pair collides", case.name);
        let reference_contact = {
            let (normal, depth) = reference::contact(&case.a, &case.b).unwrap();
            Contact { a: 0, b: 1, normal, depth }
        };
        for (who, contact, m) in [
            ("gpu", &contacts[0], manifolds[0]),
            ("reference", &reference_contact, reference::manifold(&case.a, &case.b, &reference_contact)),
        ] {
            assert_eq!((m.a_in_b, m.b_in_a), case.flags, "{}: {who} flags", case.name);
            if !case.points.is_empty() {
                assert_eq!(m.points().len(), case.points.len(), "{}: {who} points {:?}", case.name, m.points());
                for (p, &want) in m.points().iter().zip(&case.points) {
                    assert!(close(p, want), "{}: {who} point {p:?}, expected {want:?}", case.name);
                }
            }
            if who == "gpu" {
                assert_eq!(check_manifold(&case.a, &case.b, contact, &m), None, "{}", case.name);
            }
        }
    }
}

#[test]
fn the_checker_rejects_wrong_manifolds() {
    let a = rect(0.0, 0.0, 4.0, 2.0);
    let b = rect(1.0, 1.0, 3.0, 3.0);
    let contact = Contact { a: 0, b: 1, normal: [0.0, 1.0], depth: 1.0 };
    let good = reference::manifold(&a, &b, &contact);
    assert_eq!(check_manifold(&a, &b, &contact, &good), None);
    let p = good.points();
    let moved = ContactPoint { point: [p[0].point[0] + 0.01, p[0].point[1]], ..p[0] };
    let deeper = ContactPoint { depth: 1.001, ..p[0] };
    let wrong = [
        ("a point moved", Manifold::new(false, false, &[moved, p[1]])),
        ("a point lost", Manifold::new(false, false, &p[..1])),
        ("a depth too deep", Manifold::new(false, false, &[deeper, p[1]])),
        ("a flag set", Manifold::new(true, false, p)),
        ("a point outside both", Manifold::new(false, false, &[ContactPoint { point: [2.0, 5.0], depth: 1.0 }, p[1]])),
    ];
    for (what, m) in wrong {
        assert!(check_manifold(&a, &b, &contact, &m).is_some(), "{what} passed the check");
    }
}

/// Shapes with smaller copies of themselves and circles inside them, so that both flags occur.
fn nested_scene() -> Vec<Polygon> {
    let outer = scene::generate(SceneKind::Shapes, 300, 5);
    let mut out = vec![];
    for (i, p) in outer.iter().enumerate() {
        let v = p.vertices();
        let c = v.iter().fold([0.0, 0.0], |s, q| [s[0] + q[0] / v.len() as f64, s[1] + q[1] / v.len() as f64]);
        let shrink = [0.3, 0.6, 0.95, 1.0][i % 4];
        let core: Vec<[f64; 2]> =
            v.iter().map(|q| [c[0] + (q[0] - c[0]) * shrink, c[1] + (q[1] - c[1]) * shrink]).collect();
        out.push(p.clone());
        out.push(Polygon::from_core(core, p.radius() * shrink).unwrap());
        out.push(Polygon::circle(c, 0.05 + 0.02 * (i % 5) as f64).unwrap());
    }
    out
}

#[test]
fn nested_shapes_get_their_flags() {
    let gpu = common::gpu();
    let polygons = nested_scene();
    let (_, manifolds) = check_scene(&gpu, &polygons, "nested");
    let inside = manifolds.iter().filter(|m| m.a_in_b || m.b_in_a).count();
    let both = manifolds.iter().filter(|m| m.a_in_b && m.b_in_a).count();
    assert!(inside > 300 && both > 0, "nested scene: {inside} pairs with a flag, {both} with both");
}

#[test]
fn a_pile_up_in_batches_gives_the_same_manifolds() {
    let lock = common::gpu();
    let small = common::small_device();
    let polygons: Vec<Polygon> = (0..400)
        .map(|i| {
            let x = (i % 7) as f64 * 0.03;
            match i % 4 {
                0 => Polygon::circle([x, 0.1], 0.5),
                1 => Polygon::capsule([x, 0.0], [x + 1.0, 0.5], 0.25),
                2 => Polygon::rounded(vec![[x, 0.0], [x + 1.0, 0.0], [x, 1.0]], 0.125),
                _ => Polygon::new(vec![[x, 0.0], [x + 1.2, 0.1], [x + 0.9, 1.0], [x - 0.1, 0.8]]),
            }
            .unwrap()
        })
        .collect();
    let (want_contacts, want) = full(&lock, &polygons, &full_options());
    let mut world = World::from_polygons(&small, &polygons, &full_options()).unwrap();
    let frame = world.step().unwrap();
    assert!(frame.stats.batches > 1, "{} candidates ran in one batch", frame.stats.candidates);
    assert_eq!(common::bits(&frame.contacts), common::bits(&want_contacts));
    assert_eq!(frame.manifolds, want, "batched manifolds differ");
    assert!(validate::compare_manifolds(&polygons, &want_contacts, &[], &[], &DetectOptions::default()).is_empty());
    // Switching the detail off and on again on a live world.
    world.set_contact_detail(ContactDetail::Basic).unwrap();
    assert!(world.step().unwrap().manifolds.is_empty());
    world.set_contact_detail(ContactDetail::Full).unwrap();
    assert_eq!(world.step().unwrap().manifolds, want);
}
