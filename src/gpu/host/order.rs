//! Readback ordering: GPU contacts, in whatever order the sweep and the batches left them, to
//! [`Contact`]s or f32 [`GpuContact`]s sorted by (a, b) (`ContactOrder::Host`, and batches
//! ordered on the GPU each on its own). No device needed.

use crate::error::{Error, Result};
use crate::geometry::{Contact, Manifold};
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};

#[cfg(test)]
fn sorted_contacts(gpu: &[GpuContact], bodies: usize) -> Result<Vec<Contact>> {
    let mut out = Vec::new();
    sorted_contacts_into(gpu, bodies, &mut out)?;
    Ok(out)
}

/// Where each body's run of pairs starts in the output: a counting sort's offsets by `a`.
fn starts_by_a(gpu: &[GpuContact], bodies: usize) -> Vec<u32> {
    let mut next = vec![0u32; bodies + 1];
    for c in gpu {
        next[c.a as usize + 1] += 1;
    }
    for i in 0..bodies {
        next[i + 1] += next[i];
    }
    next
}

/// A contact record a frame delivers: [`Contact`] (f64) or [`GpuContact`] (f32).
pub(crate) trait Record: Copy {
    const EMPTY: Self;
    /// The record of one GPU contact.
    fn from_gpu(c: &GpuContact) -> Self;
    fn b(&self) -> u32;
    /// `raw`, already sorted on the GPU, into `out` (replaced).
    fn from_sorted(raw: Vec<GpuContact>, out: &mut Vec<Self>) -> Result<()> {
        out.clear();
        out.try_reserve_exact(raw.len()).map_err(|_| Error::HostMemory {
            what: "contacts",
            needed: (raw.len() * std::mem::size_of::<Self>()) as u64,
        })?;
        out.extend(raw.iter().map(Self::from_gpu));
        Ok(())
    }
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
    /// The records as read back: the GPU made -0.0 0.0 already.
    fn from_sorted(raw: Vec<GpuContact>, out: &mut Vec<GpuContact>) -> Result<()> {
        *out = raw;
        Ok(())
    }
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

/// Each body's run of `out` (ending at `ends[a]`) sorted by `b`: usually a handful of pairs,
/// thousands in a pile-up.
fn sort_runs<T>(out: &mut [T], ends: &[u32], b: impl Fn(&T) -> u32) {
    let mut begin = 0;
    for &end in ends {
        out[begin..end as usize].sort_unstable_by_key(&b);
        begin = end as usize;
    }
}

/// The same as [`sorted_contacts_into`], for contacts with their manifolds (`manifolds[i]`
/// belongs to `gpu[i]`): both come out in the same order.
pub(crate) fn sorted_with_manifolds_into<T: Record>(
    gpu: &[GpuContact],
    manifolds: &[GpuManifold],
    bodies: usize,
    out: &mut Vec<T>,
    out_manifolds: &mut Vec<Manifold>,
) -> Result<()> {
    assert_eq!(gpu.len(), manifolds.len(), "one manifold per contact");
    let mut next = starts_by_a(gpu, bodies);
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
/// whatever order they came in.
pub(crate) fn sorted_contacts_into<T: Record>(gpu: &[GpuContact], bodies: usize, out: &mut Vec<T>) -> Result<()> {
    let mut next = starts_by_a(gpu, bodies);
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
        sorted_contacts_into(&[gpu(1, 2, 0.5), gpu(0, 2, 0.25)], 3, &mut out).unwrap();
        assert_eq!(out.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), [(0, 2), (1, 2)]);
        sorted_contacts_into(&[], 3, &mut out).unwrap();
        assert!(out.is_empty());
    }
}
