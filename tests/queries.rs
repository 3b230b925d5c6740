//! Issue 26, ray casts and region queries: the f64 reference (`reference::cast_rays`,
//! `query_boxes`, `query_points`) by hand (rays along edges, through vertices, grazing circles,
//! starting inside, too short, queries with no result, filters) and against sampling on every
//! scene kind. The GPU's come next and are judged by these.

use satgpu::gpu::World;
use satgpu::reference::{cast_rays, distance_to_shape, query_boxes, query_points};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Aabb, Body, BoxQuery, Filter, PointQuery, Polygon, Ray};

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
        world: 0,
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
    let p = |x: f64, y: f64| PointQuery { point: [x, y], filter: Filter::DEFAULT, world: 0 };
    let points = [p(1.0, 0.5), p(5.0, 6.0), p(5.8, 5.8), p(12.5, 0.0), p(11.0, 0.5), p(11.0, 0.51)];
    let got = query_points(&scene, &[], &points);
    assert_eq!(got, vec![vec![0], vec![1], vec![], vec![2], vec![2], vec![]]);
    // Filters: a box that does not see category 2.
    let filters = [Filter::DEFAULT, Filter { category: 2, ..Filter::DEFAULT }, Filter::DEFAULT];
    let blind = BoxQuery { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..boxes[3] };
    assert_eq!(query_boxes(&scene, &filters, &[blind]), vec![vec![0, 2]]);
}

/// A box of no width or no height is a segment, of neither a point: the reference decides every
/// box exactly, however thin, small or large (no box is refused that the GPU answers), and the
/// GPU's answers on these exact cases are the same; a box of no size finds what its point does.
#[test]
fn boxes_of_no_width_or_height_are_segments_and_points() {
    let scene = [
        rect(0.0, 0.0, 1.0, 1.0),
        rect(3.0, 0.0, 4.0, 1.0),
        Polygon::circle([10.0, 0.5], 0.5).unwrap(),
        Polygon::new(vec![[20.0, 0.0], [22.0, 0.0], [21.0, 2.0]]).unwrap(),
    ];
    let q = |x0: f64, y0: f64, x1: f64, y1: f64| BoxQuery::new(Aabb { min: [x0, y0], max: [x1, y1] });
    let cases: [(BoxQuery, &[u32]); 14] = [
        (q(1.0, -1.0, 1.0, 2.0), &[0]),                 // along the first square's right edge
        (q(1.5, -1.0, 1.5, 2.0), &[]),                  // between the squares
        (q(-5.0, 1.0, 8.0, 1.0), &[0, 1]),              // along both squares' tops
        (q(-5.0, 0.5, 30.0, 0.5), &[0, 1, 2, 3]),       // through every body
        (q(-5.0, 2.0, 19.0, 2.0), &[]),                 // above them all
        (q(21.0, 2.0, 21.0, 3.0), &[3]),                // up from the triangle's apex
        (q(20.0, 2.0, 23.0, 2.0), &[3]),                // level with the apex
        (q(21.0, 2.0, 21.0, 2.0), &[3]),                // the apex itself, a point
        (q(3.5, 0.5, 3.5, 0.5), &[1]),                  // a point inside
        (q(2.0, 0.5, 2.0, 0.5), &[]),                   // a point outside
        (q(0.0, 0.0, 1.0, 1e-15), &[0]),                // thinner than any shape may be
        (q(1e-31, 0.5, 2e-31, 0.5), &[0]),              // smaller than any shape may be
        (q(-1e37, -1e37, 1e37, 1e37), &[0, 1, 2, 3]),   // as large as coordinates go
        (q(4.0 + 2f64.powi(-20), -1.0, 9.0, 1.0), &[]), // beside the second square, a hair off
    ];
    let boxes: Vec<BoxQuery> = cases.iter().map(|c| c.0).collect();
    let want: Vec<Vec<u32>> = cases.iter().map(|c| c.1.to_vec()).collect();
    assert_eq!(query_boxes(&scene, &[], &boxes), want);
    let points: Vec<PointQuery> =
        boxes.iter().filter(|b| b.aabb.min == b.aabb.max).map(|b| PointQuery::new(b.aabb.min)).collect();
    let as_boxes: Vec<BoxQuery> = points.iter().map(|p| q(p.point[0], p.point[1], p.point[0], p.point[1])).collect();
    assert_eq!(query_points(&scene, &[], &points), query_boxes(&scene, &[], &as_boxes));
    let gpu = common::gpu();
    let mut world = World::from_polygons(&gpu, &scene, &Default::default()).unwrap();
    assert_eq!(world.query_boxes(&boxes).unwrap(), want);
    // Past the largest coordinate: refused by both, naming the box.
    let past = [boxes[0], q(0.0, 0.0, 2e37, 1.0)];
    match world.query_boxes(&past) {
        Err(satgpu::Error::InvalidSetting { detail, .. }) => assert!(detail.contains("box 1"), "{detail}"),
        other => panic!("a box past 1e37: {other:?}"),
    }
    assert!(past[1].check(1).is_err() && past[0].check(0).is_ok());
    let reference = std::panic::catch_unwind(|| query_boxes(&scene, &[], &past));
    assert!(reference.is_err(), "the reference asks what the GPU asks");
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
            (0..64).map(|k| PointQuery { point: at(k, 8), filter: Filter::DEFAULT, world: 0 }).collect();
        for (q, got) in points.iter().zip(query_points(&polygons, &[], &points)) {
            let want: Vec<u32> = (0..polygons.len() as u32)
                .filter(|&i| distance_to_shape(&polygons[i as usize], q.point) == 0.0)
                .collect();
            assert_eq!(got, want, "{kind:?}: point {q:?}");
        }
        let boxes: Vec<BoxQuery> = (0..16)
            .map(|k| {
                let lo = at(k, 4);
                BoxQuery {
                    aabb: Aabb { min: lo, max: [lo[0] + 0.1 * w, lo[1] + 0.1 * h] },
                    filter: Filter::DEFAULT,
                    world: 0,
                }
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

mod common;

/// The tolerance of a query's answer on `body`: f32 at the scale of the body's coordinates and
/// the query's (the GPU works in the body's frame, from f32 world coordinates).
fn tolerance(body: &Polygon, at: [f64; 2]) -> f64 {
    let scale =
        body.vertices().iter().chain([&at]).flat_map(|v| [v[0].abs(), v[1].abs()]).fold(0.0, f64::max) + body.radius();
    64.0 * f64::from(f32::EPSILON) * scale.max(1e-30)
}

/// The GPU's answers against the reference's: equal, but for bodies within the tolerance of the
/// region's edge, which may go either way. Returns how many bodies were found in all.
fn agree(polygons: &[Polygon], got: &[Vec<u32>], want: &[Vec<u32>], regions: &[(Aabb, bool)], what: &str) -> usize {
    assert_eq!(got.len(), want.len(), "{what}: one answer per query");
    for (k, ((g, w), (aabb, point))) in got.iter().zip(want).zip(regions).enumerate() {
        assert!(g.windows(2).all(|p| p[0] < p[1]), "{what}: query {k} not sorted: {g:?}");
        let (g, w): (std::collections::BTreeSet<u32>, std::collections::BTreeSet<u32>) =
            (g.iter().copied().collect(), w.iter().copied().collect());
        for &i in g.symmetric_difference(&w) {
            let body = &polygons[i as usize];
            let tol = tolerance(body, aabb.max);
            let near = if *point {
                let p = aabb.min;
                let moved = [[tol, 0.0], [-tol, 0.0], [0.0, tol], [0.0, -tol]].map(|d| [p[0] + d[0], p[1] + d[1]]);
                distance_to_shape(body, p) <= tol && moved.iter().any(|&m| distance_to_shape(body, m) > 0.0)
            } else {
                let grown = rect(aabb.min[0] - tol, aabb.min[1] - tol, aabb.max[0] + tol, aabb.max[1] + tol);
                let shrunk = rect(aabb.min[0] + tol, aabb.min[1] + tol, aabb.max[0] - tol, aabb.max[1] - tol);
                satgpu::reference::colliding(&grown, body) && !satgpu::reference::colliding(&shrunk, body)
            };
            assert!(near, "{what}: query {k} {aabb:?}: body {i} ({}) differs and is not at the edge: {:?} r {} distance {} tol {}", g.contains(&i), body.vertices(), body.radius(), distance_to_shape(body, aabb.min), tolerance(body, aabb.max));
        }
    }
    got.iter().map(Vec::len).sum()
}

#[test]
fn gpu_region_queries_agree_with_the_reference_on_segments() {
    let gpu = common::gpu();
    // Walls among shapes (issue 42): every third shape from the 20th on becomes the segment of
    // radius 0 along its first edge; points at their ends and middles, boxes across and beside them.
    let polygons: Vec<Polygon> = generate(SceneKind::Shapes, 1500, 13)
        .into_iter()
        .enumerate()
        .map(|(i, p)| match i >= 20 && i % 3 == 0 && p.vertices().len() > 1 {
            true => Polygon::segment(p.vertices()[0], p.vertices()[1], 0.0).unwrap(),
            false => p,
        })
        .collect();
    let walls: Vec<&Polygon> = polygons.iter().filter(|p| p.kind() == satgpu::ShapeKind::Segment).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
    let mut points = vec![];
    let mut boxes = vec![];
    for p in walls.iter().take(100) {
        let [a, b] = [p.vertices()[0], p.vertices()[1]];
        let m = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        points.extend([a, b, m].map(|point| PointQuery { point, filter: Filter::DEFAULT, world: 0 }));
        let (lo, hi) = ([m[0] - 0.01, m[1] - 0.01], [m[0] + 0.01, m[1] + 0.01]);
        boxes.push(BoxQuery { aabb: Aabb { min: lo, max: hi }, filter: Filter::DEFAULT, world: 0 });
        let beside = [a[0].max(b[0]) + 0.5, a[1].max(b[1]) + 0.5];
        boxes.push(BoxQuery {
            aabb: Aabb { min: beside, max: [beside[0] + 0.01, beside[1] + 0.01] },
            filter: Filter::DEFAULT,
            world: 0,
        });
    }
    let got = world.query_points(&points).unwrap();
    let want = query_points(&polygons, &[], &points);
    let regions: Vec<(Aabb, bool)> = points.iter().map(|p| (Aabb { min: p.point, max: p.point }, true)).collect();
    agree(&polygons, &got, &want, &regions, "segment points");
    // A segment's own end points are on it: found, exactly (they are its vertices).
    let ends = (0..100)
        .filter(|k| want[3 * k].contains(&(polygons.iter().position(|p| std::ptr::eq(p, walls[*k])).unwrap() as u32)));
    assert_eq!(ends.count(), 100, "the reference finds every segment at its ends");
    let got = world.query_boxes(&boxes).unwrap();
    let want = query_boxes(&polygons, &[], &boxes);
    let regions: Vec<(Aabb, bool)> = boxes.iter().map(|b| (b.aabb, false)).collect();
    let found = agree(&polygons, &got, &want, &regions, "segment boxes");
    assert!(found >= 100, "{found} bodies found");
}

#[test]
fn gpu_region_queries_agree_with_the_reference_on_every_kind() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 1500, 13);
        let mut world = satgpu::gpu::World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
        let bounds = polygons.iter().map(|p| p.aabb()).fold(polygons[0].aabb(), |a, b| Aabb {
            min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
            max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
        });
        let (w, h) = (bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]);
        let at = |k: usize, of: usize| {
            [
                bounds.min[0] + w * ((k % of) as f64 + 0.37) / of as f64,
                bounds.min[1] + h * ((k / of) as f64 + 0.61) / of as f64,
            ]
        };
        // Boxes of several sizes, one far outside (no result); points on a grid, inside bodies and
        // on their vertices.
        let mut boxes: Vec<BoxQuery> = (0..64)
            .map(|k| {
                let lo = at(k, 8);
                let size = [0.002, 0.02, 0.1][k % 3];
                // At least a millionth of the coordinates (scales lies far from the origin).
                let side = |x: f64, extent: f64| (size * extent).max(x.abs() * 1e-6);
                let max = [lo[0] + side(lo[0], w), lo[1] + side(lo[1], h)];
                BoxQuery { aabb: Aabb { min: lo, max }, filter: Filter::DEFAULT, world: 0 }
            })
            .collect();
        let far = [bounds.max[0] + w, bounds.max[1] + h];
        // Around each of the first 20 bodies' centroids, a tenth of its box: it meets the body.
        for p in polygons.iter().take(20) {
            let (b, v) = (p.aabb(), p.vertices());
            let c = [
                v.iter().map(|q| q[0]).sum::<f64>() / v.len() as f64,
                v.iter().map(|q| q[1]).sum::<f64>() / v.len() as f64,
            ];
            let half = [(b.max[0] - b.min[0]) / 20.0, (b.max[1] - b.min[1]) / 20.0];
            let aabb = Aabb { min: [c[0] - half[0], c[1] - half[1]], max: [c[0] + half[0], c[1] + half[1]] };
            boxes.push(BoxQuery { aabb, filter: Filter::DEFAULT, world: 0 });
        }
        let far_max = [far[0] + w.max(far[0].abs() * 1e-6), far[1] + h.max(far[1].abs() * 1e-6)];
        boxes.push(BoxQuery { aabb: Aabb { min: far, max: far_max }, filter: Filter::DEFAULT, world: 0 });
        let mut points: Vec<PointQuery> =
            (0..100).map(|k| PointQuery { point: at(k, 10), filter: Filter::DEFAULT, world: 0 }).collect();
        // Each of the first 20 bodies' centroid (inside it) and first vertex (on its boundary:
        // either way within the band).
        let centroid = |p: &Polygon| {
            let v = p.vertices();
            let n = v.len() as f64;
            [v.iter().map(|q| q[0]).sum::<f64>() / n, v.iter().map(|q| q[1]).sum::<f64>() / n]
        };
        points.extend(polygons.iter().take(20).map(|p| PointQuery {
            point: centroid(p),
            filter: Filter::DEFAULT,
            world: 0,
        }));
        points.extend(polygons.iter().take(20).map(|p| PointQuery {
            point: p.vertices()[0],
            filter: Filter::DEFAULT,
            world: 0,
        }));
        let got = world.query_boxes(&boxes).unwrap();
        let want = query_boxes(&polygons, &[], &boxes);
        let regions: Vec<(Aabb, bool)> = boxes.iter().map(|b| (b.aabb, false)).collect();
        let found = agree(&polygons, &got, &want, &regions, kind.name());
        assert!(got.last().unwrap().is_empty(), "{kind:?}: the far box found {:?}", got.last());
        assert!(got[64..84].iter().enumerate().all(|(k, g)| g.contains(&(k as u32))), "{kind:?}: {found} found");
        let got = world.query_points(&points).unwrap();
        let want = query_points(&polygons, &[], &points);
        let regions: Vec<(Aabb, bool)> = points.iter().map(|p| (Aabb { min: p.point, max: p.point }, true)).collect();
        let found = agree(&polygons, &got, &want, &regions, kind.name());
        assert!(got[100..120].iter().enumerate().all(|(k, g)| g.contains(&(k as u32))), "{kind:?}: a centroid missed");
        assert!(found >= 20, "{kind:?}: {found} bodies found");
    }
}

#[test]
fn gpu_region_queries_follow_transforms_filters_and_bad_input() {
    let gpu = common::gpu();
    let shapes = [rect(-0.5, -0.5, 0.5, 0.5), Polygon::circle([0.0, 0.0], 0.5).unwrap()];
    let mut world = satgpu::gpu::World::new(&gpu, &shapes, &[0, 1, 0, 1], &Default::default()).unwrap();
    let place = |x: f64, angle: f64| satgpu::Transform { x, y: 0.0, angle };
    world.set_transforms(&[place(0.0, 0.0), place(2.0, 0.0), place(4.0, 0.785), place(6.0, 0.0)]).unwrap();
    let point = |x: f64, y: f64| PointQuery { point: [x, y], filter: Filter::DEFAULT, world: 0 };
    // Body 0's corner, body 1's rim, body 2's rotated corner (at x = 4 + 0.707), nothing, body 3's centre.
    let got = world
        .query_points(&[point(0.5, 0.5), point(2.5, 0.0), point(4.7, 0.0), point(4.5, 0.45), point(6.0, 0.0)])
        .unwrap();
    assert_eq!(got, vec![vec![0], vec![1], vec![2], vec![], vec![3]]);
    // Moved: the answers follow the new transforms without a frame.
    world.set_transforms(&[place(10.0, 0.0), place(2.0, 0.0), place(4.0, 0.0), place(6.0, 0.0)]).unwrap();
    assert_eq!(world.query_points(&[point(0.5, 0.5), point(10.5, 0.5)]).unwrap(), vec![vec![], vec![0]]);
    // A box over everything, with filters: body 0 in category 2, a query not seeing category 2.
    let all = BoxQuery { aabb: Aabb { min: [-20.0, -20.0], max: [20.0, 20.0] }, filter: Filter::DEFAULT, world: 0 };
    assert_eq!(world.query_boxes(&[all]).unwrap(), vec![vec![0, 1, 2, 3]]);
    let mut filters = vec![Filter::DEFAULT; 4];
    filters[0].category = 2;
    world.set_filters(&filters).unwrap();
    let blind = BoxQuery { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..all };
    assert_eq!(world.query_boxes(&[blind, all]).unwrap(), vec![vec![1, 2, 3], vec![0, 1, 2, 3]]);
    // No queries; bad ones refused, naming the query.
    assert!(world.query_boxes(&[]).unwrap().is_empty());
    let bad = BoxQuery { aabb: Aabb { min: [1.0, 0.0], max: [0.0, 1.0] }, filter: Filter::DEFAULT, world: 0 };
    match world.query_boxes(&[all, bad]) {
        Err(satgpu::Error::InvalidSetting { what: "query", detail }) => assert!(detail.contains("box 1"), "{detail}"),
        other => panic!("expected InvalidSetting, got {other:?}"),
    }
    assert!(world.query_points(&[point(f64::NAN, 0.0)]).is_err());
}

/// A box near a rounded corner, at scales where the squares of the distances overflow f32
/// (1e20 and up): within the radius along each axis but farther along the diagonal, it does not
/// meet the body; nearer, it does. Points likewise.
#[test]
fn gpu_region_queries_near_rounded_corners_at_huge_scales() {
    let gpu = common::gpu();
    for scale in [1.0, 1e20, 1e30] {
        let s = |v: f64| v * scale;
        let body = Polygon::rounded(vec![[0.0, 0.0], [s(1.0), 0.0], [s(1.0), s(1.0)], [0.0, s(1.0)]], s(0.5)).unwrap();
        let mut world =
            satgpu::gpu::World::from_polygons(&gpu, std::slice::from_ref(&body), &Default::default()).unwrap();
        let corner = |at: f64, size: f64| BoxQuery {
            aabb: Aabb { min: [s(at), s(at)], max: [s(at + size), s(at + size)] },
            filter: Filter::DEFAULT,
            world: 0,
        };
        // The rounded corner's farthest point along the diagonal is at 1 + 0.5 / sqrt(2) = 1.354.
        let boxes = [corner(1.45, 0.5), corner(1.3, 0.5), corner(1.45, 1e-3)];
        let got = world.query_boxes(&boxes).unwrap();
        assert_eq!(got, query_boxes(std::slice::from_ref(&body), &[], &boxes), "at {scale:e}");
        assert_eq!(got, vec![vec![], vec![0], vec![]], "at {scale:e}");
        let points = [s(1.45), s(1.3)].map(|x| PointQuery { point: [x, x], filter: Filter::DEFAULT, world: 0 });
        assert_eq!(world.query_points(&points).unwrap(), vec![vec![], vec![0]], "at {scale:e}");
    }
}

/// A point equal to one of a polygon's vertices (the same two f64 numbers) lies in it, and a box
/// whose edge passes through a polygon's extreme vertex touches it, on every side: the GPU says so
/// for every vertex, as the reference does, whether or not the coordinates are exact in f32, from
/// 1e-20 to 1e20, on plain and compound worlds. Each coordinate reaches the body's frame rounded
/// once from f64, the query's as the vertex's (geometry/frame.rs, shaders/shared/exact.wgsl).
#[test]
fn points_on_vertices_and_boxes_through_extreme_vertices() {
    let gpu = common::gpu();
    let scenes = [
        (SceneKind::Crowd, 1.0, true),
        (SceneKind::Mixed, 1.0, true),
        (SceneKind::Dense, 1.0, true),
        (SceneKind::Crowd, 1.0, false),
        (SceneKind::Mixed, 3.1e-20, false),
        (SceneKind::Dense, 2.9e-7, false),
        (SceneKind::Mixed, 1.7e6, false),
        (SceneKind::Crowd, 6.3e19, false),
    ];
    for (kind, scale, f32_exact) in scenes {
        let what = format!("{kind:?} x {scale:e}{}", if f32_exact { " rounded to f32" } else { "" });
        let at = |c: f64| if f32_exact { c as f32 as f64 } else { c * scale };
        let mut polygons: Vec<Polygon> = generate(kind, 1500, 47)
            .iter()
            .filter_map(|p| {
                Polygon::from_core(p.vertices().iter().map(|v| v.map(at)).collect(), p.radius() * scale).ok()
            })
            .collect();
        // A body whose f64 difference from its anchor (x = 2^30, its first vertex) rounds onto
        // an f32 midpoint: rounding that again would put the vertex at x = 32 + 2^-30 on the
        // wrong side of the tie. Far below the scene, so that no other query reaches it.
        let s = 2f64.powi(scale.log2().round() as i32);
        let y = -(2f64.powi(31));
        let [a, b, c] = [[2f64.powi(30), y], [2f64.powi(30), y + 2f64.powi(29)], [32.0 + 2f64.powi(-30), y]];
        polygons.push(Polygon::new(vec![a, b, c].into_iter().map(|v| v.map(|x| x * s)).collect()).unwrap());
        assert_eq!(polygons.last().unwrap().vertices()[0], [2f64.powi(30) * s, y * s]);
        let mut points = vec![];
        let mut owners = vec![];
        let mut boxes = vec![];
        for (i, p) in polygons.iter().enumerate() {
            for &v in p.vertices() {
                points.push(PointQuery { point: v, filter: Filter::DEFAULT, world: 0 });
                owners.push(i as u32);
            }
            // Four boxes, each beyond one extreme vertex with an edge through it.
            let b = p.aabb();
            let (w, h) = (b.max[0] - b.min[0], b.max[1] - b.min[1]);
            let extreme = |k: usize, top: bool| {
                let pick = |a: &&[f64; 2], c: &&[f64; 2]| a[k].total_cmp(&c[k]);
                *if top { p.vertices().iter().max_by(pick) } else { p.vertices().iter().min_by(pick) }.unwrap()
            };
            let (r, l, t, d) = (extreme(0, true), extreme(0, false), extreme(1, true), extreme(1, false));
            for aabb in [
                Aabb { min: [r[0], r[1] - h / 4.0], max: [r[0] + w / 2.0, r[1] + h / 4.0] },
                Aabb { min: [l[0] - w / 2.0, l[1] - h / 4.0], max: [l[0], l[1] + h / 4.0] },
                Aabb { min: [t[0] - w / 4.0, t[1]], max: [t[0] + w / 4.0, t[1] + h / 2.0] },
                Aabb { min: [d[0] - w / 4.0, d[1] - h / 2.0], max: [d[0] + w / 4.0, d[1]] },
            ] {
                boxes.push((i as u32, BoxQuery { aabb, filter: Filter::DEFAULT, world: 0 }));
            }
        }
        let boxes_only: Vec<BoxQuery> = boxes.iter().map(|b| b.1).collect();
        let mut world = satgpu::gpu::World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
        let compounds: Vec<Body> = polygons.iter().map(|p| Body::new(vec![p.clone()]).unwrap()).collect();
        let mut compound = World::from_bodies(&gpu, &compounds, &Default::default()).unwrap();
        let want_points = query_points(&polygons, &[], &points);
        let want_boxes = query_boxes(&polygons, &[], &boxes_only);
        for (world, got_points, got_boxes) in [
            ("plain", world.query_points(&points).unwrap(), world.query_boxes(&boxes_only).unwrap()),
            ("compound", compound.query_points(&points).unwrap(), compound.query_boxes(&boxes_only).unwrap()),
        ] {
            for (k, owner) in owners.iter().enumerate() {
                assert!(want_points[k].contains(owner), "{what}: the reference puts point {k} outside its polygon");
                assert!(
                    got_points[k].contains(owner),
                    "{what}, {world}: vertex {k} {:?} of polygon {owner} is outside it: {:?}",
                    points[k].point,
                    polygons[*owner as usize].vertices()
                );
            }
            let regions: Vec<(Aabb, bool)> =
                points.iter().map(|p| (Aabb { min: p.point, max: p.point }, true)).collect();
            agree(&polygons, &got_points, &want_points, &regions, &what);
            for (k, (owner, query)) in boxes.iter().enumerate() {
                assert!(want_boxes[k].contains(owner), "{what}: the reference misses box {k}'s own polygon");
                let aabb = query.aabb;
                assert!(got_boxes[k].contains(owner), "{what}, {world}: box {k} {aabb:?} misses polygon {owner}");
            }
            let regions: Vec<(Aabb, bool)> = boxes_only.iter().map(|b| (b.aabb, false)).collect();
            agree(&polygons, &got_boxes, &want_boxes, &regions, &what);
        }
    }
}

/// Mesa's software adapters end an invocation's loops after 65,535 iterations in all: a query
/// whose box meets tens of thousands of bodies runs past that in one go. Its walk goes on in
/// windows there, so every body is found, through the strips (20,000 squares) and through all
/// pairs (150 shapes of 1,000 vertices, each test a few thousand iterations), beside queries
/// that finish in the first window.
#[test]
fn a_query_meeting_more_bodies_than_a_software_adapter_runs_at_once_finds_them_all() {
    let gpu = common::gpu();
    let square = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 0.5, y], [x + 0.5, y + 0.5], [x, y + 0.5]]).unwrap();
    let squares: Vec<Polygon> = (0..20_000).map(|k| square((k % 200) as f64, (k / 200) as f64)).collect();
    let round: Vec<Polygon> = (0..150)
        .map(|k| {
            let (cx, cy) = ((k % 15) as f64 * 3.0, (k / 15) as f64 * 3.0);
            let ring = (0..1000).map(|j| {
                let a = std::f64::consts::TAU * j as f64 / 1000.0;
                [cx + a.cos(), cy + a.sin()]
            });
            Polygon::new(ring.collect()).unwrap()
        })
        .collect();
    for (polygons, index) in [(squares, true), (round, false)] {
        let mut world = World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
        let passes = world.passes_of(satgpu::gpu::Question::Queries);
        assert_eq!(passes.iter().any(|p| p.name() == "entries"), index);
        let query = |min, max| BoxQuery { aabb: Aabb { min, max }, filter: Filter::DEFAULT, world: 0 };
        let (all, none) = (query([-10.0, -10.0], [1000.0, 1000.0]), query([2000.0, 2000.0], [2001.0, 2001.0]));
        let first = query([0.0, 0.0], [0.25, 0.25]);
        let found = world.query_boxes(&[first, all, none, all]).unwrap();
        let every: Vec<u32> = (0..polygons.len() as u32).collect();
        assert_eq!(found, [vec![0], every.clone(), vec![], every], "{} bodies", polygons.len());
    }
}

/// Where a call's hits outgrow one binding (1 MiB here: about 127,000 hits beside the queries),
/// its queries run in halves until each half's fit, and every hit comes back, in order.
#[test]
fn hits_past_one_binding_come_back_in_halves() {
    let gpu = common::small_device();
    let square = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 0.5, y], [x + 0.5, y + 0.5], [x, y + 0.5]]).unwrap();
    let squares: Vec<Polygon> = (0..12_000).map(|k| square((k % 200) as f64, (k / 200) as f64)).collect();
    let mut world = World::from_polygons(&gpu, &squares, &Default::default()).unwrap();
    let every: Vec<u32> = (0..12_000).collect();
    // 16 boxes over every body (192,000 hits), and a point in the first and in the last.
    let mut queries = vec![BoxQuery { aabb: Aabb { min: [0.1, 0.1], max: [0.1, 0.1] }, ..all() }];
    queries.extend([all(); 16]);
    queries.push(BoxQuery { aabb: Aabb { min: [199.2, 59.2], max: [199.2, 59.2] }, ..all() });
    let found = world.query_boxes(&queries).unwrap();
    assert_eq!(found.len(), 18);
    assert_eq!(found[0], [0]);
    assert!(found[1..17].iter().all(|f| f == &every));
    assert_eq!(found[17], [11_999]);
}

fn all() -> BoxQuery {
    BoxQuery { aabb: Aabb { min: [-10.0, -10.0], max: [1000.0, 1000.0] }, filter: Filter::DEFAULT, world: 0 }
}
