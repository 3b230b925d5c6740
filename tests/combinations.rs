//! Issue 41: every option of a detection with every other. For {one shape, several shapes per
//! body} x {margin 0, > 0} x {basic, full contacts} x {GPU, host ordering} x {filters on the
//! first and the last body, none} x {one batch, several}, the GPU's one-shot `detect` equals the
//! reference's `detect` with the same options under the numerics contract: the same pairs outside
//! the band, depths and normals within it, manifolds that pass the contract's checks, and no pair
//! the filters exclude. (Contact events across the same choices are in tests/events.rs.)

mod common;

use satgpu::gpu::{self, Gpu};
use satgpu::scene::{generate, SceneKind};
use satgpu::{reference, validate, Body, ContactDetail, ContactOrder, DetectOptions, Filter, Polygon, Transform};

/// `n` shapes of every kind: spread out (about 6 candidates per shape), or piled into one spot,
/// where every pair is a candidate (past what one binding of the small device holds).
fn shapes(n: usize, piled: bool) -> Vec<Polygon> {
    let spread = generate(SceneKind::Shapes, n, 11);
    if !piled {
        return spread;
    }
    spread
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // Each shape's box centre moved to within 0.3 of the origin.
            let b = p.aabb();
            let c = [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
            let at = [(i % 7) as f64 * 0.05, (i % 5) as f64 * 0.06];
            p.transformed(&Transform { x: at[0] - c[0], y: at[1] - c[1], angle: 0.0 })
        })
        .collect()
}

/// The shapes grouped into bodies of 1 to 3 consecutive shapes.
fn grouped(shapes: &[Polygon]) -> Vec<Body> {
    let mut out = vec![];
    let mut rest = shapes;
    let mut k = 0;
    while !rest.is_empty() {
        let take = (k % 3 + 1).min(rest.len());
        out.push(Body::new(rest[..take].to_vec()).unwrap());
        rest = &rest[take..];
        k += 1;
    }
    out
}

/// One cell of the matrix: the GPU's answer against the reference's; returns the GPU's batches.
fn cell<B: AsRef<[Polygon]>>(gpu: &Gpu, bodies: &[B], options: &DetectOptions, what: &str) -> u32 {
    let frame = gpu::detect(gpu, bodies, options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = reference::detect(bodies, options);
    assert!(!want.contacts.is_empty(), "{what}: the scene has pairs");
    let report = validate::compare(bodies, &frame.contacts, &want.contacts, options);
    assert!(report.ok(), "{what}: {} disagreements, first {}", report.disagreements.len(), report.disagreements[0]);
    let several = bodies.iter().any(|b| b.as_ref().len() > 1);
    assert_eq!(frame.shapes.len(), if several { frame.contacts.len() } else { 0 }, "{what}: shape pairs");
    match options.contact_detail {
        ContactDetail::Full => {
            assert_eq!(frame.manifolds.len(), frame.contacts.len(), "{what}: one manifold per pair");
            let wrong = validate::compare_manifolds(bodies, &frame.contacts, &frame.shapes, &frame.manifolds, options);
            assert!(wrong.is_empty(), "{what}: {} manifolds wrong, first {:?}", wrong.len(), wrong[0]);
        }
        _ => assert!(frame.manifolds.is_empty(), "{what}: no manifolds asked for"),
    }
    if let Some(filter) = options.filters.first() {
        // The first and the last body share a negative group: never a pair, with each other.
        let last = bodies.len() as u32 - 1;
        assert_eq!(filter.group, -7);
        assert!(!frame.contacts.iter().any(|c| (c.a, c.b) == (0, last)), "{what}: a filtered pair");
        assert!(!want.contacts.iter().any(|c| (c.a, c.b) == (0, last)), "{what}: the reference's filtered pair");
    }
    frame.stats.batches
}

#[test]
fn every_option_with_every_other_agrees_with_the_reference() {
    let gpu = common::gpu();
    let small = common::small_device();
    let mut cells = 0;
    for (piled, device) in [(false, &*gpu), (true, &small)] {
        let polygons = shapes(300, piled);
        let bodies = grouped(&polygons);
        for several in [false, true] {
            let n = if several { bodies.len() } else { polygons.len() };
            // The first and last body in one negative group, and each near the other in a pile.
            let mut filters = vec![Filter::DEFAULT; n];
            (filters[0].group, filters[n - 1].group) = (-7, -7);
            for margin in [0.0, 0.25] {
                for detail in [ContactDetail::Basic, ContactDetail::Full] {
                    for order in [ContactOrder::Gpu, ContactOrder::Host] {
                        for filtered in [false, true] {
                            let mut options = DetectOptions::default()
                                .with_margin(margin)
                                .with_contact_detail(detail)
                                .with_order(order);
                            if filtered {
                                options = options.with_filters(filters.clone());
                            }
                            let what = format!(
                                "piled {piled}, several shapes {several}, margin {margin}, {detail:?}, {order:?}, filters {filtered}"
                            );
                            let batches = match several {
                                true => cell(device, &bodies, &options, &what),
                                false => cell(device, &polygons, &options, &what),
                            };
                            assert_eq!(batches > 1, piled, "{what}: {batches} batches");
                            cells += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cells, 64);
}
