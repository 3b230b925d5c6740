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
            assert!(near, "{what}: query {k} {aabb:?}: body {i} ({}) differs and is not at the edge", g.contains(&i));
        }
    }
    got.iter().map(Vec::len).sum()
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
                BoxQuery { aabb: Aabb { min: lo, max }, filter: Filter::DEFAULT }
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
            boxes.push(BoxQuery { aabb, filter: Filter::DEFAULT });
        }
        let far_max = [far[0] + w.max(far[0].abs() * 1e-6), far[1] + h.max(far[1].abs() * 1e-6)];
        boxes.push(BoxQuery { aabb: Aabb { min: far, max: far_max }, filter: Filter::DEFAULT });
        let mut points: Vec<PointQuery> =
            (0..100).map(|k| PointQuery { point: at(k, 10), filter: Filter::DEFAULT }).collect();
        // Each of the first 20 bodies' centroid (inside it) and first vertex (on its boundary:
        // either way within the band).
        let centroid = |p: &Polygon| {
            let v = p.vertices();
            let n = v.len() as f64;
            [v.iter().map(|q| q[0]).sum::<f64>() / n, v.iter().map(|q| q[1]).sum::<f64>() / n]
        };
        points.extend(polygons.iter().take(20).map(|p| PointQuery { point: centroid(p), filter: Filter::DEFAULT }));
        points.extend(polygons.iter().take(20).map(|p| PointQuery { point: p.vertices()[0], filter: Filter::DEFAULT }));
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
    let point = |x: f64, y: f64| PointQuery { point: [x, y], filter: Filter::DEFAULT };
    // Body 0's corner, body 1's rim, body 2's rotated corner (at x = 4 + 0.707), nothing, body 3's centre.
    let got = world
        .query_points(&[point(0.5, 0.5), point(2.5, 0.0), point(4.7, 0.0), point(4.5, 0.45), point(6.0, 0.0)])
        .unwrap();
    assert_eq!(got, vec![vec![0], vec![1], vec![2], vec![], vec![3]]);
    // Moved: the answers follow the new transforms without a frame.
    world.set_transforms(&[place(10.0, 0.0), place(2.0, 0.0), place(4.0, 0.0), place(6.0, 0.0)]).unwrap();
    assert_eq!(world.query_points(&[point(0.5, 0.5), point(10.5, 0.5)]).unwrap(), vec![vec![], vec![0]]);
    // A box over everything, with filters: body 0 in category 2, a query not seeing category 2.
    let all = BoxQuery { aabb: Aabb { min: [-20.0, -20.0], max: [20.0, 20.0] }, filter: Filter::DEFAULT };
    assert_eq!(world.query_boxes(&[all]).unwrap(), vec![vec![0, 1, 2, 3]]);
    let mut filters = vec![Filter::DEFAULT; 4];
    filters[0].category = 2;
    world.set_filters(&filters).unwrap();
    let blind = BoxQuery { filter: Filter { mask: !2, ..Filter::DEFAULT }, ..all };
    assert_eq!(world.query_boxes(&[blind, all]).unwrap(), vec![vec![1, 2, 3], vec![0, 1, 2, 3]]);
    // No queries; bad ones refused, naming the query.
    assert!(world.query_boxes(&[]).unwrap().is_empty());
    let bad = BoxQuery { aabb: Aabb { min: [1.0, 0.0], max: [0.0, 1.0] }, filter: Filter::DEFAULT };
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
        };
        // The rounded corner's farthest point along the diagonal is at 1 + 0.5 / sqrt(2) = 1.354.
        let boxes = [corner(1.45, 0.5), corner(1.3, 0.5), corner(1.45, 1e-3)];
        let got = world.query_boxes(&boxes).unwrap();
        assert_eq!(got, query_boxes(std::slice::from_ref(&body), &[], &boxes), "at {scale:e}");
        assert_eq!(got, vec![vec![], vec![0], vec![]], "at {scale:e}");
        let points = [s(1.45), s(1.3)].map(|x| PointQuery { point: [x, x], filter: Filter::DEFAULT });
        assert_eq!(world.query_points(&points).unwrap(), vec![vec![], vec![0]], "at {scale:e}");
    }
}

/// Issue 47: a point equal to a polygon's vertex lies in it, and a box whose edge passes through
/// a polygon's extreme vertex touches it. On scenes whose coordinates are exact in f32 (in the
/// body's frame the same numbers), the GPU says so for every vertex, as the reference does: the
/// edges through the vertex are decided by the vertices themselves, not by rounded unit normals
/// (which missed about one vertex in six).
#[test]
fn points_on_vertices_and_boxes_through_extreme_vertices_of_f32_exact_scenes() {
    let gpu = common::gpu();
    for kind in [SceneKind::Crowd, SceneKind::Mixed, SceneKind::Dense] {
        let polygons: Vec<Polygon> = generate(kind, 1500, 47)
            .iter()
            .filter_map(|p| {
                Polygon::new(p.vertices().iter().map(|v| [v[0] as f32 as f64, v[1] as f32 as f64]).collect()).ok()
            })
            .collect();
        let mut world = satgpu::gpu::World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
        let mut points = vec![];
        let mut owners = vec![];
        let mut boxes = vec![];
        for (i, p) in polygons.iter().enumerate() {
            for &v in p.vertices() {
                points.push(PointQuery { point: v, filter: Filter::DEFAULT });
                owners.push(i as u32);
            }
            // A box to the right of the rightmost vertex, its left edge through it.
            let v = p.vertices().iter().copied().max_by(|a, b| a[0].total_cmp(&b[0])).unwrap();
            let aabb = Aabb { min: [v[0], v[1] - 0.25], max: [v[0] + 0.5, v[1] + 0.25] };
            boxes.push(BoxQuery { aabb, filter: Filter::DEFAULT });
        }
        let got = world.query_points(&points).unwrap();
        let want = query_points(&polygons, &[], &points);
        for (k, owner) in owners.iter().enumerate() {
            assert!(want[k].contains(owner), "{kind:?}: the reference puts point {k} outside its polygon");
            assert!(got[k].contains(owner), "{kind:?}: vertex {k} of polygon {owner} is outside it on the GPU");
        }
        let regions: Vec<(Aabb, bool)> = points.iter().map(|p| (Aabb { min: p.point, max: p.point }, true)).collect();
        agree(&polygons, &got, &want, &regions, kind.name());
        let got = world.query_boxes(&boxes).unwrap();
        let want = query_boxes(&polygons, &[], &boxes);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(w.contains(&(i as u32)), "{kind:?}: the reference misses box {i}'s own polygon");
            assert!(
                g.contains(&(i as u32)),
                "{kind:?}: box {i} through polygon {i}'s rightmost vertex misses it on the GPU"
            );
        }
        let regions: Vec<(Aabb, bool)> = boxes.iter().map(|b| (b.aabb, false)).collect();
        agree(&polygons, &got, &want, &regions, kind.name());
    }
}
