//! Single kernels run on their own, so tests can check them against CPU models on random and
//! adversarial inputs. Not part of the stable API.

use wgpu::util::DeviceExt;

use crate::error::Result;
use crate::gpu::scan::Scan;
use crate::gpu::sort::Sorter;
use crate::gpu::{readback, Gpu};

fn upload(gpu: &Gpu, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    let mut contents = bytes.to_vec();
    contents.resize(contents.len().max(16), 0);
    gpu.device().create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: &contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    })
}

fn download(gpu: &Gpu, encoder: wgpu::CommandEncoder, copies: &[(&wgpu::Buffer, u64, u64)]) -> Result<Vec<u8>> {
    let mut encoder = encoder;
    let total: u64 = copies.iter().map(|c| c.2).sum();
    let read = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("satgpu.testing.read"),
        size: total.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut at = 0;
    for &(buf, offset, size) in copies {
        encoder.copy_buffer_to_buffer(buf, offset, &read, at, size);
        at += size;
    }
    let submission = gpu.queue().submit([encoder.finish()]);
    readback::read(gpu, &read, total, submission, "test readback")
}

/// Exclusive prefix sum of `data` on the GPU, with at most `fold` workgroups per dispatch row.
/// Returns the scanned values and the total.
pub fn exclusive_scan(gpu: &Gpu, data: &[u32], fold: u32) -> Result<(Vec<u32>, u32)> {
    let kernels = gpu.kernels()?;
    let buf = upload(gpu, "satgpu.testing.scan", bytemuck::cast_slice(data));
    let scan = Scan::new(gpu.device(), kernels, &buf, data.len() as u64, fold, "satgpu.testing.scan");
    gpu.queue().write_buffer(&scan.meta, 0, bytemuck::bytes_of(&(data.len() as u32)));
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        scan.encode(kernels, &mut pass);
    }
    let (total_buf, total_off) = scan.total();
    let bytes = download(gpu, encoder, &[(&buf, 0, 4 * data.len() as u64), (total_buf, total_off, 4)])?;
    let words: &[u32] = bytemuck::cast_slice(&bytes);
    Ok((words[..data.len()].to_vec(), words[data.len()]))
}

/// Bitonic sort of `(key, value)` pairs on the GPU by key then value. The length must be a
/// power of two.
pub fn sort_pairs(gpu: &Gpu, pairs: &[[u32; 2]], fold: u32) -> Result<Vec<[u32; 2]>> {
    let kernels = gpu.kernels()?;
    let buf = upload(gpu, "satgpu.testing.sort", bytemuck::cast_slice(pairs));
    let sorter = Sorter::new(gpu.device(), kernels, &buf, pairs.len() as u32);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        sorter.encode(kernels, &mut pass, fold);
    }
    let bytes = download(gpu, encoder, &[(&buf, 0, 8 * pairs.len() as u64)])?;
    Ok(bytemuck::cast_slice(&bytes).to_vec())
}
