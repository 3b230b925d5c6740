//! Tests of `stream.rs`: what streams is what a repack packs, every record in the staging memory.

use super::*;
use crate::gpu::kernels::shared::SMALL;

/// A convex polygon of `m` vertices around (x, y), turned by `turn`.
fn ngon(x: f64, y: f64, m: usize, turn: f64) -> Polygon {
    let step = std::f64::consts::TAU / m as f64;
    Polygon::new((0..m).map(|k| [x + (turn + step * k as f64).cos(), y + (turn + step * k as f64).sin()]).collect())
        .unwrap()
}

/// Polygons of 3 to 22 vertices and a few past SMALL (with their inner circle), turned by `turn`.
fn scene(n: usize, turn: f64) -> Vec<Polygon> {
    (0..n)
        .map(|i| {
            let m = if i % 7 == 3 { SMALL as usize + 1 + i % 5 } else { 3 + (i * 5) % 20 };
            ngon(i as f64 * 1.5, (i % 11) as f64, m, turn + i as f64)
        })
        .collect()
}

/// The staging bytes of one restream: shapes, bodies, boxes and one or two transforms'.
type Bytes = [Vec<u8>; 5];

/// `polygons` streamed over `like` in shape pieces of `SHAPE` bytes and chunks of `CHUNK / 16`
/// polygons, with staging memory for `transforms` transforms' buffers (none: no staging).
fn streamed<const SHAPE: usize, const CHUNK: usize>(
    polygons: &[Polygon],
    like: &Packed,
    transforms: usize,
) -> (Packed, Bytes) {
    let mut packed = Packed::default();
    let (records, n) = (like.shape_data.len(), like.bodies.len());
    let mut bytes: Bytes = [16 * records, 16 * n, 16 * n, 16 * n, 16 * n].map(|len| vec![0xAB; len]);
    let [shapes, bodies, boxes, t0, t1] = &mut bytes;
    let staging = (transforms > 0).then(|| Staging {
        shapes: shapes.as_mut_slice().into(),
        bodies: bodies.as_mut_slice().into(),
        boxes: boxes.as_mut_slice().into(),
        transforms: [t0, t1].into_iter().take(transforms).map(|t| t.as_mut_slice().into()).collect(),
    });
    packed.make_room(like).unwrap();
    packed.restream_in::<Polygon, SHAPE, CHUNK>(polygons, like, staging);
    (packed, bytes)
}

/// Every staging byte is the packing's, where there was staging memory for it.
fn staged(packed: &Packed, bytes: &Bytes, transforms: usize) -> bool {
    let want: [&[u8]; 4] = [
        bytemuck::cast_slice(&packed.shape_data),
        bytemuck::cast_slice(&packed.bodies),
        bytemuck::cast_slice(&packed.boxes),
        bytemuck::cast_slice(&packed.transforms),
    ];
    let untouched = |b: &Vec<u8>| b.iter().all(|&x| x == 0xAB);
    (0..5).all(|k| match (k, transforms) {
        (_, 0) => untouched(&bytes[k]),
        (4, 1) => untouched(&bytes[4]),
        _ => bytes[k] == want[k.min(3)],
    })
}

#[test]
fn streaming_packs_what_a_repack_packs_and_stages_every_record() {
    for n in [1, 2, 7, 40, 301] {
        let like = Packed::from_polygons(&scene(n, 0.0)).unwrap();
        let polygons = scene(n, 0.3);
        assert!(like.fits_layout(&polygons));
        let want = Packed { typical_height: like.typical_height, ..Packed::from_polygons(&polygons).unwrap() };
        // Pieces of one record and chunks of one polygon; pieces of four records (polygons
        // reach across several, and chunks hold none) and chunks of three; pieces of 64 and
        // chunks of seven; the default sizes (one piece, shorter, and one chunk).
        let runs = [
            (streamed::<16, 16>(&polygons, &like, 1), 1),
            (streamed::<64, 48>(&polygons, &like, 2), 2),
            (streamed::<1024, 112>(&polygons, &like, 1), 1),
            (streamed::<SHAPE_PIECE, { 16 * PACK_CHUNK }>(&polygons, &like, 2), 2),
            (streamed::<64, 48>(&polygons, &like, 0), 0),
        ];
        for (k, ((packed, bytes), transforms)) in runs.iter().enumerate() {
            assert_eq!(*packed, want, "{n} polygons, run {k}");
            assert!(staged(packed, bytes, *transforms), "{n} polygons, run {k}");
        }
    }
}

#[test]
fn a_piece_that_ends_where_the_records_do_and_a_change_at_the_first_polygon() {
    // Four triangles: 12 records, three pieces of four exactly (no shorter last piece), and two
    // chunks of two (no shorter last chunk).
    let triangle = |x: f64| Polygon::new(vec![[x, 0.0], [x + 1.0, 0.0], [x, 1.0]]).unwrap();
    let like = Packed::from_polygons(&[triangle(0.0), triangle(2.0), triangle(4.0), triangle(6.0)]).unwrap();
    assert_eq!(like.shape_data.len(), 12);
    let mut polygons = vec![triangle(0.0), triangle(2.0), triangle(4.0), triangle(6.0)];
    polygons[0] = Polygon::new(vec![[10.0, 10.0], [13.0, 10.0], [10.0, 12.0]]).unwrap();
    let (packed, bytes) = streamed::<64, 32>(&polygons, &like, 1);
    assert_eq!(packed.shape_data[..3], Packed::from_polygons(&polygons[..1]).unwrap().shape_data[..]);
    assert_eq!(packed.shape_data[3..], like.shape_data[3..]);
    assert_eq!(packed.transforms[0], [10.0, 10.0, 1.0, 0.0]);
    assert!(staged(&packed, &bytes, 1));
}

#[test]
fn the_layout_fits_only_the_same_vertex_counts_over_shapes_of_their_own() {
    let like = Packed::from_polygons(&scene(30, 0.0)).unwrap();
    assert!(like.dense && like.fits_layout(&scene(30, 1.0)));
    assert!(!like.fits_layout(&scene(29, 0.0)) && !like.fits_layout(&scene(31, 0.0)));
    let mut other = scene(30, 0.0);
    other[29] = ngon(0.0, 0.0, other[29].vertices().len() + 1, 0.0);
    assert!(!like.fits_layout(&other));
    other[29] = ngon(0.0, 0.0, other[29].vertices().len() - 1, 0.0);
    other[0] = ngon(0.0, 0.0, other[0].vertices().len() + 1, 0.0);
    assert!(!like.fits_layout(&other));
    // Shared shapes are not the bodies' own; shapes named in order are.
    let shapes = scene(3, 0.0);
    let shared = Packed::from_shapes(&shapes, &[0, 0, 1]).unwrap();
    assert!(!shared.dense && !shared.fits_layout(&[shapes[0].clone(), shapes[0].clone(), shapes[1].clone()]));
    assert!(Packed::from_shapes(&shapes, &[0, 1, 2]).unwrap().fits_layout(&scene(3, 0.5)));
    assert!(!Packed::default().fits_layout::<Polygon>(&[]));
}
