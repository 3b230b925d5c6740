//! Tests of `order.rs`.

use super::*;

/// Issue 24: large outputs order and convert on every core, bucket by bucket; the records
/// and their order are those of a plain sort, on any number of threads, for runs of none, one
/// and many pairs (a pile-up on body 0), with the scratch of a larger call reused.
#[test]
fn large_outputs_order_the_same_on_any_number_of_threads() {
    let bodies = 40_000u32;
    let mut pairs: Vec<GpuContact> = (1..3000).map(|b| gpu(0, b, b as f32)).collect();
    pairs.extend((1..bodies - 1).flat_map(|a| {
        let k = a % 4; // 0 to 3 pairs per body
        (1..=k).map(move |j| gpu(a, (a + j * 7) % bodies, (a ^ j) as f32)).filter(|c| c.a < c.b)
    }));
    let n = pairs.len();
    assert!(n > PARALLEL_FROM, "{n} pairs");
    for i in 0..n {
        pairs.swap(i, (i * 7919 + 13) % n);
    }
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut scratch = Scratch::default();
    let (mut many, mut single) = (vec![], vec![]);
    sorted_contacts_into::<Contact>(&pairs, bodies as usize, &mut many, &mut scratch).unwrap();
    one.install(|| sorted_contacts_into::<Contact>(&pairs, bodies as usize, &mut single, &mut Scratch::default()))
        .unwrap();
    assert_eq!(many, single);
    assert!(many.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
    let (mut f32_many, mut f32_single) = (vec![], vec![]);
    sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut f32_many, &mut scratch).unwrap();
    one.install(|| sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut f32_single, &mut scratch)).unwrap();
    assert!(f32_many.iter().zip(&f32_single).all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y)));
    // The same records as a plain sort of the input (-0.0 made 0.0).
    let mut plain: Vec<GpuContact> = pairs.iter().map(GpuContact::from_gpu).collect();
    plain.sort_by_key(|c| (c.a, c.b));
    assert_eq!(bytemuck::cast_slice::<_, u8>(&plain), bytemuck::cast_slice::<_, u8>(&f32_many));
    // The GPU-sorted path converts in parallel to the same records.
    let (mut widened, mut widened_one) = (vec![], vec![]);
    Contact::from_sorted(&f32_many, &mut widened).unwrap();
    one.install(|| Contact::from_sorted(&f32_many, &mut widened_one)).unwrap();
    assert_eq!(widened, widened_one);
    assert_eq!(widened, many);
}

fn gpu(a: u32, b: u32, depth: f32) -> GpuContact {
    GpuContact { a, b, normal_x: -0.0, normal_y: 1.0, depth, pad: 0 }
}

#[test]
fn any_input_order_gives_pairs_sorted_by_a_then_b() {
    // Every pair of 40 bodies, shuffled by a fixed permutation.
    let mut pairs: Vec<GpuContact> =
        (0..40u32).flat_map(|a| (a + 1..40).map(move |b| gpu(a, b, (a * 40 + b) as f32))).collect();
    let n = pairs.len();
    for i in 0..n {
        pairs.swap(i, (i * 7919 + 13) % n);
    }
    let sorted = sorted_contacts(&pairs, 40).unwrap();
    assert_eq!(sorted.len(), n);
    assert!(sorted.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
    assert!(sorted.iter().all(|c| c.depth == f64::from(c.a * 40 + c.b)));
    // -0.0 becomes 0.0, as in the reference.
    assert!(sorted.iter().all(|c| c.normal[0].to_bits() == 0));
}

/// The buckets at their edges: every pair of 300 bodies (two bodies per bucket, the last
/// bucket's runs shorter), in reverse; then fewer pairs, into the scratch of the first call.
#[test]
fn buckets_cover_every_body_whatever_the_count() {
    let bodies = 300u32;
    let mut pairs: Vec<GpuContact> =
        (0..bodies).flat_map(|a| (a + 1..bodies).map(move |b| gpu(a, b, (a + b) as f32))).collect();
    let want = pairs.clone();
    pairs.reverse();
    assert!(pairs.len() > PARALLEL_FROM);
    let (mut out, mut scratch) = (vec![], Scratch::default());
    sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut out, &mut scratch).unwrap();
    let key = |v: &[GpuContact]| v.iter().map(|c| (c.a, c.b, c.depth.to_bits())).collect::<Vec<_>>();
    assert_eq!(key(&out), key(&want));
    // Fewer pairs than the scratch holds: bodies 200 to 298 have only their pair with the last.
    let ends: Vec<GpuContact> = want.iter().filter(|c| c.a < 200 || c.b == bodies - 1).copied().rev().collect();
    assert!(ends.len() > PARALLEL_FROM && ends.len() < pairs.len());
    sorted_contacts_into::<GpuContact>(&ends, bodies as usize, &mut out, &mut scratch).unwrap();
    let mut sorted = ends.clone();
    sorted.sort_by_key(|c| (c.a, c.b));
    assert_eq!(key(&out), key(&sorted));
}

/// Large outputs write over the last frame's records in place: a frame of fewer pairs after
/// a larger one leaves nothing of it, and a pair given twice (the GPU never gives one twice)
/// is kept twice, in the order given, in a short run and in a long one (ranked and sorted).
#[test]
fn a_reused_output_holds_exactly_this_frames_pairs() {
    let bodies = 50_000u32;
    let frame = |pairs_per_body: u32, seed: u32| -> Vec<GpuContact> {
        let mut pairs: Vec<GpuContact> = (0..bodies - 40)
            .flat_map(|a| (1..=pairs_per_body).map(move |j| gpu(a, a + 1 + (j * 13 + a) % 39, (a * seed + j) as f32)))
            .collect();
        let n = pairs.len();
        for i in 0..n {
            pairs.swap(i, (i * 7919 + seed as usize) % n);
        }
        pairs
    };
    let (mut out, mut scratch) = (vec![], Scratch::default());
    sorted_contacts_into::<GpuContact>(&frame(3, 5), bodies as usize, &mut out, &mut scratch).unwrap();
    let mut pairs = frame(1, 11);
    // Twice: body 7's pair in a run of 2 (its one pair and the copy); body 9 with 40 pairs.
    let seven = *pairs.iter().find(|c| c.a == 7).unwrap();
    pairs.push(GpuContact { depth: -1.0, ..seven });
    pairs.extend((0..39).map(|j| gpu(9, 10 + j, j as f32)));
    pairs.push(gpu(9, 10, -2.0));
    assert!(pairs.len() > PARALLEL_FROM && pairs.len() < bodies as usize * 3);
    sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut out, &mut scratch).unwrap();
    let mut want: Vec<GpuContact> = pairs.iter().map(GpuContact::from_gpu).collect();
    want.sort_by_key(|c| (c.a, c.b)); // stable: copies in the order given
    assert_eq!(bytemuck::cast_slice::<_, u8>(&out), bytemuck::cast_slice::<_, u8>(&want));
    let run = |a: u32| out.iter().filter(|c| c.a == a).map(|c| c.depth).collect::<Vec<_>>();
    assert_eq!(run(7)[1], -1.0);
    assert_eq!(run(9).len(), 41);
}

/// Manifolds travel with their contacts, on every core past [`PARALLEL_FROM`] pairs as
/// below it: the order of a plain sort on any number of threads, each manifold beside its
/// contact, runs of one, a few and a pile-up (body 3), and the first and the last body.
#[test]
fn manifolds_follow_their_contacts_in_large_outputs() {
    let bodies = 50_000u32;
    let mut pairs: Vec<GpuContact> =
        (0..bodies - 1).flat_map(|a| (1..=a % 3).map(move |j| gpu(a, (a + j * 5).min(bodies - 1), a as f32))).collect();
    pairs.extend((4..200).map(|b| gpu(3, b, -(b as f32))));
    pairs.push(gpu(bodies - 2, bodies - 1, 7.0));
    pairs.retain(|c| c.a < c.b);
    pairs.sort_by_key(|c| (c.a, c.b));
    pairs.dedup_by_key(|c| (c.a, c.b));
    let n = pairs.len();
    assert!(n > PARALLEL_FROM, "{n} pairs");
    for i in 0..n {
        pairs.swap(i, (i * 7919 + 5) % n);
    }
    // Each manifold names its pair: its first point is (a, b).
    let manifolds: Vec<GpuManifold> = pairs
        .iter()
        .map(|c| GpuManifold {
            flags: 1 << 2,
            p1_x: c.a as f32,
            p1_y: c.b as f32,
            p1_depth: c.depth,
            ..<(GpuContact, GpuManifold) as Item>::EMPTY.1
        })
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (mut out, mut out_manifolds) = (vec![], vec![]);
        pool.install(|| {
            sorted_with_manifolds_into::<Contact>(
                &pairs,
                &manifolds,
                bodies as usize,
                (&mut out, &mut out_manifolds),
                &mut Scratch::default(),
            )
        })
        .unwrap();
        (out, out_manifolds)
    };
    let (out, out_manifolds) = run(2);
    assert_eq!((out.clone(), out_manifolds.clone()), run(1));
    let mut want: Vec<(Contact, Manifold)> =
        pairs.iter().zip(&manifolds).map(|(c, m)| (Contact::from_gpu(c), m.to_manifold())).collect();
    want.sort_by_key(|(c, _)| (c.a, c.b));
    assert_eq!(out, want.iter().map(|w| w.0).collect::<Vec<_>>());
    assert_eq!(out_manifolds, want.iter().map(|w| w.1).collect::<Vec<_>>());
    assert!(out.iter().zip(&out_manifolds).all(|(c, m)| m.points()[0].point == [f64::from(c.a), f64::from(c.b)]));
    assert_eq!(out.iter().filter(|c| c.a == 3).count(), 196);
}

#[test]
fn into_reuses_and_clears_the_vector() {
    let mut out = vec![Contact { a: 9, b: 10, normal: [1.0, 0.0], depth: 1.0 }; 3];
    sorted_contacts_into(&[gpu(1, 2, 0.5), gpu(0, 2, 0.25)], 3, &mut out, &mut Scratch::default()).unwrap();
    assert_eq!(out.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), [(0, 2), (1, 2)]);
    sorted_contacts_into(&[], 3, &mut out, &mut Scratch::default()).unwrap();
    assert!(out.is_empty());
}
