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

/// `polygons` streamed over `like` in pieces of `BYTES`: the packing and the staging bytes.
fn streamed<const BYTES: usize>(polygons: &[Polygon], like: &Packed, staging: bool) -> (Packed, Vec<u8>) {
    let mut packed = Packed::default();
    let mut bytes = vec![0xAB; 16 * like.shape_data.len()];
    let view = staging.then(|| wgpu::WriteOnly::from(bytes.as_mut_slice()));
    packed.make_room(like).unwrap();
    packed.restream_in::<Polygon, BYTES>(polygons, like, view);
    (packed, bytes)
}

#[test]
fn streaming_packs_what_a_repack_packs_and_stages_every_record() {
    for n in [1, 2, 7, 40, 301] {
        let like = Packed::from_polygons(&scene(n, 0.0)).unwrap();
        let polygons = scene(n, 0.3);
        assert!(like.fits_layout(&polygons));
        let want = Packed { typical_height: like.typical_height, ..Packed::from_polygons(&polygons).unwrap() };
        // Pieces of one record, of four (polygons reach across several, and some pieces have
        // no polygon of their own), of 64, and of the default size (one piece, shorter).
        let runs = [
            streamed::<16>(&polygons, &like, true),
            streamed::<64>(&polygons, &like, true),
            streamed::<1024>(&polygons, &like, true),
            streamed::<PIECE_BYTES>(&polygons, &like, true),
        ];
        for (k, (packed, bytes)) in runs.iter().enumerate() {
            assert_eq!(*packed, want, "{n} polygons, run {k}");
            assert_eq!(bytes.as_slice(), bytemuck::cast_slice::<_, u8>(&want.shape_data), "{n} polygons, run {k}");
        }
        // Without staging memory, the host's vectors alone.
        let (packed, bytes) = streamed::<64>(&polygons, &like, false);
        assert_eq!(packed, want);
        assert!(bytes.iter().all(|&b| b == 0xAB));
    }
}

#[test]
fn a_piece_that_ends_where_the_records_do_and_a_change_at_the_first_polygon() {
    // Four triangles: 12 records, three pieces of four exactly (no shorter last piece).
    let triangle = |x: f64| Polygon::new(vec![[x, 0.0], [x + 1.0, 0.0], [x, 1.0]]).unwrap();
    let like = Packed::from_polygons(&[triangle(0.0), triangle(2.0), triangle(4.0), triangle(6.0)]).unwrap();
    assert_eq!(like.shape_data.len(), 12);
    let mut polygons = vec![triangle(0.0), triangle(2.0), triangle(4.0), triangle(6.0)];
    polygons[0] = Polygon::new(vec![[10.0, 10.0], [13.0, 10.0], [10.0, 12.0]]).unwrap();
    let (packed, bytes) = streamed::<64>(&polygons, &like, true);
    assert_eq!(packed.shape_data[..3], Packed::from_polygons(&polygons[..1]).unwrap().shape_data[..]);
    assert_eq!(packed.shape_data[3..], like.shape_data[3..]);
    assert_eq!(packed.transforms[0], [10.0, 10.0, 1.0, 0.0]);
    assert_eq!(bytes.as_slice(), bytemuck::cast_slice::<_, u8>(&packed.shape_data));
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
