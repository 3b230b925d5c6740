//! Issue 25: compound bodies in the reference and the validator. Pairs are between bodies; a
//! pair carries its deepest part pair's normal and depth; parts of one body never collide; a
//! body's filter applies to all its parts; one part per body is the plain reference.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::geometry::MAX_PARTS;
use satgpu::reference::{detect_compound, detect_compound_parts, detect_filtered};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate::compare_compound;
use satgpu::{Compound, Contact, Filter, Polygon, PolygonError, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

/// An L: a 4 x 1 foot along y = 0 and a 1 x 4 upright at x = 0, as a concave outline.
fn ell(x: f64, y: f64) -> Compound {
    Compound::concave(&[[x, y], [x + 4.0, y], [x + 4.0, y + 1.0], [x + 1.0, y + 1.0], [x + 1.0, y + 4.0], [x, y + 4.0]])
        .unwrap()
}

#[test]
fn compounds_are_made_from_parts_or_outlines() {
    assert_eq!(Compound::new(vec![]), Err(PolygonError::NoParts));
    let many = vec![rect(0.0, 0.0, 1.0, 1.0); MAX_PARTS + 1];
    assert_eq!(Compound::new(many), Err(PolygonError::TooManyParts { count: MAX_PARTS + 1, max: MAX_PARTS }));
    let l = ell(0.0, 0.0);
    assert_eq!(l.parts().len(), 2);
    let aabb = l.aabb();
    assert_eq!((aabb.min, aabb.max), ([0.0, 0.0], [4.0, 4.0]));
    let moved = l.transformed(&Transform { x: 10.0, y: -1.0, angle: 0.0 });
    assert_eq!((moved.aabb().min, moved.aabb().max), ([10.0, -1.0], [14.0, 3.0]));
    let one: Compound = rect(0.0, 0.0, 1.0, 1.0).into();
    assert_eq!(one.parts().len(), 1);
    let mixed = Compound::new(vec![
        Polygon::circle([0.0, 0.0], 1.0).unwrap(),
        Polygon::capsule([0.0, 0.0], [3.0, 0.0], 0.5).unwrap(),
        Polygon::rounded(vec![[3.0, 0.0], [4.0, 0.0], [4.0, 1.0]], 0.1).unwrap(),
    ])
    .unwrap();
    assert_eq!(mixed.into_parts().len(), 3);
}

#[test]
fn a_pair_of_bodies_carries_its_deepest_part_pair() {
    // A square over the L's corner: 0.25 into the foot's top, 0.5 into the upright's side.
    let bodies =
        vec![ell(0.0, 0.0), Compound::from(rect(0.5, 0.75, 1.75, 1.5)), Compound::from(rect(9.0, 9.0, 10.0, 10.0))];
    let got = detect_compound_parts(&bodies, &[]);
    assert_eq!(got.len(), 1, "{got:?}");
    let (c, parts) = &got[0];
    assert_eq!((c.a, c.b), (0, 1));
    // The deepest part pair is the one the square enters least shallowly: the reference's
    // depth of that part pair, and no other.
    let (depths, best): (Vec<f64>, _) = {
        let l = &bodies[0];
        let d: Vec<f64> = l
            .parts()
            .iter()
            .map(|p| satgpu::reference::contact(p, &bodies[1].parts()[0]).map_or(f64::NEG_INFINITY, |c| c.1))
            .collect();
        let best = (0..d.len()).max_by(|&i, &j| d[i].total_cmp(&d[j]).then(j.cmp(&i))).unwrap();
        (d, best)
    };
    assert!(depths.iter().filter(|d| d.is_finite()).count() == 2, "the square meets both parts: {depths:?}");
    assert_eq!(c.depth, depths[best]);
    assert_eq!(*parts, [best as u32, 0]);
}

#[test]
fn parts_of_one_body_never_collide_and_filters_cover_every_part() {
    // One body of two overlapping squares, another far away: no pair.
    let overlapping = Compound::new(vec![rect(0.0, 0.0, 2.0, 2.0), rect(1.0, 1.0, 3.0, 3.0)]).unwrap();
    let bodies = vec![overlapping.clone(), Compound::from(rect(10.0, 0.0, 11.0, 1.0))];
    assert!(detect_compound(&bodies, &[]).is_empty());
    // A third body touching the second part of the first: one pair, unless filtered out.
    let bodies =
        vec![overlapping, Compound::from(rect(10.0, 0.0, 11.0, 1.0)), Compound::from(rect(2.5, 2.5, 4.0, 4.0))];
    let pairs: Vec<(u32, u32)> = detect_compound(&bodies, &[]).iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 2)]);
    let mut filters = vec![Filter::DEFAULT; 3];
    filters[0].mask = 0; // the first body, all of its parts
    assert!(detect_compound(&bodies, &filters).is_empty());
}

#[test]
fn one_part_per_body_is_the_plain_reference() {
    for kind in [SceneKind::Crowd, SceneKind::Shapes, SceneKind::Grid] {
        let polygons = generate(kind, 3000, 2);
        let bodies: Vec<Compound> = polygons.iter().cloned().map(Compound::from).collect();
        let mut filters = vec![Filter::DEFAULT; polygons.len()];
        filters[0].group = -1;
        filters[1].group = -1;
        let want = detect_filtered(&polygons, &filters);
        assert!(want.len() > 100, "{kind}");
        assert_eq!(detect_compound(&bodies, &filters), want, "{kind}");
    }
}

/// Random bodies of one to four parts (generated crowd polygons grouped in runs), moved apart.
fn random_bodies(n: usize, seed: u64) -> Vec<Compound> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let polygons = generate(SceneKind::Shapes, 4 * n, seed);
    let mut parts = polygons.into_iter();
    (0..n)
        .map(|_| {
            let k = rng.random_range(1..=4);
            Compound::new(parts.by_ref().take(k).collect()).unwrap()
        })
        .collect()
}

#[test]
fn the_validator_accepts_the_reference_and_catches_wrong_answers() {
    let bodies = random_bodies(1500, 3);
    let want = detect_compound(&bodies, &[]);
    assert!(want.len() > 100, "{} pairs", want.len());
    let report = compare_compound(&bodies, &want, &want);
    assert!(report.ok() && report.in_band == 0, "{:?}", report.disagreements.first());
    // A missing pair, a wrong depth, a turned normal and an invented pair are each caught.
    let first = want[0];
    let wrong: [(&str, Vec<Contact>); 4] = [
        ("missing", want[1..].to_vec()),
        (
            "depth",
            [Contact { depth: first.depth + 0.1, ..first }].into_iter().chain(want[1..].iter().copied()).collect(),
        ),
        ("normal", {
            let mut w = want.clone();
            w[0].normal = [-first.normal[1], first.normal[0]];
            w
        }),
        ("invented", {
            let mut w = want.clone();
            let far = (1..bodies.len() as u32).rev().find(|&b| !want.iter().any(|c| (c.a, c.b) == (0, b))).unwrap();
            w.push(Contact { a: 0, b: far, normal: [1.0, 0.0], depth: 0.5 });
            w.sort_by_key(|c| (c.a, c.b));
            w
        }),
    ];
    for (what, contacts) in wrong {
        assert!(!compare_compound(&bodies, &contacts, &want).ok(), "{what} not caught");
    }
}
