//! Issue 65, the questions besides pairs in a periodic box: neighbours within a radius (the k
//! nearest), box and point queries. Each against a brute force over the images from the
//! definition, on the GPU and the reference, on a torus and a cylinder, with bodies placed
//! many boxes away.

use satgpu::gpu::{BroadPhase, World, WorldOptions};
use satgpu::scene::SceneKind;
use satgpu::{gpu, reference, Aabb, BoxQuery, DetectOptions, Filter, Periodic, PointQuery, Polygon, Transform};

mod common;

use common::periodic::boxed;

/// A random number in `[0, 1)` from `(i, salt)`.
fn hash(i: u64, salt: u64) -> f64 {
    let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(salt.wrapping_mul(0xd1b5_4a32_d192_ed03));
    z = (z ^ (z >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 29)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// `n` circle centres scattered over the box `[0, w) x [0, h)`, each moved by a whole number of
/// boxes (up to 40 either way) where `far`.
fn centres(n: usize, [w, h]: [f64; 2], far: bool) -> Vec<[f64; 2]> {
    (0..n as u64)
        .map(|i| {
            let (x, y) = (hash(i, 1) * w, hash(i, 2) * h);
            match far {
                true => [x + w * (hash(i, 3) * 81.0 - 40.0).floor(), y + h * (hash(i, 4) * 81.0 - 40.0).floor()],
                false => [x, y],
            }
        })
        .collect()
}

/// The shortest offset from `a` to an image of `b` along the box's wrapping axes.
fn nearest_image(a: [f64; 2], b: [f64; 2], p: &Periodic) -> [f64; 2] {
    let size = p.size();
    std::array::from_fn(|k| {
        let d = b[k] - a[k];
        match p.wraps()[k] {
            true => d - size[k] * (d / size[k]).round(),
            false => d,
        }
    })
}

#[test]
fn neighbours_in_a_box_are_the_nearest_images_of_the_centres() {
    // Circles of radius 0.25 in a 16 x 12 box: every list, and the 4 nearest, against the
    // centres' nearest images by brute force, on a torus and a cylinder, placed in the box and
    // many boxes away.
    let g = common::gpu();
    let (size, radius, r, k) = ([16.0, 12.0], 0.25, 1.2, 4);
    for wraps in [[true, true], [true, false]] {
        let p = Periodic::new([0.0, 0.0, size[0], size[1]], wraps).unwrap();
        for far in [false, true] {
            let what = format!("wraps {wraps:?}, far {far}");
            let c = centres(700, size, far);
            let circles: Vec<Polygon> = c.iter().map(|&x| Polygon::circle(x, radius).unwrap()).collect();
            let options = DetectOptions::default().with_periodic(p);
            let lists = [
                gpu::neighbours(&g, &circles, r, None, &options).unwrap(),
                reference::neighbours(&circles, r, None, &options),
            ];
            let nearest = [
                gpu::neighbours(&g, &circles, r, Some(k), &options).unwrap(),
                reference::neighbours(&circles, r, Some(k), &options),
            ];
            let (mut across, mut decided) = (0, 0);
            for i in 0..c.len() {
                let mut want: Vec<(f64, u32)> = (0..c.len())
                    .filter(|&j| j != i)
                    .map(|j| {
                        let d = nearest_image(c[i], c[j], &p);
                        (d[0].hypot(d[1]) - 2.0 * radius, j as u32)
                    })
                    .filter(|&(d, _)| d <= r)
                    .collect();
                want.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
                across +=
                    want.iter().filter(|&&(_, j)| c[j as usize] != nearest_image([0.0; 2], c[j as usize], &p)).count();
                // Near the radius, or tied at the k-th, f32 may go either way: those are skipped.
                let near_r = want.iter().any(|&(d, _)| (d - r).abs() < 1e-4);
                for (side, found) in lists.iter().enumerate() {
                    let (n, d, _) = found.of(i);
                    if !near_r {
                        assert_eq!(
                            n,
                            want.iter().map(|w| w.1).collect::<Vec<_>>().as_slice(),
                            "{what}: body {i}, side {side}"
                        );
                    }
                    for (&j, &dj) in n.iter().zip(d) {
                        let w = want.iter().find(|w| w.1 == j).map_or(r, |w| w.0);
                        assert!((dj - w).abs() < 1e-4, "{what}: ({i}, {j}) at {dj} against {w}, side {side}");
                    }
                }
                let tied = want.len() > k && want[k].0 - want[k - 1].0 < 1e-4;
                if !near_r && !tied {
                    let first: Vec<u32> = want.iter().take(k).map(|w| w.1).collect();
                    for found in &nearest {
                        assert_eq!(found.of(i).0, first.as_slice(), "{what}: body {i}'s {k} nearest");
                    }
                    decided += 1;
                }
            }
            assert!(decided > 600, "{what}: only {decided} bodies decided");
            if !far {
                assert!(across > 50, "{what}: only {across} neighbours across an edge");
            }
        }
    }
}

#[test]
fn a_neighbour_across_the_edge_is_at_its_nearest_image() {
    // Two circles of radius 0.5 at x = 0.3 and x = 9.9 in a box 10 wide: 0.4 apart across the
    // edge, the normal from the first toward the second pointing down x (the wrong image is 8.6
    // away and points up).
    let p = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
    let circles = [Polygon::circle([0.3, 5.0], 0.5).unwrap(), Polygon::circle([9.9, 5.0], 0.5).unwrap()];
    let options = DetectOptions::default().with_periodic(p);
    let found = [
        gpu::neighbours(&common::gpu(), &circles, 1.0, None, &options).unwrap(),
        reference::neighbours(&circles, 1.0, None, &options),
    ];
    for n in &found {
        let (j, d, normal) = n.of(0);
        assert_eq!(j, [1]);
        assert!((d[0] - -0.6).abs() < 1e-6, "{d:?}");
        assert!((normal[0][0] - -1.0).abs() < 1e-6 && normal[0][1].abs() < 1e-6, "{normal:?}");
    }
}

/// `q` moved by `n` whole boxes of `p`.
fn shifted(q: &Aabb, n: [f64; 2], p: &Periodic) -> Aabb {
    let s = p.size();
    let by = [n[0] * s[0], n[1] * s[1]];
    Aabb { min: [q.min[0] + by[0], q.min[1] + by[1]], max: [q.max[0] + by[0], q.max[1] + by[1]] }
}

fn boxes(regions: &[Aabb]) -> Vec<BoxQuery> {
    regions.iter().map(|&aabb| BoxQuery { aabb, filter: Filter::DEFAULT, world: 0 }).collect()
}

fn points(at: &[[f64; 2]]) -> Vec<PointQuery> {
    at.iter().map(|&point| PointQuery { point, filter: Filter::DEFAULT, world: 0 }).collect()
}

/// Boxes over the periodic box `p`: small to four tenths of it, many straddling an edge or a
/// corner, one longer than the box along x, and each of the first again moved many boxes away.
fn regions_over(p: &Periodic, n: usize) -> Vec<Aabb> {
    let ([x0, y0, _, _], [w, h]) = (p.bounds(), p.size());
    let mut out: Vec<Aabb> = (0..n as u64)
        .map(|i| {
            let side = [0.001, 0.02, 0.1, 0.4][i as usize % 4];
            // Every other low corner in the last tenth of the box: past its upper edges.
            let at = |k: u64, len: f64| match i % 2 {
                0 => hash(i, k) * len,
                _ => (0.9 + 0.1 * hash(i, k)) * len,
            };
            let lo = [x0 + at(5, w), y0 + at(6, h)];
            Aabb { min: lo, max: [lo[0] + side * w * hash(i, 7), lo[1] + side * h * hash(i, 8)] }
        })
        .collect();
    out.push(Aabb { min: [x0 - 0.3 * w, y0 + 0.2 * h], max: [x0 + 0.9 * w, y0 + 0.25 * h] });
    let far: Vec<Aabb> =
        out.iter().take(20).enumerate().map(|(i, q)| shifted(q, [i as f64 * 3.0 - 30.0, 17.0 - i as f64], p)).collect();
    out.extend(far);
    out
}

#[test]
fn the_reference_finds_what_ghosts_of_every_body_find() {
    // The by-hand way a user has without a box: every shape moved into the box and copied a box
    // either way (9 ghosts), the flat query of the region moved into the box, the ghosts mapped
    // back. Interior points (centroids) and boxes: no answer rests on a rounding.
    for kind in [SceneKind::Shapes, SceneKind::Crowd, SceneKind::Mixed] {
        let (scene, p) = boxed(kind, 500, 3, 0.0);
        let size = p.size();
        let (mut ghosts, mut owner) = (vec![], vec![]);
        for (i, q) in scene.iter().enumerate() {
            let n = p.cell_shift(q.aabb().min);
            for gx in [-1.0, 0.0, 1.0] {
                for gy in [-1.0, 0.0, 1.0] {
                    let by = [(n[0] + gx) * size[0], (n[1] + gy) * size[1]];
                    ghosts.push(q.transformed(&Transform { x: by[0], y: by[1], angle: 0.0 }));
                    owner.push(i as u32);
                }
            }
        }
        let by_ghosts = |lists: Vec<Vec<u32>>| -> Vec<Vec<u32>> {
            lists
                .into_iter()
                .map(|l| {
                    let mut l: Vec<u32> = l.into_iter().map(|g| owner[g as usize]).collect();
                    l.sort_unstable();
                    l.dedup();
                    l
                })
                .collect()
        };
        let regions: Vec<Aabb> = regions_over(&p, 200).into_iter().filter(|q| q.max[0] - q.min[0] < size[0]).collect();
        let moved_in: Vec<Aabb> = regions.iter().map(|q| shifted(q, p.cell_shift(q.min), &p)).collect();
        let got = reference::query_boxes_periodic(&scene, &[], &boxes(&regions), &p);
        assert_eq!(got, by_ghosts(reference::query_boxes(&ghosts, &[], &boxes(&moved_in))), "{kind:?}");
        let flat = reference::query_boxes(&scene, &[], &boxes(&regions));
        let more: usize = got.iter().zip(&flat).map(|(g, f)| g.len() - f.len()).sum();
        assert!(more > 20, "{kind:?}: only {more} bodies found past an edge");
        let centroids: Vec<[f64; 2]> = scene
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let v = q.vertices();
                let c = [
                    v.iter().map(|x| x[0]).sum::<f64>() / v.len() as f64,
                    v.iter().map(|x| x[1]).sum::<f64>() / v.len() as f64,
                ];
                let n = [(i % 5) as f64 - 2.0, (i % 3) as f64 - 1.0];
                [c[0] + n[0] * size[0], c[1] + n[1] * size[1]]
            })
            .collect();
        let got = reference::query_points_periodic(&scene, &[], &points(&centroids), &p);
        let moved_in: Vec<[f64; 2]> = centroids
            .iter()
            .map(|&c| {
                let n = p.cell_shift(c);
                [c[0] + n[0] * size[0], c[1] + n[1] * size[1]]
            })
            .collect();
        assert_eq!(got, by_ghosts(reference::query_points(&ghosts, &[], &points(&moved_in))), "{kind:?} points");
        assert!(got.iter().enumerate().all(|(i, g)| g.contains(&(i as u32))), "{kind:?}: a centroid missed");
    }
}

/// The tolerance of a query's answer near `at`: f32 at the scale of the box and the query.
fn tolerance(p: &Periodic, at: [f64; 2]) -> f64 {
    let scale = p.bounds().iter().chain(&at).map(|c| c.abs()).fold(0.0, f64::max).max(p.size()[0]).max(p.size()[1]);
    64.0 * f64::from(f32::EPSILON) * scale
}

/// The GPU's answers against the reference's in `p`: equal, but for bodies found by the region
/// grown by the tolerance and not by it shrunk (points: by the point grown to a box, and not by
/// the point moved the tolerance every way).
fn agree(scene: &[Polygon], p: &Periodic, got: &[Vec<u32>], regions: &[Aabb], point: bool, what: &str) -> usize {
    let want = match point {
        true => {
            reference::query_points_periodic(scene, &[], &points(&regions.iter().map(|q| q.min).collect::<Vec<_>>()), p)
        }
        false => reference::query_boxes_periodic(scene, &[], &boxes(regions), p),
    };
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g.windows(2).all(|x| x[0] < x[1]), "{what}: query {k} not sorted: {g:?}");
        if g == w {
            continue;
        }
        let q = regions[k];
        let tol = tolerance(p, q.max);
        let grown = Aabb { min: q.min.map(|c| c - tol), max: q.max.map(|c| c + tol) };
        let near = reference::query_boxes_periodic(scene, &[], &boxes(&[grown]), p).remove(0);
        let inner = match point {
            true => {
                let moved: Vec<[f64; 2]> = [[tol, 0.0], [-tol, 0.0], [0.0, tol], [0.0, -tol]]
                    .iter()
                    .map(|d| [q.min[0] + d[0], q.min[1] + d[1]])
                    .collect();
                let found = reference::query_points_periodic(scene, &[], &points(&moved), p);
                (0..scene.len() as u32).filter(|i| found.iter().all(|f| f.contains(i))).collect::<Vec<u32>>()
            }
            false if q.max[0] - q.min[0] > 2.0 * tol && q.max[1] - q.min[1] > 2.0 * tol => {
                let shrunk = Aabb { min: q.min.map(|c| c + tol), max: q.max.map(|c| c - tol) };
                reference::query_boxes_periodic(scene, &[], &boxes(&[shrunk]), p).remove(0)
            }
            false => vec![],
        };
        for i in g.iter().filter(|i| !w.contains(i)).chain(w.iter().filter(|i| !g.contains(i))) {
            assert!(
                near.contains(i) && !inner.contains(i),
                "{what}: query {k} {q:?}: body {i} differs and is not at the edge (GPU {g:?}, reference {w:?})"
            );
        }
    }
    got.iter().map(Vec::len).sum()
}

#[test]
fn gpu_box_and_point_queries_in_a_box_agree_with_the_reference_on_every_kind() {
    let g = common::gpu();
    let mut more = 0;
    for kind in SceneKind::ALL {
        let (scene, p) = boxed(kind, 600, 17, 0.0);
        let mut world = World::from_polygons(&g, &scene, &WorldOptions::default().with_periodic(p)).unwrap();
        let regions = regions_over(&p, 120);
        let got = world.query_boxes(&boxes(&regions)).unwrap();
        let found = agree(&scene, &p, &got, &regions, false, &format!("{kind:?} boxes"));
        let flat = reference::query_boxes(&scene, &[], &boxes(&regions));
        more += found.saturating_sub(flat.iter().map(Vec::len).sum::<usize>());
        // Points: on the first vertex of every tenth body, and there moved a few boxes.
        let size = p.size();
        let at: Vec<[f64; 2]> = scene
            .iter()
            .step_by(10)
            .enumerate()
            .flat_map(|(i, q)| {
                let v = q.vertices()[0];
                let n = [(i % 7) as f64 - 3.0, (i % 4) as f64 - 2.0];
                [v, [v[0] + n[0] * size[0], v[1] + n[1] * size[1]]]
            })
            .collect();
        let regions: Vec<Aabb> = at.iter().map(|&c| Aabb { min: c, max: c }).collect();
        let got = world.query_points(&points(&at)).unwrap();
        agree(&scene, &p, &got, &regions, true, &format!("{kind:?} points"));
    }
    assert!(more > 200, "only {more} more bodies found with the box than without: the test proves little");
}

#[test]
fn a_box_past_an_edge_covers_the_other_side() {
    // Squares at each corner of a 10 x 10 torus: a box round the corner finds all four; on a
    // cylinder wrapping x, the two across x only; a point far away on a square's image finds it.
    let sq = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]]).unwrap();
    let scene = [sq(0.5, 0.5), sq(8.5, 0.5), sq(0.5, 8.5), sq(8.5, 8.5)];
    let g = common::gpu();
    let corner = Aabb { min: [9.0, 9.0], max: [11.0, 11.0] };
    for broad in [BroadPhase::Strips, BroadPhase::AllPairs] {
        for (wraps, want) in [([true, true], vec![0, 1, 2, 3]), ([true, false], vec![2, 3])] {
            let what = format!("{broad:?}, {wraps:?}");
            let p = Periodic::new([0.0, 0.0, 10.0, 10.0], wraps).unwrap();
            let mut options = WorldOptions::default().with_periodic(p);
            options.broad_phase = broad;
            let mut world = World::from_polygons(&g, &scene, &options).unwrap();
            assert_eq!(world.query_boxes(&boxes(&[corner])).unwrap(), vec![want.clone()], "{what}");
            assert_eq!(
                reference::query_boxes_periodic(&scene, &[], &boxes(&[corner]), &p),
                vec![want.clone()],
                "{what}"
            );
            let far = [1.0 + 10.0 * 1e6, 1.0];
            assert_eq!(world.query_points(&points(&[far])).unwrap(), [vec![0]], "{what}");
            assert_eq!(reference::query_points_periodic(&scene, &[], &points(&[far]), &p), [vec![0]]);
            // Body 3 in category 2, the query blind to it: the rest.
            let filters =
                [Filter::DEFAULT, Filter::DEFAULT, Filter::DEFAULT, Filter { category: 2, ..Filter::DEFAULT }];
            world.set_filters(&filters).unwrap();
            let blind = [BoxQuery { aabb: corner, filter: Filter { mask: !2, ..Filter::DEFAULT }, world: 0 }];
            let rest: Vec<u32> = want.iter().copied().filter(|&b| b != 3).collect();
            assert_eq!(world.query_boxes(&blind).unwrap(), vec![rest.clone()], "{what}");
            assert_eq!(reference::query_boxes_periodic(&scene, &filters, &blind, &p), [rest], "{what}");
        }
    }
    // An empty world in a box, and no queries.
    let p = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
    let mut empty = World::from_polygons(&g, &[] as &[Polygon], &WorldOptions::default().with_periodic(p)).unwrap();
    assert_eq!(empty.query_boxes(&boxes(&[corner])).unwrap(), [Vec::<u32>::new()]);
    let mut world = World::from_polygons(&g, &scene, &WorldOptions::default().with_periodic(p)).unwrap();
    assert!(world.query_points(&[]).unwrap().is_empty());
}
