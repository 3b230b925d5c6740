//! Readback ordering: GPU contacts, in whatever order the sweep and the batches left them, to
//! [`Contact`]s or f32 [`GpuContact`]s sorted by (a, b) (`ContactOrder::Host`, and batches
//! ordered on the GPU each on its own). No device needed.

use crate::error::{Error, Result};
use crate::geometry::{Contact, Manifold};
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};

#[cfg(test)]
fn sorted_contacts(gpu: &[GpuContact], bodies: usize) -> Result<Vec<Contact>> {
    let mut out = Vec::new();
    sorted_contacts_into(gpu, bodies, &mut out, &mut Scratch::default())?;
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
        next[c.a as usize] += 1;
    }
    exclusive_sums(next);
}

/// A contact record a frame delivers: [`Contact`] (f64) or [`GpuContact`] (f32).
pub(crate) trait Record: Copy + Send + Sync {
    const EMPTY: Self;
    /// The record of one GPU contact.
    fn from_gpu(c: &GpuContact) -> Self;
    fn a(&self) -> u32;
    fn b(&self) -> u32;
    /// The depth (or, under a margin, minus the distance), widened to f64.
    fn depth(&self) -> f64;
    /// The same record for the pair `(a, b)` (of bodies, where this one names shapes).
    fn renamed(self, a: u32, b: u32) -> Self;
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
    fn a(&self) -> u32 {
        self.a
    }
    fn b(&self) -> u32 {
        self.b
    }
    fn depth(&self) -> f64 {
        self.depth
    }
    fn renamed(self, a: u32, b: u32) -> Contact {
        Contact { a, b, ..self }
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
    fn a(&self) -> u32 {
        self.a
    }
    fn b(&self) -> u32 {
        self.b
    }
    fn depth(&self) -> f64 {
        f64::from(self.depth)
    }
    fn renamed(self, a: u32, b: u32) -> GpuContact {
        GpuContact { a, b, ..self }
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

/// Room for exactly `count` more records in `v`, or [`Error::HostMemory`] naming `what`.
fn try_reserve_exact<T>(v: &mut Vec<T>, count: usize, what: &'static str) -> Result<()> {
    v.try_reserve_exact(count)
        .map_err(|_| Error::HostMemory { what, needed: ((v.len() + count) * std::mem::size_of::<T>()) as u64 })
}

/// Each pair of `gpu` written to `out` at its body's next slot, `next[a]`, which moves on.
fn scatter_by_a<T: Record>(gpu: &[GpuContact], out: &mut [T], next: &mut [u32]) {
    for c in gpu {
        let slot = &mut next[c.a as usize];
        out[*slot as usize] = T::from_gpu(c);
        *slot += 1;
    }
}

/// Each body's run of `out` (ending at `ends[a]`) sorted by `b`: usually none or a handful of
/// pairs, thousands in a pile-up. Runs of one pair are left alone, and large outputs are sorted
/// on every core, a range of bodies each. Every `b` in a run is unique (pairs are), so the order
/// does not depend on the threads.
fn sort_runs<T: Send>(out: &mut [T], ends: &[u32], b: impl Fn(&T) -> u32 + Sync) {
    if out.len() < PARALLEL_FROM {
        return sort_runs_in(out, ends, 0, &b);
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
    parts.into_par_iter().for_each(|(part, group, base)| sort_runs_in(part, group, base, &b));
}

/// [`sort_runs`] on this thread, for `out` starting at position `base` of the runs' ends.
fn sort_runs_in<T>(out: &mut [T], ends: &[u32], base: usize, b: &impl Fn(&T) -> u32) {
    let mut begin = base;
    for &end in ends {
        let end = end as usize;
        if end - begin > 1 {
            out[begin - base..end - base].sort_unstable_by_key(b);
        }
        begin = end;
    }
}

/// The same as [`sorted_contacts_into`], for contacts with their manifolds (`manifolds[i]`
/// belongs to `gpu[i]`): both come out in the same order.
pub(crate) fn sorted_with_manifolds_into<T: Record>(
    gpu: &[GpuContact],
    manifolds: &[GpuManifold],
    bodies: usize,
    (out, out_manifolds): (&mut Vec<T>, &mut Vec<Manifold>),
    scratch: &mut Scratch,
) -> Result<()> {
    assert_eq!(gpu.len(), manifolds.len(), "one manifold per contact");
    if gpu.len() < PARALLEL_FROM {
        let convert = |(c, m): &(GpuContact, GpuManifold)| (T::from_gpu(c), m.to_manifold());
        let mut both = Vec::new();
        let next = &mut scratch.next;
        starts_by_a(gpu, bodies, next);
        fill(&mut both, gpu.len(), (T::EMPTY, Manifold::default()), "contacts")?;
        for pair in gpu.iter().copied().zip(manifolds.iter().copied()) {
            let slot = &mut next[pair.0.a as usize];
            both[*slot as usize] = convert(&pair);
            *slot += 1;
        }
        sort_runs(&mut both, &next[..bodies], |(c, _)| c.b());
        out.clear();
        out_manifolds.clear();
        out.extend(both.iter().map(|(c, _)| *c));
        out_manifolds.extend(both.iter().map(|(_, m)| *m));
        return Ok(());
    }
    use rayon::prelude::*;
    // Each contact beside its manifold, moved as one.
    let zipped = &mut scratch.zipped;
    zipped.clear();
    try_reserve_exact(zipped, gpu.len(), "manifolds")?;
    zipped.par_extend(gpu.par_iter().copied().zip(manifolds.par_iter().copied()));
    reuse(out, gpu.len(), T::EMPTY, "contacts")?;
    reuse(out_manifolds, gpu.len(), Manifold::default(), "manifolds")?;
    let slots = (out.as_mut_slice(), out_manifolds.as_mut_slice());
    order_large(zipped, bodies, slots, (&mut scratch.split_full, &mut scratch.offsets))
}

/// Scratch memory of the host ordering, reused from frame to frame.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Counts, then run ends, per body.
    next: Vec<u32>,
    /// Large outputs: each chunk of [`CHUNK`] pairs, in place, split into its buckets of
    /// bodies; only ever grows, so that a frame writes no fresh pages.
    split: Vec<GpuContact>,
    /// The same for contacts with their manifolds.
    split_full: Vec<(GpuContact, GpuManifold)>,
    /// Each contact beside its manifold, before the split.
    zipped: Vec<(GpuContact, GpuManifold)>,
    /// Where each chunk's buckets start in it: `BUCKETS + 1` offsets per chunk.
    offsets: Vec<u32>,
}

/// A pair as the host ordering moves it: its contact, alone or with its manifold.
trait Item: Copy + Send + Sync {
    const EMPTY: Self;
    fn contact(&self) -> &GpuContact;
}

impl Item for GpuContact {
    const EMPTY: GpuContact = <GpuContact as Record>::EMPTY;
    fn contact(&self) -> &GpuContact {
        self
    }
}

impl Item for (GpuContact, GpuManifold) {
    const EMPTY: Self = (
        <GpuContact as Record>::EMPTY,
        GpuManifold { flags: 0, p1_x: 0.0, p1_y: 0.0, p1_depth: 0.0, p2_x: 0.0, p2_y: 0.0, p2_depth: 0.0, pad: 0 },
    );
    fn contact(&self) -> &GpuContact {
        &self.0
    }
}

/// Where the host ordering writes the pairs it converts: contacts, or contacts and their
/// manifolds, each in its own vector.
trait Slots<I>: Send + Sized {
    fn len(&self) -> usize;
    /// The first `mid` slots and the rest.
    fn split_at(self, mid: usize) -> (Self, Self);
    /// `item` converted into slot `at`.
    fn put(&mut self, at: usize, item: &I);
}

impl<T: Record> Slots<GpuContact> for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
    fn put(&mut self, at: usize, item: &GpuContact) {
        self[at] = T::from_gpu(item);
    }
}

impl<T: Record> Slots<(GpuContact, GpuManifold)> for (&mut [T], &mut [Manifold]) {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        let ((c, c_rest), (m, m_rest)) = (self.0.split_at_mut(mid), self.1.split_at_mut(mid));
        ((c, m), (c_rest, m_rest))
    }
    fn put(&mut self, at: usize, (contact, manifold): &(GpuContact, GpuManifold)) {
        self.0[at] = T::from_gpu(contact);
        self.1[at] = manifold.to_manifold();
    }
}

/// Buckets of bodies, by `a`, that large outputs are split into first: each bucket then sorts
/// its pairs on its own core, with its counts and its pairs in cache.
const BUCKETS: usize = 256;

/// Pairs per chunk of the first split: each chunk is split on its own, in cache (196 KB of
/// f32 records), into its own part of the scratch, so that the split needs no counts of the
/// whole output first and reads the mapped records once.
const CHUNK: usize = 1 << 13;

/// Runs of at most this many pairs are placed by rank; longer ones (pile-ups) are sorted.
const RANKED: usize = 16;

/// Converts GPU contacts into `out` (its records replaced, its allocation and pages reused),
/// sorted by (a, b): a counting sort by `a`, then each body's few pairs by `b`. Large outputs
/// are first split, a chunk at a time on every core, into [`BUCKETS`] ranges of bodies, each then
/// sorted on its own core. The order is fully determined (ties, which unique pairs never have,
/// by position) whatever order the pairs came in and however many threads.
pub(crate) fn sorted_contacts_into<T: Record>(
    gpu: &[GpuContact],
    bodies: usize,
    out: &mut Vec<T>,
    scratch: &mut Scratch,
) -> Result<()> {
    if gpu.len() < PARALLEL_FROM {
        let next = &mut scratch.next;
        starts_by_a(gpu, bodies, next);
        fill(out, gpu.len(), T::EMPTY, "contacts")?;
        scatter_by_a(gpu, out, next);
        // `next[a]` is now the end of a's run.
        sort_runs(out, &next[..bodies], T::b);
        return Ok(());
    }
    reuse(out, gpu.len(), T::EMPTY, "contacts")?;
    order_large(gpu, bodies, out.as_mut_slice(), (&mut scratch.split, &mut scratch.offsets))
}

/// The large outputs of [`sorted_contacts_into`] and [`sorted_with_manifolds_into`]: `items`
/// split a chunk at a time into ranges of bodies (into `split`, with each chunk's range starts in
/// `offsets`), then each range into its part of `out`, one slot per item, each slot written.
fn order_large<I: Item, S: Slots<I>>(
    items: &[I],
    bodies: usize,
    out: S,
    (split, offsets): (&mut Vec<I>, &mut Vec<u32>),
) -> Result<()> {
    use rayon::prelude::*;
    let n = items.len();
    // Bodies per bucket: a power of two, so that a pair's bucket is a shift.
    let shift = bodies.div_ceil(BUCKETS).next_power_of_two().trailing_zeros();
    let buckets = bodies.div_ceil(1 << shift);
    grow(split, n, I::EMPTY, "contacts")?;
    offsets.clear();
    offsets.resize(n.div_ceil(CHUNK) * (buckets + 1), 0);
    // Each chunk split by bucket into its own part of the scratch, in its order.
    let bucket = |item: &I| (item.contact().a >> shift) as usize;
    items.par_chunks(CHUNK).zip(split[..n].par_chunks_mut(CHUNK)).zip(offsets.par_chunks_mut(buckets + 1)).for_each(
        |((part, into), starts)| {
            for item in part {
                starts[bucket(item)] += 1;
            }
            exclusive_sums(starts);
            let mut at = starts[..buckets].to_vec();
            for item in part {
                let slot = &mut at[bucket(item)];
                into[*slot as usize] = *item;
                *slot += 1;
            }
        },
    );
    // Each bucket's part of the output; every slot of it is written below.
    assert_eq!(out.len(), n, "one slot per pair");
    let (split, offsets) = (&split[..n], &*offsets);
    let pieces = move |k: usize| {
        split.chunks(CHUNK).zip(offsets.chunks(buckets + 1)).map(move |(part, starts)| {
            let (begin, end) = (starts[k] as usize, starts[k + 1] as usize);
            &part[begin..end]
        })
    };
    let mut tasks = Vec::with_capacity(buckets);
    let mut rest = out;
    for k in 0..buckets {
        let size = pieces(k).map(<[_]>::len).sum();
        let (slots, tail) = rest.split_at(size);
        tasks.push((k, slots));
        rest = tail;
    }
    tasks.into_par_iter().for_each_init(
        || (Vec::new(), Vec::new(), Vec::new()),
        |(starts, runs, keys), (k, mut slots)| {
            let first = (k << shift) as u32;
            let count = (1usize << shift).min(bodies - (k << shift));
            // Each body's run start, then its pairs in runs (in their order), then each run
            // by `b`, into place.
            starts.clear();
            starts.resize(count, 0u32);
            let body = |item: &I| (item.contact().a - first) as usize;
            for item in pieces(k).flatten() {
                starts[body(item)] += 1;
            }
            exclusive_sums(starts);
            // Every record of `runs` is written below: the last bucket's are left as they are.
            runs.truncate(slots.len());
            runs.resize(slots.len(), I::EMPTY);
            // `starts[i]` moves on to the end of body i's run, the start of the next.
            for item in pieces(k).flatten() {
                let slot = &mut starts[body(item)];
                runs[*slot as usize] = *item;
                *slot += 1;
            }
            // Run by run, skipping the bodies with none.
            let mut begin = 0;
            while begin < runs.len() {
                let end = starts[body(&runs[begin])] as usize;
                place_run(&runs[begin..end], &mut slots, begin, keys);
                begin = end;
            }
        },
    );
    Ok(())
}

/// Each count in `counts` replaced by the sum of those before it: where its run starts.
fn exclusive_sums(counts: &mut [u32]) {
    let mut sum = 0;
    for count in counts {
        (*count, sum) = (sum, sum + *count);
    }
}

/// One body's pairs (`run`, in the order they came) into `slots` from `base` on, sorted by `b`
/// (ties by position): a short run by each pair's rank, a long one (a pile-up) by sorting its
/// keys, `b` and position, in `keys`.
fn place_run<I: Item>(run: &[I], slots: &mut impl Slots<I>, base: usize, keys: &mut Vec<u64>) {
    let b = |item: &I| item.contact().b;
    match run.len() {
        0 => {}
        1 => slots.put(base, &run[0]),
        2..=RANKED => {
            for (i, item) in run.iter().enumerate() {
                let rank = run.iter().enumerate().filter(|&(j, other)| (b(other), j) < (b(item), i)).count();
                slots.put(base + rank, item);
            }
        }
        _ => {
            keys.clear();
            keys.extend(run.iter().enumerate().map(|(i, item)| u64::from(b(item)) << 32 | i as u64));
            keys.sort_unstable();
            for (at, key) in keys.iter().enumerate() {
                slots.put(base + at, &run[*key as u32 as usize]);
            }
        }
    }
}

/// `v` at least `len` long, grown with `empty` (on every core) when shorter, or
/// [`Error::HostMemory`] naming `what`.
fn grow<T: Copy + Send + Sync>(v: &mut Vec<T>, len: usize, empty: T, what: &'static str) -> Result<()> {
    use rayon::prelude::*;
    if v.len() < len {
        let more = len - v.len();
        try_reserve_exact(v, more, what)?;
        v.par_extend(rayon::iter::repeat_n(empty, more));
    }
    Ok(())
}

/// `out` exactly `len` long, its records left as they are (the caller writes every one), so
/// that a frame's output reuses the last frame's pages without writing them twice.
fn reuse<T: Copy + Send + Sync>(out: &mut Vec<T>, len: usize, empty: T, what: &'static str) -> Result<()> {
    out.truncate(len);
    grow(out, len, empty, what)
}

#[cfg(test)]
mod tests;
