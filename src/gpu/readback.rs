//! Reading GPU buffers back: map, wait with a timeout, copy out. Never blocks past the timeout.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// Maps the first `size` bytes of `buffer` (MAP_READ) after `submission` completes and returns
/// a copy. `what` names the work in a timeout error.
pub(crate) fn read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    what: &'static str,
) -> Result<Vec<u8>> {
    read_as(gpu, buffer, size, submission, what)
}

/// As [`read`], decoded as `T` records straight from the mapped range (one copy).
pub(crate) fn read_as<T: bytemuck::Pod>(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    what: &'static str,
) -> Result<Vec<T>> {
    if size == 0 {
        return Ok(vec![]);
    }
    let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
    buffer.slice(..size).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    let timeout = gpu.timeout();
    gpu.device().poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(timeout) }).map_err(
        |e| match e {
            wgpu::PollError::Timeout => Error::Timeout { what, seconds: timeout.as_secs() },
            other => Error::Device(format!("waiting for {what}: {other}")),
        },
    )?;
    gpu.check()?;
    // On native backends the callback has run once poll(Wait) returns; poll the receiver once
    // instead of blocking on it, so a missing callback is an error, not a hang.
    let mut receive = pin!(rx.receive());
    let mapped = match receive.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Some(r)) => r,
        _ => return Err(Error::Device(format!("mapping the {what} readback never completed"))),
    };
    mapped.map_err(|e| Error::Device(format!("mapping the {what} readback failed: {e}")))?;
    let records = {
        let view = buffer
            .slice(..size)
            .get_mapped_range()
            .map_err(|e| Error::Device(format!("reading the {what} readback: {e}")))?;
        bytemuck::pod_collect_to_vec(&view)
    };
    buffer.unmap();
    Ok(records)
}
