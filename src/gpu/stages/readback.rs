//! Readback: the frame's totals and timestamps, then its contacts, copied to mappable buffers
//! and read with a timeout. Every path out of a read, errors included, leaves the buffer
//! unmapped, so a timeout or a device error never breaks the next frame.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{SpanLog, Timestamps};
use crate::gpu::kernels::buffers::storage;
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};

/// Where the resolved timestamps sit in the status buffer.
const TICKS_AT: u64 = 256;
const STATUS_BYTES: u64 = TICKS_AT + Timestamps::BYTES;

/// A u32 on the GPU: its buffer and byte offset.
pub(crate) type Word<'a> = (&'a wgpu::Buffer, u64);

/// The three totals of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    pub entries: u64,
    pub candidates: u64,
    pub colliding: u64,
    /// Contact events (0 without): pairs that began, pairs that ended.
    pub began: u64,
    pub ended: u64,
    /// The sweep's windows word (see [`Sweep::need`](crate::gpu::stages::sweep::Sweep::need)):
    /// the windows its longest walk needs, or `u32::MAX` where a loop was cut short.
    pub need: u32,
}

pub(crate) struct Readback {
    /// `[entries, candidates, colliding, need, x, y, z, 0]` after a frame: the totals, the
    /// sweep's windows word, then the indirect arguments of a 64-wide pass over the colliding
    /// pairs.
    pub totals: wgpu::Buffer,
    status: wgpu::Buffer,
    contacts: Option<wgpu::Buffer>,
    /// Where the manifolds are copied to be read ([`ContactDetail::Full`](crate::gpu::ContactDetail::Full)).
    manifolds: Option<wgpu::Buffer>,
    /// Where the contact events are copied to be read.
    events: Option<wgpu::Buffer>,
    /// Where continuous collision's impacts are copied to be read.
    impacts: Option<wgpu::Buffer>,
    /// The status copy holds the event counts (at byte 16).
    status_events: bool,
    /// Contacts the submitted frame copies into `contacts` itself, so that a frame with no more
    /// colliding pairs than that is read back after one wait (see `encode_contacts`).
    copied: u64,
    /// Colliding pairs of the last frame read back: the next frame's guess.
    last_colliding: u64,
    pub timestamps: Option<Timestamps>,
}

impl Readback {
    pub fn new(gpu: &Gpu) -> Readback {
        use wgpu::BufferUsages as U;
        let device = gpu.device();
        Readback {
            totals: storage(device, "satgpu.totals", 32, U::COPY_SRC | U::COPY_DST | U::INDIRECT),
            status: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("satgpu.status.read"),
                size: STATUS_BYTES,
                usage: U::MAP_READ | U::COPY_DST,
                mapped_at_creation: false,
            }),
            contacts: None,
            manifolds: None,
            events: None,
            impacts: None,
            status_events: false,
            copied: 0,
            last_colliding: 0,
            timestamps: gpu.has_timestamps().then(|| Timestamps::new(device, gpu.queue())),
        }
    }

    /// Records the copies of the three totals (each a buffer and a byte offset; no entry total
    /// with all pairs), of the sweep's windows word (none with all pairs) and of the colliding
    /// pairs' dispatch arguments (`args`) into [`Readback::totals`].
    pub fn encode_totals(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (entries, candidates, colliding): (Option<Word<'_>>, Word<'_>, Word<'_>),
        cut: Option<Word<'_>>,
        args: &wgpu::Buffer,
    ) {
        for (slot, at) in [(entries, 0), (cut, 12)] {
            match slot {
                Some((buf, off)) => encoder.copy_buffer_to_buffer(buf, off, &self.totals, at, 4),
                None => encoder.clear_buffer(&self.totals, at, Some(4)),
            }
        }
        encoder.copy_buffer_to_buffer(candidates.0, candidates.1, &self.totals, 4, 4);
        self.encode_colliding(encoder, colliding);
        encoder.copy_buffer_to_buffer(args, 0, &self.totals, 16, 12);
    }

    /// Records the copy of the colliding total (at `buf`, byte `off`) alone (a later batch).
    pub fn encode_colliding(&self, encoder: &mut wgpu::CommandEncoder, (buf, off): Word<'_>) {
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 8, 4);
    }

    /// Records the copies the host reads after the frame: the totals, the counts of contact
    /// events from `events` (`[began, ended, ..]`) if given, and the timestamps if `timed`.
    pub fn encode_status(&mut self, encoder: &mut wgpu::CommandEncoder, timed: bool, events: Option<&wgpu::Buffer>) {
        encoder.copy_buffer_to_buffer(&self.totals, 0, &self.status, 0, 16);
        if let Some(events) = events {
            encoder.copy_buffer_to_buffer(events, 0, &self.status, 16, 8);
        }
        self.status_events = events.is_some();
        if let (Some(ts), true) = (&self.timestamps, timed) {
            ts.resolve(encoder, &self.status, TICKS_AT);
        }
    }

    /// Waits for `submission` and reads the totals, and the timestamps' bytes if `timed`.
    pub fn status(
        &self,
        gpu: &Gpu,
        submission: wgpu::SubmissionIndex,
        timed: bool,
        (what, log): (&'static str, &mut SpanLog),
    ) -> Result<(Totals, Vec<u8>)> {
        let size = match (timed && self.timestamps.is_some(), self.status_events) {
            (true, _) => STATUS_BYTES,
            (false, true) => 24,
            (false, false) => 16,
        };
        let bytes: Vec<u8> = read_logged(gpu, &self.status, size, submission, (what, log))?;
        let t: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[..24.min(bytes.len())]);
        let (began, ended) = match self.status_events {
            true => (t[4].into(), t[5].into()),
            false => (0, 0),
        };
        let totals =
            Totals { entries: t[0].into(), candidates: t[1].into(), colliding: t[2].into(), began, ended, need: t[3] };
        let ticks = bytes.get(TICKS_AT as usize..).unwrap_or_default().to_vec();
        Ok((totals, ticks))
    }

    /// Records, into the frame's own submission, the copy of as many contacts as the last frame
    /// had (plus an eighth and 256, at most `capacity`) to the mappable buffer, so that a frame
    /// like the last is read back after a single wait. A frame with more colliding pairs copies
    /// the rest in a second submission.
    pub fn encode_contacts(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        capacity: u64,
    ) {
        let count = (self.last_colliding + self.last_colliding / 8 + 256).min(capacity);
        let bytes = count * std::mem::size_of::<GpuContact>() as u64;
        let dst = reserve(gpu, &mut self.contacts, bytes, "satgpu.contacts.read");
        encoder.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
        self.copied = count;
    }

    /// The first `count` manifolds of `src`, copied now (after the frame's work) and mapped:
    /// read where they lie, unmapped when dropped.
    pub fn manifolds(&mut self, gpu: &Gpu, src: &wgpu::Buffer, count: u64, log: &mut SpanLog) -> Result<Mapped> {
        let bytes = count * std::mem::size_of::<GpuManifold>() as u64;
        map_prefix(gpu, (src, bytes), (&mut self.manifolds, "satgpu.manifolds.read"), ("manifolds", log))
    }

    /// The first `count` contact events of `src` (pairs as `[a, b]`), copied and read now (after
    /// the frame's work).
    pub fn events(&mut self, gpu: &Gpu, src: &wgpu::Buffer, count: u64, log: &mut SpanLog) -> Result<Vec<[u32; 2]>> {
        read_prefix(gpu, (src, count), (&mut self.events, "satgpu.events.read"), ("contact events", log))
    }

    /// A pair list as the events stage keeps one (its length in record 0, then the pairs), read
    /// now (two waits).
    pub fn pair_list(&mut self, gpu: &Gpu, src: &wgpu::Buffer, log: &mut SpanLog) -> Result<Vec<[u32; 2]>> {
        let length = self.events(gpu, src, 1, log)?[0][0];
        let mut list = self.events(gpu, src, 1 + u64::from(length), log)?;
        Ok(list.split_off(1))
    }

    /// The impact list of continuous collision (record 0: its count and the loops-cut flag; then
    /// (a, b, toi bits, 0) records), read now (two waits), and whether the loops were cut.
    pub fn impacts(&mut self, gpu: &Gpu, src: &wgpu::Buffer, log: &mut SpanLog) -> Result<(Vec<[u32; 4]>, bool)> {
        let slot = (&mut self.impacts, "satgpu.impacts.read");
        let [count, cut, ..] = read_prefix::<[u32; 4]>(gpu, (src, 1), slot, ("impacts", log))?[0];
        // (A batch has at most one impact per candidate, and the list room for one per candidate.)
        let count = u64::from(count).min(src.size() / 16 - 1);
        let mut list =
            read_prefix(gpu, (src, 1 + count), (&mut self.impacts, "satgpu.impacts.read"), ("impacts", log))?;
        Ok((list.split_off(1), cut != 0))
    }

    /// The first `count` contacts of `src`, mapped: from the copy the frame `submission` made
    /// when it holds them all; otherwise copied now, only those past the frame's copy when the
    /// buffer has room for all (one more wait either way). Forgets the frame's copy; a frame's
    /// count is the next frame's guess.
    pub fn contacts(
        &mut self,
        gpu: &Gpu,
        src: &wgpu::Buffer,
        count: u64,
        submission: Option<wgpu::SubmissionIndex>,
        log: &mut SpanLog,
    ) -> Result<Mapped> {
        const RECORD: u64 = std::mem::size_of::<GpuContact>() as u64;
        let copied = std::mem::take(&mut self.copied);
        if submission.is_some() {
            self.last_colliding = count;
        }
        let bytes = count * RECORD;
        if bytes == 0 {
            return Ok(Mapped::empty());
        }
        let submission = match submission {
            Some(frame) if count <= copied => frame,
            frame => {
                let keep = frame.is_some() && self.contacts.as_ref().is_some_and(|b| b.size() >= bytes);
                let from = if keep { copied * RECORD } else { 0 };
                let dst = reserve(gpu, &mut self.contacts, bytes, "satgpu.contacts.read");
                let mut encoder = gpu.device().create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(src, from, dst, from, bytes - from);
                gpu.queue().submit([encoder.finish()])
            }
        };
        map_logged(gpu, self.contacts.as_ref().expect("reserved"), bytes, submission, ("contacts", log))
    }
}

/// The first `count` records `T` of `src`, copied now into the mappable buffer in `slot` (made or
/// grown as `label`) and read after one wait; `what` names the work in a timeout error.
fn read_prefix<T: bytemuck::Pod>(
    gpu: &Gpu,
    (src, count): (&wgpu::Buffer, u64),
    (slot, label): (&mut Option<wgpu::Buffer>, &str),
    (what, log): (&'static str, &mut SpanLog),
) -> Result<Vec<T>> {
    let bytes = count * std::mem::size_of::<T>() as u64;
    let mapped = map_prefix(gpu, (src, bytes), (slot, label), (what, log))?;
    Ok(log.time("copy_out", || mapped.records::<T>().into_owned()))
}

/// The first `bytes` of `src` copied into the readback buffer in `slot` (made or grown as needed)
/// and mapped, after one submission and wait.
fn map_prefix(
    gpu: &Gpu,
    (src, bytes): (&wgpu::Buffer, u64),
    (slot, label): (&mut Option<wgpu::Buffer>, &str),
    (what, log): (&'static str, &mut SpanLog),
) -> Result<Mapped> {
    if bytes == 0 {
        return Ok(Mapped::empty());
    }
    let dst = reserve(gpu, slot, bytes, label);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
    let submission = gpu.queue().submit([encoder.finish()]);
    map_logged(gpu, dst, bytes, submission, (what, log))
}

/// A mappable buffer in `slot` of at least `bytes` (grown by half when replaced).
fn reserve<'a>(gpu: &Gpu, slot: &'a mut Option<wgpu::Buffer>, bytes: u64, label: &str) -> &'a wgpu::Buffer {
    if slot.as_ref().is_none_or(|b| b.size() < bytes) {
        *slot = Some(gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (bytes + bytes / 2).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }));
    }
    slot.as_ref().expect("reserved above")
}

/// Unmaps the buffer when dropped, on every path out of a read: mapped, still pending after a
/// timeout (the mapping is cancelled), or failed (nothing to unmap; the complaint is caught here).
struct Unmap(wgpu::Device, wgpu::Buffer);

impl Drop for Unmap {
    fn drop(&mut self) {
        let scope = self.0.push_error_scope(wgpu::ErrorFilter::Validation);
        self.1.unmap();
        let _ = pollster::block_on(scope.pop());
    }
}

/// The first bytes of a readback buffer, mapped for reading: the GPU's records borrowed where
/// they lie, and the buffer unmapped when this is dropped.
pub(crate) struct Mapped {
    /// Dropped before `_unmap` (fields drop in order): wgpu unmaps only without views.
    view: Option<wgpu::BufferView>,
    _unmap: Option<Unmap>,
}

impl Mapped {
    /// Nothing mapped: no records.
    pub fn empty() -> Mapped {
        Mapped { view: None, _unmap: None }
    }

    /// The mapped bytes as records of `T`, borrowed (a copy only if the mapping is not aligned
    /// for `T`, which wgpu's mappings always are).
    pub fn records<T: bytemuck::Pod>(&self) -> std::borrow::Cow<'_, [T]> {
        match self.aligned() {
            Some(records) => std::borrow::Cow::Borrowed(records),
            None => std::borrow::Cow::Owned(bytemuck::pod_collect_to_vec(self.bytes())),
        }
    }

    /// The mapped bytes as records of `T`, if the mapping is aligned for `T`.
    pub fn aligned<T: bytemuck::Pod>(&self) -> Option<&[T]> {
        match self.bytes() {
            [] => Some(&[]),
            bytes => bytemuck::try_cast_slice(bytes).ok(),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.view.as_deref().unwrap_or_default()
    }
}

/// Submits `encoder` with `copies` (buffer, byte offset, bytes; each a multiple of 4) into one
/// mappable buffer and reads them after one wait, as words, one vector per copy: the one
/// readback of the work asked beside a frame (ray casts, region queries, the neighbours' gather,
/// the simulations' figures and positions) and of the tests' kernels. `what` names the work in
/// a timeout error.
pub(crate) fn read_copies(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    copies: &[(&wgpu::Buffer, u64, u64)],
    what: &'static str,
) -> Result<Vec<Vec<u32>>> {
    let total: u64 = copies.iter().map(|c| c.2).sum();
    let size = total.max(4);
    let read = gpu.scoped(|| {
        gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.read"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    })?;
    let mut at = 0;
    for &(buffer, offset, bytes) in copies {
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(buffer, offset, &read, at, bytes);
        }
        at += bytes;
    }
    let submission = gpu.queue().submit([encoder.finish()]);
    let all: Vec<u32> = read_as(gpu, &read, size, submission, what)?;
    let mut at = 0;
    Ok(copies
        .iter()
        .map(|&(_, _, bytes)| {
            let words = (bytes / 4) as usize;
            at += words;
            all[at - words..at].to_vec()
        })
        .collect())
}

/// Maps the first `size` bytes of `buffer` (MAP_READ) after `submission` completes and returns
/// them decoded as `T` records (one copy). `what` names the work in a timeout error. Waits at
/// most the device's timeout in all.
pub(crate) fn read_as<T: bytemuck::Pod>(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    what: &'static str,
) -> Result<Vec<T>> {
    read_logged(gpu, buffer, size, submission, (what, &mut SpanLog::default()))
}

/// [`read_as`], with its `wait`, `map` and `copy_out` spans recorded in `log`.
pub(crate) fn read_logged<T: bytemuck::Pod>(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    (what, log): (&'static str, &mut SpanLog),
) -> Result<Vec<T>> {
    let mapped = map_logged(gpu, buffer, size, submission, (what, log))?;
    Ok(log.time("copy_out", || mapped.records::<T>().into_owned()))
}

/// The first `size` bytes of `buffer` (MAP_READ) mapped after `submission` completes, its `wait`
/// and `map` spans recorded in `log`. `what` names the work in a timeout error. Waits at most
/// the device's timeout in all.
pub(crate) fn map_logged(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    (what, log): (&'static str, &mut SpanLog),
) -> Result<Mapped> {
    if size == 0 {
        return Ok(Mapped::empty());
    }
    let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
    buffer.slice(..size).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    let unmap = Unmap(gpu.device().clone(), buffer.clone());
    let timeout = gpu.timeout();
    let wait = Instant::now();
    let deadline = wait + timeout;
    gpu.device()
        .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(timeout) })
        .map_err(|e| gpu.poll_error(e, what))?;
    log.record("wait", wait);
    let map = Instant::now();
    // The callback runs inside some thread's poll. When another thread polls the same device at
    // the same moment, it may be running our callback still: wait for it, up to the deadline.
    let mut receive = pin!(rx.receive());
    let mapped = loop {
        match receive.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Some(r)) => break r,
            Poll::Ready(None) => return Err(Error::Device(format!("mapping the {what} readback was cancelled"))),
            Poll::Pending if Instant::now() >= deadline => return Err(Error::Timeout { what, timeout }),
            Poll::Pending => {
                gpu.device().poll(wgpu::PollType::Poll).map_err(|e| gpu.poll_error(e, what))?;
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    };
    mapped.map_err(|e| Error::Device(format!("mapping the {what} readback failed: {e}")))?;
    let view = buffer
        .slice(..size)
        .get_mapped_range()
        .map_err(|e| Error::Device(format!("reading the {what} readback: {e}")))?;
    log.record("map", map);
    Ok(Mapped { view: Some(view), _unmap: Some(unmap) })
}
