//! Readback ordering: GPU contacts, in whatever order the sweep and the batches left them, to
//! [`Contact`]s sorted by (a, b). No device needed.

use crate::error::{Error, Result};
use crate::geometry::{Contact, Manifold};
use crate::gpu::layout::{GpuContact, GpuManifold};

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

const EMPTY: Contact = Contact { a: 0, b: 0, normal: [0.0; 2], depth: 0.0 };

/// The same as [`sorted_contacts_into`], for contacts with their manifolds (`manifolds[i]`
/// belongs to `gpu[i]`): both come out in the same order.
pub(crate) fn sorted_with_manifolds_into(
    gpu: &[GpuContact],
    manifolds: &[GpuManifold],
    bodies: usize,
    out: &mut Vec<Contact>,
    out_manifolds: &mut Vec<Manifold>,
) -> Result<()> {
    assert_eq!(gpu.len(), manifolds.len(), "one manifold per contact");
    let mut next = starts_by_a(gpu, bodies);
    let mut both = Vec::new();
    both.try_reserve_exact(gpu.len()).map_err(|_| Error::HostMemory {
        what: "contacts",
        needed: (gpu.len() * std::mem::size_of::<(Contact, Manifold)>()) as u64,
    })?;
    both.resize(gpu.len(), (EMPTY, Manifold::default()));
    for (c, m) in gpu.iter().zip(manifolds) {
        let slot = &mut next[c.a as usize];
        both[*slot as usize] = (to_contact(c), m.to_manifold());
        *slot += 1;
    }
    let mut begin = 0;
    for &end in &next[..bodies] {
        both[begin..end as usize].sort_unstable_by_key(|(c, _)| c.b);
        begin = end as usize;
    }
    out.clear();
    out_manifolds.clear();
    for (c, m) in both {
        out.push(c);
        out_manifolds.push(m);
    }
    Ok(())
}

fn to_contact(c: &GpuContact) -> Contact {
    // `+ 0.0` turns -0.0 into 0.0, as the reference does.
    Contact {
        a: c.a,
        b: c.b,
        normal: [f64::from(c.normal_x) + 0.0, f64::from(c.normal_y) + 0.0],
        depth: f64::from(c.depth),
    }
}

/// Converts GPU contacts to [`Contact`]s sorted by (a, b), into `out` (cleared first, its
/// allocation reused): a counting sort by `a` that writes each contact in place in one sequential
/// pass, then each body's few pairs by `b`. Pairs are unique, so the order is fully determined
/// whatever order they came in.
pub(crate) fn sorted_contacts_into(gpu: &[GpuContact], bodies: usize, out: &mut Vec<Contact>) -> Result<()> {
    let mut next = starts_by_a(gpu, bodies);
    let empty = EMPTY;
    out.clear();
    out.try_reserve_exact(gpu.len()).map_err(|_| Error::HostMemory {
        what: "contacts",
        needed: (gpu.len() * std::mem::size_of::<Contact>()) as u64,
    })?;
    out.resize(gpu.len(), empty);
    for c in gpu {
        let slot = &mut next[c.a as usize];
        out[*slot as usize] = to_contact(c);
        *slot += 1;
    }
    // `next[a]` is now the end of a's run: usually a handful of pairs, thousands in a pile-up.
    let mut begin = 0;
    for &end in &next[..bodies] {
        out[begin..end as usize].sort_unstable_by_key(|c| c.b);
        begin = end as usize;
    }
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
