//! Issue 65, rays and shape casts in a periodic box: leaving the box they go on from the
//! opposite edge, up to their length. By hand; the reference against ghosts of every body; the
//! GPU against the reference on every kind, from origins in the box and many boxes away.

use satgpu::gpu::{World, WorldOptions};
use satgpu::scene::SceneKind;
use satgpu::{reference, Error, Periodic, Polygon, Ray, RayHit, ShapeCast, Transform};

mod common;

use common::periodic::boxed;

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

/// A hit expected: its fraction, point and normal.
type Expected = (f64, [f64; 2], [f64; 2]);

fn close(a: [f64; 2], b: [f64; 2], tol: f64) -> bool {
    (a[0] - b[0]).abs() <= tol && (a[1] - b[1]).abs() <= tol
}

/// A random number in `[0, 1)` from `(i, salt)`.
fn hash(i: u64, salt: u64) -> f64 {
    let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(salt.wrapping_mul(0xd1b5_4a32_d192_ed03));
    z = (z ^ (z >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 29)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn a_ray_leaving_the_box_comes_back_from_the_opposite_edge() {
    // A square [4, 6] x [4, 6] in a 10 x 10 torus; a ray from (8, 5) along +x leaves at x = 10,
    // comes back at x = 0 and meets the square's left side 6 along, at (14, 5) along the ray.
    let g = common::gpu();
    let scene = [rect(4.0, 4.0, 6.0, 6.0)];
    let circle = Polygon::circle([0.0, 0.0], 0.5).unwrap();
    for wraps in [[true, true], [true, false], [false, true]] {
        let p = Periodic::new([0.0, 0.0, 10.0, 10.0], wraps).unwrap();
        let mut world = World::from_polygons(&g, &scene, &WorldOptions::default().with_periodic(p)).unwrap();
        let rays = [
            Ray::new([8.0, 5.0], [1.0, 0.0], 10.0),
            Ray::new([8.0, 5.0], [1.0, 0.0], 5.0),
            // A million boxes to the right, and 3 up.
            Ray::new([8.0 + 1e7, 35.0], [2.0, 0.0], 10.0),
            // Down across the lower edge: the square's top 7 along.
            Ray::new([5.0, 3.0], [0.0, -1.0], 20.0),
        ];
        let x = wraps[0];
        let y = wraps[1];
        let want: [Option<Expected>; 4] = [
            x.then_some((0.6, [14.0, 5.0], [-1.0, 0.0])),
            None,
            (x && y).then_some((0.6, [14.0 + 1e7, 35.0], [-1.0, 0.0])),
            y.then_some((0.35, [5.0, -4.0], [0.0, 1.0])),
        ];
        let got = world.cast_rays(&rays).unwrap();
        let reference = reference::cast_rays_periodic(&scene, &[], &rays, &p);
        for (k, w) in want.iter().enumerate() {
            for (side, h) in [("gpu", got[k]), ("reference", reference[k])] {
                let what = format!("{wraps:?} ray {k} {side}: {h:?}");
                match (h, w) {
                    (None, None) => {}
                    (Some(h), Some((f, point, normal))) => {
                        assert!((h.fraction - f).abs() < 1e-6, "{what}");
                        assert!(close(h.point, *point, 1e-5 * (1.0 + point[0].abs())), "{what}");
                        assert!(close(h.normal, *normal, 1e-6), "{what}");
                        assert_eq!(h.body, 0, "{what}");
                    }
                    _ => panic!("{what}: want {w:?}"),
                }
            }
        }
        // A circle of radius 0.5 cast the same way touches at 5.5, the point on the image
        // moved a box right: (14, 5).
        let casts = [ShapeCast::new(0, [8.0, 5.0], [1.0, 0.0], 10.0)];
        let got = world.cast_shapes(std::slice::from_ref(&circle), &casts).unwrap()[0];
        let reference = reference::cast_shapes_periodic(&scene, &[], std::slice::from_ref(&circle), &casts, &p)[0];
        for h in [got, reference] {
            match x {
                true => {
                    let h = h.unwrap_or_else(|| panic!("{wraps:?}: no cast hit"));
                    assert!((h.fraction - 0.55).abs() < 1e-6 && close(h.point, [14.0, 5.0], 1e-5), "{wraps:?}: {h:?}");
                }
                false => assert_eq!(h, None, "{wraps:?}"),
            }
        }
    }
}

#[test]
fn a_ray_across_too_many_boxes_is_refused_by_name() {
    let g = common::gpu();
    let p = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
    let mut world =
        World::from_polygons(&g, &[rect(4.0, 4.0, 6.0, 6.0)], &WorldOptions::default().with_periodic(p)).unwrap();
    let rays = [Ray::new([0.5, 0.5], [1.0, 1.0], 10.0), Ray::new([0.5, 0.5], [1.0, 0.001], 1e6)];
    let e = world.cast_rays(&rays).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSetting { what: "ray", detail } if detail.contains("ray 1") && detail.contains("4096")),
        "{e:?}"
    );
    // Along an axis that does not wrap a ray goes as far as it likes.
    let cylinder = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, false]).unwrap();
    let mut world =
        World::from_polygons(&g, &[rect(4.0, 4.0, 6.0, 6.0)], &WorldOptions::default().with_periodic(cylinder))
            .unwrap();
    let hit = world.cast_rays(&[Ray::new([5.0, -1e20], [0.0, 1.0], 1e30)]).unwrap()[0].unwrap();
    assert_eq!(hit.body, 0);
}

/// Rays over the box `p`: from anywhere in it (every third many boxes away), every way, up to
/// two and a half boxes long.
fn rays_over(p: &Periodic, n: usize) -> Vec<Ray> {
    let ([x0, y0, _, _], [w, h]) = (p.bounds(), p.size());
    (0..n as u64)
        .map(|i| {
            let mut o = [x0 + hash(i, 1) * w, y0 + hash(i, 2) * h];
            if i % 3 == 0 {
                o = [o[0] + w * (hash(i, 3) * 41.0 - 20.0).floor(), o[1] + h * (hash(i, 4) * 41.0 - 20.0).floor()];
            }
            let a = hash(i, 5) * std::f64::consts::TAU;
            Ray::new(o, [a.cos(), a.sin()], w.max(h) * [0.05, 0.4, 1.1, 2.5][i as usize % 4])
        })
        .collect()
}

/// Every shape of `scene` moved into the box and copied `reach` boxes either way, with the
/// shape each copy is of.
fn ghosts(scene: &[Polygon], p: &Periodic, reach: i32) -> (Vec<Polygon>, Vec<u32>) {
    let size = p.size();
    let (mut out, mut owner) = (vec![], vec![]);
    for (i, q) in scene.iter().enumerate() {
        let n = p.cell_shift(q.aabb().min);
        for gx in -reach..=reach {
            for gy in -reach..=reach {
                let by = [(n[0] + f64::from(gx)) * size[0], (n[1] + f64::from(gy)) * size[1]];
                out.push(q.transformed(&Transform { x: by[0], y: by[1], angle: 0.0 }));
                owner.push(i as u32);
            }
        }
    }
    (out, owner)
}

#[test]
fn the_reference_meets_what_ghosts_of_every_body_meet() {
    // The by-hand way without a box: every shape moved into the box and copied three boxes
    // either way, each ray started from its origin moved into the box. The same body at the
    // same distance (to f64's rounding of the moves), and casts of a circle and a triangle.
    let tri = Polygon::new(vec![[-0.2, -0.1], [0.2, -0.1], [0.0, 0.2]]).unwrap();
    let circle = Polygon::circle([0.0, 0.0], 0.15).unwrap();
    for kind in [SceneKind::Shapes, SceneKind::Crowd, SceneKind::Mixed] {
        let (scene, p) = boxed(kind, 400, 5, 0.0);
        let (ghost, owner) = ghosts(&scene, &p, 3);
        let size = p.size();
        let rays = rays_over(&p, 120);
        let moved_in: Vec<Ray> = rays
            .iter()
            .map(|r| {
                let n = p.cell_shift(r.origin);
                Ray { origin: [r.origin[0] + n[0] * size[0], r.origin[1] + n[1] * size[1]], ..*r }
            })
            .collect();
        let tol = 1e-9 * (size[0] + size[1]);
        let same = |a: &[Option<RayHit>], b: &[Option<RayHit>], lengths: &[f64], what: &str| {
            let mut hits = 0;
            for (k, (a, b)) in a.iter().zip(b).enumerate() {
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) => {
                        assert!((a.fraction - b.fraction).abs() * lengths[k] <= tol, "{what} {k}: {a:?} {b:?}");
                        assert!(
                            a.body == owner[b.body as usize] || a.fraction == b.fraction,
                            "{what} {k}: {a:?} {b:?}"
                        );
                        hits += 1;
                    }
                    _ => panic!("{what} {k}: {a:?} against the ghosts' {b:?}"),
                }
            }
            hits
        };
        let lengths: Vec<f64> = rays.iter().map(|r| r.max_length).collect();
        let got = reference::cast_rays_periodic(&scene, &[], &rays, &p);
        let hits = same(&got, &reference::cast_rays(&ghost, &[], &moved_in), &lengths, &format!("{kind:?} rays"));
        assert!(hits > 30, "{kind:?}: only {hits} rays hit");
        let shapes = [circle.clone(), tri.clone()];
        let casts: Vec<ShapeCast> = rays
            .iter()
            .enumerate()
            .map(|(k, r)| ShapeCast {
                angle: k as f64,
                ..ShapeCast::new((k % 2) as u32, r.origin, r.direction, r.max_length)
            })
            .collect();
        let moved_casts: Vec<ShapeCast> =
            casts.iter().zip(&moved_in).map(|(c, r)| ShapeCast { origin: r.origin, ..*c }).collect();
        let got = reference::cast_shapes_periodic(&scene, &[], &shapes, &casts, &p);
        let want = reference::cast_shapes(&ghost, &[], &shapes, &moved_casts);
        same(&got, &want, &lengths, &format!("{kind:?} casts"));
    }
}

/// The GPU's hit `g` against the reference's `w` for `ray` in `p`: the same body at the same
/// distance within the tolerance, or bodies met within it of each other, or an answer that
/// changes with the ray moved sideways or lengthened by the tolerance (the reference's, asked
/// again so).
fn judge(scene: &[Polygon], p: &Periodic, ray: &Ray, g: Option<RayHit>, w: Option<RayHit>, what: &str) {
    let scale = p.bounds().iter().map(|c| c.abs()).fold(ray.max_length, f64::max).max(p.size()[0]).max(p.size()[1]);
    let tol = 64.0 * f64::from(f32::EPSILON) * scale;
    let at = |h: &RayHit| h.fraction * ray.max_length;
    if let (Some(g), Some(w)) = (g, w) {
        if (at(&g) - at(&w)).abs() <= tol {
            return;
        }
    }
    if g.map(|h| h.body) == w.map(|h| h.body) && g.is_none() {
        return;
    }
    let len = ray.direction[0].hypot(ray.direction[1]);
    let side = [-ray.direction[1] / len * tol, ray.direction[0] / len * tol];
    let moves = [
        Ray { origin: [ray.origin[0] + side[0], ray.origin[1] + side[1]], ..*ray },
        Ray { origin: [ray.origin[0] - side[0], ray.origin[1] - side[1]], ..*ray },
        Ray { max_length: ray.max_length + tol, ..*ray },
        Ray { max_length: (ray.max_length - tol).max(0.0), ..*ray },
    ];
    let others = reference::cast_rays_periodic(scene, &[], &moves, p);
    let key = |h: Option<RayHit>| h.map(|h| h.body);
    assert!(others.iter().any(|o| key(*o) != key(w)), "{what}: GPU {g:?}, reference {w:?}, not marginal");
}

#[test]
fn gpu_rays_and_casts_in_a_box_agree_with_the_reference_on_every_kind() {
    let g = common::gpu();
    let (mut hits, mut cast_hits) = (0, 0);
    for kind in SceneKind::ALL {
        let (scene, p) = boxed(kind, 500, 23, 0.0);
        let mut world = World::from_polygons(&g, &scene, &WorldOptions::default().with_periodic(p)).unwrap();
        let rays = rays_over(&p, 100);
        let got = world.cast_rays(&rays).unwrap();
        let want = reference::cast_rays_periodic(&scene, &[], &rays, &p);
        for (k, ray) in rays.iter().enumerate() {
            judge(&scene, &p, ray, got[k], want[k], &format!("{kind:?} ray {k} {ray:?}"));
            if let Some(h) = got[k] {
                let n = h.normal;
                assert!(h.fraction == 0.0 || (n[0].hypot(n[1]) - 1.0).abs() < 1e-6, "{kind:?} ray {k}: {h:?}");
            }
        }
        hits += got.iter().flatten().count();
        // A circle's casts are rays against the shapes grown by its radius; the reference's
        // answers are the same rays' against the grown scene, judged there.
        let r = 0.002 * (p.size()[0] + p.size()[1]);
        let casts: Vec<ShapeCast> =
            rays.iter().map(|x| ShapeCast::new(0, x.origin, x.direction, x.max_length)).collect();
        let circle = Polygon::circle([0.0, 0.0], r).unwrap();
        let got = world.cast_shapes(std::slice::from_ref(&circle), &casts).unwrap();
        let grown: Vec<Polygon> =
            scene.iter().map(|q| Polygon::from_core(q.vertices().to_vec(), q.radius() + r).unwrap()).collect();
        let want = reference::cast_rays_periodic(&grown, &[], &rays, &p);
        for (k, ray) in rays.iter().enumerate() {
            judge(&grown, &p, ray, got[k], want[k], &format!("{kind:?} cast {k} {ray:?}"));
        }
        cast_hits += got.iter().flatten().count();
    }
    assert!(hits > 300 && cast_hits > 300, "{hits} rays and {cast_hits} casts hit");
}
