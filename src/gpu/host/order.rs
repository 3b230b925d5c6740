//! Readback ordering: GPU contacts, in whatever order the sweep and the batches left them, to
//! [`Contact`]s or f32 [`GpuContact`]s sorted by (a, b) (`ContactOrder::Host`, and batches
//! ordered on the GPU each on its own). No device needed.

use crate::error::{Error, Result};
use crate::geometry::{Contact, Manifold};
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};

#[cfg(test)]
fn sorted_contacts(gpu: &[GpuContact], bodies: usize) -> Result<Vec<Contact>> {
    let mut out = Vec::new();
    sorted_contacts_into(gpu, bodies, &mut out, &mut vec![])?;
    Ok(out)
}

/// Records past which the host's ordering and conversion run on every core.
const PARALLEL_FROM: usize = 1 << 15;

/// Where each body's run of pairs starts in the output: a counting sort's offsets by `a`, in
/// `next` (its memory reused from frame to frame).
fn starts_by_a(gpu: &[GpuContact], bodies: usize, next: &mut Vec<u32>) {
    next.clear();
    next.resize(bodies + 1, 0);
    for c in gpu {
        next[c.a as usize + 1] += 1;
    }
    for i in 0..bodies {
        next[i + 1] += next[i];
    }
}

/// A contact record a frame delivers: [`Contact`] (f64) or [`GpuContact`] (f32).
pub(crate) trait Record: Copy + Send + Sync {
    const EMPTY: Self;
    /// The record of one GPU contact.
    fn from_gpu(c: &GpuContact) -> Self;
    fn b(&self) -> u32;
    /// Whether the record is wider than the GPU's (f64): its delivery is a conversion.
    const WIDENS: bool;
    /// `raw`, already sorted on the GPU, into `out` (cleared first, its memory reused); on
    /// every core when large (one thread reads mapped readback memory well below memory speed),
    /// each record written once, in place.
    fn from_sorted(raw: &[GpuContact], out: &mut Vec<Self>) -> Result<()> {
        out.clear();
        out.try_reserve_exact(raw.len())
            .map_err(|_| Error::HostMemory { what: "contacts", needed: std::mem::size_of_val(raw) as u64 })?;
        if raw.len() < PARALLEL_FROM {
            out.extend(raw.iter().map(Self::from_gpu));
        } else {
            use rayon::prelude::*;
            out.par_extend(raw.par_iter().map(Self::from_gpu));
        }
        Ok(())
    }
}

/// `from` copied into `out` (cleared first, its memory reused), on every core when large, or
/// [`Error::HostMemory`].
pub(crate) fn copy_records(from: &[GpuContact], out: &mut Vec<GpuContact>) -> Result<()> {
    out.clear();
    out.try_reserve_exact(from.len())
        .map_err(|_| Error::HostMemory { what: "contacts", needed: std::mem::size_of_val(from) as u64 })?;
    if from.len() < PARALLEL_FROM {
        out.extend_from_slice(from);
    } else {
        use rayon::prelude::*;
        out.par_extend(from.par_iter().copied());
    }
    Ok(())
}

impl Record for Contact {
    const EMPTY: Contact = Contact { a: 0, b: 0, normal: [0.0; 2], depth: 0.0 };
    /// f64, and `+ 0.0` turns -0.0 into 0.0, as the reference does.
    fn from_gpu(c: &GpuContact) -> Contact {
        Contact {
            a: c.a,
            b: c.b,
            normal: [f64::from(c.normal_x) + 0.0, f64::from(c.normal_y) + 0.0],
            depth: f64::from(c.depth),
        }
    }
    fn b(&self) -> u32 {
        self.b
    }
    const WIDENS: bool = true;
}

impl Record for GpuContact {
    const EMPTY: GpuContact = GpuContact { a: 0, b: 0, normal_x: 0.0, normal_y: 0.0, depth: 0.0, pad: 0 };
    /// -0.0 in the normal turned into 0.0, as for [`Contact`] and in the GPU ordering
    /// (`order_gather.wgsl`).
    fn from_gpu(c: &GpuContact) -> GpuContact {
        GpuContact { normal_x: c.normal_x + 0.0, normal_y: c.normal_y + 0.0, ..*c }
    }
    fn b(&self) -> u32 {
        self.b
    }
    const WIDENS: bool = false;
}

/// `count` empty records in `out` (cleared first, its allocation reused), or
/// [`Error::HostMemory`].
fn fill<T: Copy>(out: &mut Vec<T>, count: usize, empty: T, what: &'static str) -> Result<()> {
    out.clear();
    out.try_reserve_exact(count)
        .map_err(|_| Error::HostMemory { what, needed: (count * std::mem::size_of::<T>()) as u64 })?;
    out.resize(count, empty);
    Ok(())
}

/// Each body's run of `out` (ending at `ends[a]`) sorted by `b`: usually none or a handful of
/// pairs, thousands in a pile-up. Runs of one pair are left alone, and large outputs are sorted
/// on every core, a range of bodies each. Every `b` in a run is unique (pairs are), so the order
/// does not depend on the threads.
fn sort_runs<T: Send>(out: &mut [T], ends: &[u32], b: impl Fn(&T) -> u32 + Sync) {
    let sort = |out: &mut [T], ends: &[u32], base: usize| {
        let mut begin = base;
        for &end in ends {
            let end = end as usize;
            if end - begin > 1 {
                out[begin - base..end - base].sort_unstable_by_key(&b);
            }
            begin = end;
        }
    };
    if out.len() < PARALLEL_FROM {
        return sort(out, ends, 0);
    }
    use rayon::prelude::*;
    // Ranges of bodies, each with its part of `out`.
    let bodies_per_task = ends.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let mut parts = vec![];
    let (mut rest, mut begin) = (out, 0usize);
    for group in ends.chunks(bodies_per_task) {
        let end = *group.last().expect("chunks are not empty") as usize;
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(end - begin);
        parts.push((part, group, begin));
        (rest, begin) = (tail, end);
    }
    parts.into_par_iter().for_each(|(part, group, base)| sort(part, group, base));
}

/// The same as [`sorted_contacts_into`], for contacts with their manifolds (`manifolds[i]`
/// belongs to `gpu[i]`): both come out in the same order.
pub(crate) fn sorted_with_manifolds_into<T: Record>(
    gpu: &[GpuContact],
    manifolds: &[GpuManifold],
    bodies: usize,
    (out, out_manifolds): (&mut Vec<T>, &mut Vec<Manifold>),
    next: &mut Vec<u32>,
) -> Result<()> {
    assert_eq!(gpu.len(), manifolds.len(), "one manifold per contact");
    starts_by_a(gpu, bodies, next);
    let mut both = Vec::new();
    fill(&mut both, gpu.len(), (T::EMPTY, Manifold::default()), "contacts")?;
    for (c, m) in gpu.iter().zip(manifolds) {
        let slot = &mut next[c.a as usize];
        both[*slot as usize] = (T::from_gpu(c), m.to_manifold());
        *slot += 1;
    }
    sort_runs(&mut both, &next[..bodies], |(c, _)| c.b());
    out.clear();
    out_manifolds.clear();
    for (c, m) in both {
        out.push(c);
        out_manifolds.push(m);
    }
    Ok(())
}

/// Converts GPU contacts into `out` (cleared first, its allocation reused),
/// sorted by (a, b): a counting sort by `a` that writes each contact in place in one sequential
/// pass, then each body's few pairs by `b`. Pairs are unique, so the order is fully determined
/// whatever order they came in. `next` is scratch memory, reused from frame to frame.
pub(crate) fn sorted_contacts_into<T: Record>(
    gpu: &[GpuContact],
    bodies: usize,
    out: &mut Vec<T>,
    next: &mut Vec<u32>,
) -> Result<()> {
    starts_by_a(gpu, bodies, next);
    fill(out, gpu.len(), T::EMPTY, "contacts")?;
    for c in gpu {
        let slot = &mut next[c.a as usize];
        out[*slot as usize] = T::from_gpu(c);
        *slot += 1;
    }
    // `next[a]` is now the end of a's run.
    sort_runs(out, &next[..bodies], T::b);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: large outputs order and convert on every core; the records and their order
    /// are the same as on one thread, for runs of none, one and many pairs (a pile-up on body 0).
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
        let mut scratch = vec![];
        let (mut many, mut single) = (vec![], vec![]);
        sorted_contacts_into::<Contact>(&pairs, bodies as usize, &mut many, &mut scratch).unwrap();
        one.install(|| sorted_contacts_into::<Contact>(&pairs, bodies as usize, &mut single, &mut vec![])).unwrap();
        assert_eq!(many, single);
        assert!(many.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
        let (mut f32_many, mut f32_single) = (vec![], vec![]);
        sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut f32_many, &mut scratch).unwrap();
        one.install(|| sorted_contacts_into::<GpuContact>(&pairs, bodies as usize, &mut f32_single, &mut scratch))
            .unwrap();
        assert!(f32_many.iter().zip(&f32_single).all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y)));
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

    #[test]
    fn into_reuses_and_clears_the_vector() {
        let mut out = vec![Contact { a: 9, b: 10, normal: [1.0, 0.0], depth: 1.0 }; 3];
        sorted_contacts_into(&[gpu(1, 2, 0.5), gpu(0, 2, 0.25)], 3, &mut out, &mut vec![7; 9]).unwrap();
        assert_eq!(out.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), [(0, 2), (1, 2)]);
        sorted_contacts_into(&[], 3, &mut out, &mut vec![]).unwrap();
        assert!(out.is_empty());
    }
}
