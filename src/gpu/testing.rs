//! Single kernels run on their own, so tests can check them against CPU models on random and
//! adversarial inputs. Not part of the stable API.

use wgpu::util::DeviceExt;

use crate::error::Result;
use crate::gpu::radix::RadixSort;
use crate::gpu::scan::Scan;
use crate::gpu::{control, readback, Gpu};

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
    let control = control::buffer(gpu.device(), "satgpu.testing.control", fold);
    let region = control::CAND_SCAN;
    let scan = Scan::new(gpu.device(), kernels, &buf, data.len() as u64, &control, region, "satgpu.testing.scan");
    gpu.queue().write_buffer(&control, 4 * region, bytemuck::bytes_of(&(data.len() as u32)));
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        scan.encode(kernels, &mut pass);
    }
    let (total_buf, total_off) = scan.total();
    let bytes = download(gpu, encoder, &[(&buf, 0, 4 * data.len() as u64), (total_buf, total_off, 4)])?;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
    Ok((words[..data.len()].to_vec(), words[data.len()]))
}

/// Stable radix sort of `(key, value)` pairs on the GPU by the low `key_bits` bits of the key (8,
/// 16, 24 or 32), with at most `fold` workgroups per dispatch row. Equal keys keep their order.
pub fn radix_sort(gpu: &Gpu, pairs: &[(u32, u32)], key_bits: u32, fold: u32) -> Result<Vec<(u32, u32)>> {
    let kernels = gpu.kernels()?;
    let keys: Vec<u32> = pairs.iter().map(|p| p.0).collect();
    let values: Vec<u32> = pairs.iter().map(|p| p.1).collect();
    let keys_buf = upload(gpu, "satgpu.testing.keys", bytemuck::cast_slice(&keys));
    let values_buf = upload(gpu, "satgpu.testing.values", bytemuck::cast_slice(&values));
    let control = control::buffer(gpu.device(), "satgpu.testing.control", fold);
    let sort = RadixSort::new(gpu.device(), kernels, &keys_buf, &values_buf, pairs.len() as u64, key_bits, &control);
    gpu.queue().write_buffer(&control, 4 * control::RADIX, bytemuck::bytes_of(&(pairs.len() as u32)));
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        sort.encode(kernels, &mut pass);
    }
    let n = 4 * pairs.len() as u64;
    let bytes = download(gpu, encoder, &[(&keys_buf, 0, n), (&values_buf, 0, n)])?;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
    let (k, v) = words.split_at(pairs.len());
    Ok(k.iter().copied().zip(v.iter().copied()).collect())
}

/// The control buffer's word offsets as the Rust side lays them out, by the names the shaders
/// use for them, so a test can check every shader's copy.
pub const CONTROL_LAYOUT: [(&str, u64); 9] = [
    ("GRID", control::GRID),
    ("PAIRS", control::PAIRS),
    ("PAIR_ARGS", control::PAIR_ARGS),
    ("ENTRY_ARGS", control::ENTRY_ARGS),
    ("ENTRIES", control::ENTRIES),
    ("RADIX", control::RADIX),
    ("HIST_SCAN", control::HIST_SCAN),
    ("CAND_SCAN", control::CAND_SCAN),
    ("PAIR_SCAN", control::PAIR_SCAN),
];
