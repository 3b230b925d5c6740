//! Issue 26, ray casts and region queries: the f64 reference (`reference::cast_rays`,
//! `query_boxes`, `query_points`) by hand (rays along edges, through vertices, grazing circles,
//! starting inside, too short, queries with no result, filters) and against sampling on every
//! scene kind. The GPU's come next and are judged by these.

use satgpu::reference::{cast_rays, distance_to_shape, query_boxes, query_points};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Aabb, BoxQuery, Filter, PointQuery, Polygon, Ray};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn close(x: f64, want: f64, what: &str) {
    assert!((x - want).abs() <= 1e-12 * want.abs().max(1.0), "{what}: {x} against {want}");
}

#[test]
fn rays_by_hand() {
    let unit = rect(0.0, 0.0, 1.0, 1.0);
    let scene = [unit.clone()];
    let hit = |origin: [f64; 2], direction: [f64; 2], length: f64| {
        cast_rays(&scene, &[], &[Ray::new(origin, direction, length)])[0]
    };
    // Head on: a tenth of the way along, on the left face.
    let h = hit([-1.0, 0.5], [2.0, 0.0], 10.0).expect("hit");
    close(h.fraction, 0.1, "head on");
    assert_eq!((h.body, h.point, h.normal), (0, [0.0, 0.5], [-1.0, 0.0]));
    // Too short, pointing away, passing by: no hit.
    assert!(hit([-1.0, 0.5], [1.0, 0.0], 0.5).is_none());
    assert!(hit([-1.0, 0.5], [-1.0, 0.0], 10.0).is_none());
    assert!(hit([-1.0, 1.5], [1.0, 0.0], 10.0).is_none());
    // Exactly long enough: the boundary counts.
    close(hit([-1.0, 0.5], [1.0, 0.0], 1.0).expect("reaches the face").fraction, 1.0, "exact length");
    // Along an edge's line: it meets the corner; the normal is one of the corner's.
    let h = hit([-1.0, 0.0], [1.0, 0.0], 10.0).expect("grazes the bottom edge");
    assert_eq!(h.point, [0.0, 0.0]);
    assert!(h.normal == [0.0, -1.0] || h.normal == [-1.0, 0.0], "{:?}", h.normal);
    // Through a vertex.
    let h = hit([-1.0, -1.0], [1.0, 1.0], 10.0).expect("through the corner");
    close(h.fraction, 2f64.sqrt() / 10.0, "corner");
    assert!(h.normal == [0.0, -1.0] || h.normal == [-1.0, 0.0], "{:?}", h.normal);
    // Starting inside, or on the boundary: fraction 0 and no normal.
    for origin in [[0.5, 0.5], [1.0, 0.3]] {
        let h = hit(origin, [1.0, 0.0], 10.0).expect("inside");
        assert_eq!((h.fraction, h.point, h.normal), (0.0, origin, [0.0, 0.0]));
    }
    // Grazing a circle: tangent at its top.
    let circle = [Polygon::circle([0.0, 0.0], 1.0).unwrap()];
    let h = cast_rays(&circle, &[], &[Ray::new([-5.0, 1.0], [1.0, 0.0], 10.0)])[0].expect("tangent");
    close(h.point[0], 0.0, "tangent x");
    close(h.normal[1], 1.0, "tangent normal");
    assert!(cast_rays(&circle, &[], &[Ray::new([-5.0, 1.0 + 1e-9], [1.0, 0.0], 10.0)])[0].is_none());
    // A capsule from its side and from its end; a rounded box at its corner.
    let capsule = [Polygon::capsule([0.0, 0.0], [4.0, 0.0], 0.5).unwrap()];
    let side = cast_rays(&capsule, &[], &[Ray::new([2.0, 3.0], [0.0, -1.0], 10.0)])[0].unwrap();
    assert_eq!((side.point, side.normal), ([2.0, 0.5], [0.0, 1.0]));
    let end = cast_rays(&capsule, &[], &[Ray::new([7.0, 0.0], [-1.0, 0.0], 10.0)])[0].unwrap();
    assert_eq!((end.point, end.normal), ([4.5, 0.0], [1.0, 0.0]));
    let rounded = [Polygon::rounded(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], 0.5).unwrap()];
    let corner = cast_rays(&rounded, &[], &[Ray::new([3.0, 3.0], [-1.0, -1.0], 10.0)])[0].unwrap();
    let s = 0.5f64.sqrt();
    close(corner.point[0], 1.0 + 0.5 * s, "rounded corner");
    close(corner.normal[0], s, "rounded corner normal");
}

#[test]
fn the_nearest_body_wins_and_filters_apply() {
    let scene = [rect(5.0, 0.0, 6.0, 1.0), rect(2.0, 0.0, 3.0, 1.0), rect(2.0, 0.0, 3.0, 1.0)];
    let ray = Ray::new([0.0, 0.5], [1.0, 0.0], 100.0);
    // Bodies 1 and 2 tie at 2: the lower index.
    assert_eq!(cast_rays(&scene, &[], &[ray])[0].unwrap().body, 1);
    // A ray that does not see category 2 skips bodies 1 and 2; one that sees nothing, all.
    let filters =
        [Filter::DEFAULT, Filter { category: 2, ..Filter::DEFAULT }, Filter { category: 2, ..Filter::DEFAULT }];
    let blind = Ray { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..ray };
    assert_eq!(cast_rays(&scene, &filters, &[blind])[0].unwrap().body, 0);
    let none = Ray { filter: Filter { mask: 0, ..Filter::DEFAULT }, ..ray };
    assert!(cast_rays(&scene, &filters, &[none])[0].is_none());
    // Many rays in one call, none of them into an empty scene.
    assert_eq!(cast_rays(&[], &[], &[ray, ray]), vec![None, None]);
}

#[test]
fn boxes_and_points_by_hand() {
    let scene = [
        rect(0.0, 0.0, 1.0, 1.0),
        Polygon::circle([5.0, 5.0], 1.0).unwrap(),
        Polygon::capsule([10.0, 0.0], [12.0, 0.0], 0.5).unwrap(),
    ];
    let q = |x0: f64, y0: f64, x1: f64, y1: f64| BoxQuery {
        aabb: Aabb { min: [x0, y0], max: [x1, y1] },
        filter: Filter::DEFAULT,
    };
    let boxes = [
        q(1.0, 0.0, 2.0, 1.0),       // touching the square's right face
        q(4.9, 4.9, 5.1, 5.1),       // inside the circle
        q(5.8, 5.8, 7.0, 7.0),       // the circle's box, not the circle
        q(-10.0, -10.0, 20.0, 20.0), // everything
        q(20.0, 20.0, 21.0, 21.0),   // nothing
    ];
    let got = query_boxes(&scene, &[], &boxes);
    assert_eq!(got, vec![vec![0], vec![1], vec![], vec![0, 1, 2], vec![]]);
    let p = |x: f64, y: f64| PointQuery { point: [x, y], filter: Filter::DEFAULT };
    let points = [p(1.0, 0.5), p(5.0, 6.0), p(5.8, 5.8), p(12.5, 0.0), p(11.0, 0.5), p(11.0, 0.51)];
    let got = query_points(&scene, &[], &points);
    assert_eq!(got, vec![vec![0], vec![1], vec![], vec![2], vec![2], vec![]]);
    // Filters: a box that does not see category 2.
    let filters = [Filter::DEFAULT, Filter { category: 2, ..Filter::DEFAULT }, Filter::DEFAULT];
    let blind = BoxQuery { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..boxes[3] };
    assert_eq!(query_boxes(&scene, &filters, &[blind]), vec![vec![0, 2]]);
}

/// On every kind: each hit point lies on its body, and no body the ray sees lies on the ray
/// before it (sampled); each box's and point's answer is what the definitions give.
#[test]
fn rays_and_queries_on_every_kind() {
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 300, 11);
        let bounds = polygons.iter().map(|p| p.aabb()).fold(polygons[0].aabb(), |a, b| Aabb {
            min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
            max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
        });
        let (w, h) = (bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]);
        let at = |k: usize, of: usize| {
            [bounds.min[0] + w * (k % of) as f64 / of as f64, bounds.min[1] + h * (k / of) as f64 / of as f64]
        };
        let rays: Vec<Ray> = (0..40)
            .map(|k| {
                let angle = k as f64 * 0.7;
                Ray::new(at(k * 7 % 36, 6), [angle.cos(), angle.sin()], 0.5 * w.max(h))
            })
            .collect();
        let hits = cast_rays(&polygons, &[], &rays);
        let mut hit_count = 0;
        for (ray, hit) in rays.iter().zip(&hits) {
            let len = ray.direction[0].hypot(ray.direction[1]);
            let d = [ray.direction[0] / len, ray.direction[1] / len];
            let end = hit.map_or(ray.max_length, |h| h.fraction * ray.max_length);
            if let Some(h) = hit {
                hit_count += 1;
                let scale = polygons[h.body as usize].aabb().max[0].abs().max(w);
                assert!(distance_to_shape(&polygons[h.body as usize], h.point) <= 1e-9 * scale, "{kind:?}: {h:?}");
            }
            for s in 0..200 {
                let t = end * s as f64 / 200.0;
                if t >= end * (1.0 - 1e-9) {
                    break;
                }
                let x = [ray.origin[0] + t * d[0], ray.origin[1] + t * d[1]];
                assert!(
                    polygons.iter().all(|p| distance_to_shape(p, x) > 0.0),
                    "{kind:?}: {x:?} lies in a body before the hit"
                );
            }
        }
        // Scales spreads its shapes over many orders of magnitude, and outliers over a box far
        // larger than the crowd: few rays meet one.
        let least = if matches!(kind, SceneKind::Scales | SceneKind::Outliers) { 1 } else { 5 };
        assert!(hit_count >= least, "{kind:?}: only {hit_count} of 40 rays hit");
        let points: Vec<PointQuery> =
            (0..64).map(|k| PointQuery { point: at(k, 8), filter: Filter::DEFAULT }).collect();
        for (q, got) in points.iter().zip(query_points(&polygons, &[], &points)) {
            let want: Vec<u32> = (0..polygons.len() as u32)
                .filter(|&i| distance_to_shape(&polygons[i as usize], q.point) == 0.0)
                .collect();
            assert_eq!(got, want, "{kind:?}: point {q:?}");
        }
        let boxes: Vec<BoxQuery> = (0..16)
            .map(|k| {
                let lo = at(k, 4);
                BoxQuery { aabb: Aabb { min: lo, max: [lo[0] + 0.1 * w, lo[1] + 0.1 * h] }, filter: Filter::DEFAULT }
            })
            .collect();
        let found = query_boxes(&polygons, &[], &boxes);
        assert!(
            found.iter().any(|f| !f.is_empty()) && found.iter().all(|f| f.windows(2).all(|p| p[0] < p[1])),
            "{kind:?}"
        );
        // Every body found has its box meeting the query box.
        for (q, f) in boxes.iter().zip(&found) {
            for &i in f {
                let b = polygons[i as usize].aabb();
                assert!(
                    b.min[0] <= q.aabb.max[0]
                        && b.max[0] >= q.aabb.min[0]
                        && b.min[1] <= q.aabb.max[1]
                        && b.max[1] >= q.aabb.min[1]
                );
            }
        }
    }
}
