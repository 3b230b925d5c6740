//! Tests of `pack.rs`.

use super::poses::{transform, TRANSFORM_CHUNK};
use super::*;
use crate::geometry::Transform;
use crate::gpu::kernels::layout::GpuTransform;

fn square(x: f64, y: f64, side: f64) -> Polygon {
    Polygon::new(vec![[x, y], [x + side, y], [x + side, y + side], [x, y + side]]).unwrap()
}

#[test]
fn polygons_are_stored_relative_to_their_first_vertex() {
    let polygons = [square(1e6, -3.0, 2.0), Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).unwrap()];
    let p = Packed::from_polygons(&polygons).unwrap();
    assert_eq!(p.bodies.len(), 2);
    assert_eq!((p.bodies[0].shape_start, p.bodies[0].count), (0, 4));
    assert_eq!((p.bodies[1].shape_start, p.bodies[1].count), (4, 3));
    assert_eq!(p.transforms[0], [1e6, -3.0, 1.0, 0.0]);
    assert_eq!(p.shape_data[0], [0.0, 0.0, 0.0, -1.0]);
    assert_eq!(p.shape_data[2], [2.0, 2.0, 0.0, 1.0]);
    assert_eq!(p.typical_height, 1.5);
    // The radius bounds every vertex's distance from the anchor.
    assert!(f64::from(p.bodies[0].radius) >= 8f64.sqrt());
    assert!(f64::from(p.bodies[0].radius) < 8f64.sqrt() * 1.001);
}

#[test]
fn shared_shapes_and_unknown_shapes() {
    let shapes = [square(-1.0, -1.0, 2.0)];
    let p = Packed::from_shapes(&shapes, &[0, 0, 0]).unwrap();
    assert_eq!(p.shape_data.len(), 4);
    assert!(p.bodies.iter().all(|b| (b.shape_start, b.count) == (0, 4)));
    assert_eq!(p.transforms, vec![[0.0, 0.0, 1.0, 0.0]; 3]);
    assert_eq!(p.typical_height, 2.0);
    match Packed::from_shapes(&shapes, &[0, 1]) {
        Err(Error::UnknownShape { body: 1, shape: 1, shapes: 1 }) => {}
        other => panic!("expected UnknownShape, got {other:?}"),
    }
}

#[test]
fn packing_is_the_same_on_any_number_of_threads() {
    let polygons: Vec<_> =
        (0..5000).map(|i| square(f64::from(i) * 0.37, f64::from(i % 17), 1.0 + f64::from(i % 5))).collect();
    let many = Packed::from_polygons(&polygons).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| Packed::from_polygons(&polygons).unwrap());
    assert_eq!(many, one);
    assert!(many.fits_layout(&polygons));
    assert!(!many.fits_layout(&polygons[1..]));
}

/// A convex polygon of `m` vertices around (x, y), turned by `turn`.
fn ngon(x: f64, y: f64, m: usize, turn: f64) -> Polygon {
    let step = std::f64::consts::TAU / m as f64;
    Polygon::new((0..m).map(|k| [x + (turn + step * k as f64).cos(), y + (turn + step * k as f64).sin()]).collect())
        .unwrap()
}

#[test]
fn repacking_reuses_memory_and_gives_what_a_fresh_pack_gives() {
    // Several chunks of PACK_CHUNK, shapes with and without an inner circle, and a layout that
    // shrinks then grows: every record of the reused vectors is written again.
    let scene = |seed: usize, n: usize| -> Vec<Polygon> {
        (0..n).map(|i| ngon(i as f64 * 0.5, (i % 13) as f64, 3 + (i * 7 + seed) % 20, seed as f64)).collect()
    };
    let mut packed = Packed::default();
    for (seed, n) in [(0, 5000), (1, 4999), (2, 1), (3, 0), (4, PACK_CHUNK), (5, 2 * PACK_CHUNK + 1), (6, 5000)] {
        let polygons = scene(seed, n);
        packed.repack(&polygons).unwrap();
        packed.measure_height(&polygons);
        assert_eq!(packed, Packed::from_polygons(&polygons).unwrap(), "{n} polygons");
    }
    // One changed polygon, the first, changes its records only.
    let mut polygons = scene(7, 3000);
    let before = Packed::from_polygons(&polygons).unwrap();
    polygons[0] = ngon(100.0, 100.0, polygons[0].vertices().len(), 0.25);
    packed.repack(&polygons).unwrap();
    assert!(before.fits_layout(&polygons));
    assert_ne!(packed.shape_data[0], before.shape_data[0]);
    let first = records(packed.bodies[0].count) as usize;
    assert_eq!(packed.shape_data[first..], before.shape_data[first..]);
}

#[test]
fn a_few_huge_bodies_do_not_set_the_typical_height() {
    let mut heights = vec![2.0; 20_000];
    assert_eq!(typical_height(&heights), 2.0);
    for i in [0, 4_096 * 3, 19_999] {
        heights[i] = 1e20;
    }
    // Sampled or not, the three strays are left out.
    assert_eq!(typical_height(&heights), 2.0);
    // A heavy tail of sizes still raises it.
    for h in heights.iter_mut().step_by(10) {
        *h = 100.0;
    }
    assert!(typical_height(&heights) > 10.0);
    assert_eq!(typical_height(&[]), 0.0);
    assert_eq!(typical_height(&[3.0]), 3.0);
}

#[test]
fn transforms_round_once_and_reject_what_f32_cannot_hold() {
    let t = transform(0, &Transform { x: 0.1, y: -2.0, angle: 0.0 }).unwrap();
    assert_eq!(t, [0.1f32, -2.0, 1.0, 0.0]);
    let bad = [Transform { x: 1e39, y: 0.0, angle: 0.0 }];
    assert!(matches!(transforms(&bad), Err(Error::TransformOutOfRange { body: 0, .. })));
    let nan = [Transform { x: 0.0, y: 0.0, angle: 0.0 }, Transform { x: 0.0, y: f64::NAN, angle: 0.0 }];
    assert!(matches!(transforms(&nan), Err(Error::NonFiniteTransform { body: 1, .. })));
}

/// Issue 24: f32 poses, `(x, y, cos, sin)` and `(x, y, angle)`, pack to the bits of the f64
/// transform they round from, and are checked as strictly, with the body named.
#[test]
fn f32_poses_pack_to_the_same_bits_and_are_checked() {
    let t = Transform { x: 0.1, y: -2.5, angle: 0.7 };
    let want = transform(4, &t).unwrap();
    assert_eq!(GpuTransform::new(t.x, t.y, t.angle).to_gpu(4).unwrap(), want);
    let exact = Transform { x: 0.5, y: -2.5, angle: f64::from(0.7f32) };
    assert_eq!([0.5f32, -2.5, 0.7].to_gpu(2).unwrap(), transform(2, &exact).unwrap());
    let pose = |x: f32, y: f32, cos: f32, sin: f32| GpuTransform { x, y, cos, sin };
    // f32 cosines and sines of one angle pass, whatever their rounding.
    for angle in (0..1000).map(|i| i as f32 * 0.0137) {
        pose(1.0, 2.0, angle.cos(), angle.sin()).to_gpu(0).unwrap();
    }
    let cases = [
        (pose(f32::NAN, 0.0, 1.0, 0.0), "non-finite"),
        (pose(0.0, 0.0, f32::INFINITY, 0.0), "non-finite"),
        (pose(0.0, 3e38, 1.0, 0.0), "out of range"),
        (pose(0.0, 0.0, 1.0, 0.01), "not unit"),
        (pose(0.0, 0.0, 0.0, 0.0), "not unit"),
    ];
    for (bad, what) in cases {
        let poses = [pose(0.0, 0.0, 1.0, 0.0), pose(0.0, 0.0, 0.0, 1.0), bad];
        let err = transforms(&poses).unwrap_err();
        let body = match (&err, what) {
            (Error::NonFiniteTransform { body, .. }, "non-finite") => *body,
            (Error::TransformOutOfRange { body, .. }, "out of range") => *body,
            (Error::RotationNotUnit { body, .. }, "not unit") => *body,
            _ => panic!("{bad:?}: expected {what}, got {err:?}"),
        };
        assert_eq!(body, 2, "{err}");
    }
    assert!(matches!([0.0f32, f32::NAN, 0.0].to_gpu(1), Err(Error::NonFiniteTransform { body: 1, .. })));
}

/// Issue 24: the transforms convert on every core, chunk by chunk, to the same bits as one
/// by one, and the error names the first bad transform whichever thread finds one first:
/// here bad ones sit at the end of the first chunk, in a middle chunk and in the last.
#[test]
fn transforms_convert_in_parallel_to_the_same_bits_and_the_first_error() {
    let n = 5 * TRANSFORM_CHUNK + 17;
    let ts: Vec<Transform> = (0..n)
        .map(|i| {
            let f = i as f64;
            Transform { x: f * 1.37 - 3e4, y: (f * 0.11).sin() * 1e6, angle: f * 0.001 - 20.0 }
        })
        .collect();
    let mut out = vec![[9.0f32; 4]; 3];
    let mut staging = vec![0u8; 16 * n];
    transforms_into(&ts[..], None, &mut out, Some(staging.as_mut_slice().into())).unwrap();
    assert_eq!(staging, bytemuck::cast_slice::<[f32; 4], u8>(&out), "the staging copy is the packed one");
    let one_by_one: Vec<[f32; 4]> = ts.iter().enumerate().map(|(i, t)| transform(i, t).unwrap()).collect();
    assert_eq!(out.len(), n);
    assert!(out.iter().zip(&one_by_one).all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits)));
    // The same transforms as separate arrays give the same bits.
    let xy: Vec<[f64; 2]> = ts.iter().map(|t| [t.x, t.y]).collect();
    let angle: Vec<f64> = ts.iter().map(|t| t.angle).collect();
    let mut split = vec![];
    transforms_into(&PoseArrays { xy: &xy, angle: &angle }, None, &mut split, None).unwrap();
    assert!(split.iter().zip(&one_by_one).all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits)));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for bad in [TRANSFORM_CHUNK - 1, 3 * TRANSFORM_CHUNK + 5, n - 1] {
        let mut broken = ts.clone();
        broken[bad].angle = f64::INFINITY;
        broken[n - 1].x = 1e38;
        let expect_bad = |r: Result<()>| match r {
            Err(Error::NonFiniteTransform { body, .. }) => assert_eq!(body, bad),
            Err(Error::TransformOutOfRange { body, .. }) => assert_eq!((body, bad), (n - 1, n - 1)),
            other => panic!("expected the error of transform {bad}, got {other:?}"),
        };
        expect_bad(transforms_into(&broken[..], None, &mut out, None));
        expect_bad(one.install(|| transforms_into(&broken[..], None, &mut out, Some(staging.as_mut_slice().into()))));
        let angle: Vec<f64> = broken.iter().map(|t| t.angle).collect();
        let xy: Vec<[f64; 2]> = broken.iter().map(|t| [t.x, t.y]).collect();
        expect_bad(transforms_into(&PoseArrays { xy: &xy, angle: &angle }, None, &mut out, None));
    }
    transforms_into::<[Transform]>(&[], None, &mut out, Some((&mut [][..]).into())).unwrap();
    assert!(out.is_empty());
}

#[test]
fn large_shapes_carry_an_inner_circle() {
    // A regular 16-gon of radius 2 round (5, 5), stored relative to its first vertex.
    let k = 16;
    let ring: Vec<[f64; 2]> = (0..k)
        .map(|i| {
            let t = std::f64::consts::TAU * f64::from(i) / f64::from(k);
            [5.0 + 2.0 * t.cos(), 5.0 + 2.0 * t.sin()]
        })
        .collect();
    let polygons = [square(0.0, 0.0, 1.0), Polygon::new(ring).unwrap(), square(9.0, 9.0, 1.0)];
    let p = Packed::from_polygons(&polygons).unwrap();
    let starts: Vec<_> = p.bodies.iter().map(|b| (b.shape_start, b.count)).collect();
    assert_eq!(starts, [(0, 4), (4, 16), (21, 4)]);
    assert_eq!(p.shape_data.len(), 25);
    let [cx, cy, r, pad] = p.shape_data[20];
    // Vertices 0, 4, 8 and 12 are (7, 5), (5, 7), (3, 5) and (5, 3): the centre, relative to
    // vertex 0, is (-2, 0).
    assert!((f64::from(cx) + 2.0).abs() < 1e-6 && f64::from(cy).abs() < 1e-6, "{cx} {cy}");
    let apothem = 2.0 * (std::f64::consts::PI / 16.0).cos();
    assert!(f64::from(r) <= apothem && f64::from(r) > apothem - 1e-4, "{r} {apothem}");
    assert_eq!(pad, 0.0);
    // Shared shapes carry it the same way.
    let shared = Packed::from_shapes(&polygons[1..2], &[0, 0]).unwrap();
    assert_eq!(shared.shape_data.len(), 17);
    assert_eq!(shared.shape_data[16][2], inner_circle(&shared.shape_data[..16], shared.bodies[0].radius).1);
}

/// Pose arrays checked alone (a tiled world holds them for worlds made later) give what placing
/// them gives: the count, then the first bad pose by index, found on every core.
#[test]
fn pose_arrays_check_as_a_world_places_them() {
    let n = 3 * TRANSFORM_CHUNK + 5;
    let mut xy = vec![[0.5f64, -1.0]; n];
    let angle = vec![0.25f64; n];
    assert!(PoseArrays { xy: &xy, angle: &angle }.check(n).is_ok());
    assert!(PoseArrays::<f64> { xy: &[], angle: &[] }.check(0).is_ok());
    let count = PoseArrays { xy: &xy, angle: &angle }.check(n + 1);
    assert!(matches!(count, Err(Error::TransformCount { got, expected }) if got == n && expected == n + 1));
    let short = PoseArrays { xy: &xy[1..], angle: &angle };
    assert!(matches!(short.check(n), Err(Error::TransformCount { .. })));
    // Bad ones in the last chunk, a middle one and the first: the first by index is named.
    xy[n - 1] = [f64::NAN, 0.0];
    xy[2 * TRANSFORM_CHUNK + 1] = [3e38, 0.0];
    let poses = PoseArrays { xy: &xy, angle: &angle };
    assert!(matches!(poses.check(n), Err(Error::TransformOutOfRange { body, .. }) if body == 2 * TRANSFORM_CHUNK + 1));
    xy[0] = [0.0, f64::INFINITY];
    let poses = PoseArrays { xy: &xy, angle: &angle };
    assert!(matches!(poses.check(n), Err(Error::NonFiniteTransform { body: 0, .. })));
    let mut out = vec![];
    assert_eq!(format!("{:?}", poses.check(n)), format!("{:?}", transforms_into(&poses, None, &mut out, None)));
}

#[test]
fn the_rounded_and_large_flags_see_every_chunk() {
    // Only the last body of the last chunk is rounded, only the first of the first is large;
    // then neither, and each alone.
    let n = 2 * PACK_CHUNK + 3;
    let mut polygons: Vec<Polygon> = (0..n).map(|i| square(i as f64, 0.0, 0.5)).collect();
    polygons[0] = ngon(0.0, 5.0, SMALL as usize + 1, 0.0);
    polygons[n - 1] = Polygon::circle([0.0, -5.0], 0.5).unwrap();
    let mut packed = Packed::from_polygons(&polygons).unwrap();
    assert!(packed.rounded && packed.large);
    let plain: Vec<Polygon> = (0..n).map(|i| square(i as f64, 0.0, 0.5)).collect();
    packed.repack(&plain).unwrap();
    assert!(!packed.rounded && !packed.large);
    let mut one = plain.clone();
    one[n - 1] = polygons[n - 1].clone();
    packed.repack(&one).unwrap();
    assert!(packed.rounded && !packed.large);
    let shapes = [polygons[0].clone(), plain[0].clone()];
    let shared = Packed::from_shapes(&shapes, &[1, 1, 0]).unwrap();
    assert!(!shared.rounded && shared.large);
}

#[test]
fn vertices_whose_difference_from_the_anchor_is_inexact_round_once() {
    use crate::geometry::frame::to_frame;
    // A difference the f64 subtraction rounds onto an f32 midpoint (2^30 - 32 - 2^-30 rounds to
    // 2^30 - 32, halfway between two f32), and a tiny coordinate far from a large anchor: the
    // packing gives what `to_frame` gives, lane by lane.
    let big = 2f64.powi(30);
    let polygons = [
        Polygon::new(vec![[big, 0.0], [big, 5.0], [32.0 + 2f64.powi(-30), 0.0]]).unwrap(),
        Polygon::new(vec![[1000.3, 0.0], [1000.3, 1.0], [1e-9, 0.5]]).unwrap(),
    ];
    let p = Packed::from_polygons(&polygons).unwrap();
    for (b, polygon) in p.bodies.iter().zip(&polygons) {
        let anchor = polygon.vertices()[0].map(|c| c as f32);
        for (k, v) in polygon.vertices().iter().enumerate() {
            let record = p.shape_data[b.shape_start as usize + k];
            let want = [to_frame(v[0], anchor[0]) as f32, to_frame(v[1], anchor[1]) as f32];
            assert_eq!(record[..2], want, "vertex {k} of {polygon:?}");
        }
    }
    assert_eq!(p.shape_data[2][0], -(2f32.powi(30)) + 64.0);
}
