//! Stage 9 (optional, [`ContactOrder::Gpu`](crate::gpu::ContactOrder)): the colliding pairs ordered by
//! (a, b) on the GPU, so that [`World::contacts_buffer`](crate::gpu::World::contacts_buffer) holds
//! them in the same order as the host ordering (`order.rs`) gives, and a readback is one copy.
//!
//! In place of the compaction's write, `order_keys.wgsl` writes each colliding pair's sort key and
//! candidate index at its offset; a stable radix sort (`radix.rs`) orders them; `order_gather.wgsl`
//! writes the contacts in that order. When both indices fit 32 bits together (up to 65,536
//! bodies) one sort by `(a << shift) | b` does it; past that a sort by `b`, then a stable one by
//! `a`. Costs 16 bytes per candidate (keys, values and the sort's scratch) and, per frame, one
//! radix pass per 4 key bits: 4 to 12 of them.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::buffers::{init, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::{Kernel, Kernels};
use crate::gpu::kernels::shared::ORDER_SHIFT;
use crate::gpu::primitives::radix::RadixSort;
use crate::gpu::resources::PairBuffers;

/// The shift of `a` in a one-sort key (32: two sorts, by `b` then by `a`) and the bits each sort
/// orders, for a world of `bodies` bodies.
pub(crate) fn key_layout(bodies: usize) -> (u32, u32) {
    let index_bits = (usize::BITS - bodies.saturating_sub(1).leading_zeros()).max(1);
    let round = |bits: u32| bits.next_multiple_of(8);
    if 2 * index_bits <= 32 {
        (index_bits, round(2 * index_bits))
    } else {
        (32, round(index_bits))
    }
}

pub(crate) struct PairOrder {
    /// The frame's control buffer, whose per-pair dispatch arguments run the keys pass. (The
    /// sort's own control buffer, with its length, its dispatch arguments and the key layout at
    /// [`ORDER_SHIFT`], lives in the bind groups and `radix`.)
    frame_control: wgpu::Buffer,
    radix: RadixSort,
    two_sorts: bool,
    keys_group: wgpu::BindGroup,
    gather_group: wgpu::BindGroup,
    /// The compaction's dispatch arguments over the colliding pairs.
    args: wgpu::Buffer,
    _buffers: [wgpu::Buffer; 2],
}

impl PairOrder {
    /// Orders the colliding pairs of `pairs` (after the compaction's scan) for a world of
    /// `bodies` bodies, whose frame runs under `frame_control`.
    pub fn new(gpu: &Gpu, frame_control: &wgpu::Buffer, pairs: &PairBuffers, bodies: usize, fold: u32) -> PairOrder {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let (shift, key_bits) = key_layout(bodies);
        let mut words = control::initial(fold);
        words[ORDER_SHIFT as usize] = shift;
        use wgpu::BufferUsages as U;
        let order_control =
            init(device, "satgpu.order.control", bytemuck::cast_slice(&words), U::STORAGE | U::INDIRECT);
        let n = u64::from(pairs.capacity);
        let keys = storage(device, "satgpu.order.keys", 4 * n, U::empty());
        let values = storage(device, "satgpu.order.values", 4 * n, U::empty());
        let radix = RadixSort::new(device, kernels, &keys, &values, n, key_bits, &order_control);
        // The compaction's scan leaves each candidate's offset in place of its flag.
        let (results, offsets, contacts) = (&pairs.results, &pairs.flags, &pairs.contacts);
        let keys_group = kernels.order_keys.bind(
            device,
            "satgpu.order.keys",
            &[
                frame_control.as_entire_binding(),
                pairs.candidates.as_entire_binding(),
                results.as_entire_binding(),
                offsets.as_entire_binding(),
                order_control.as_entire_binding(),
                keys.as_entire_binding(),
                values.as_entire_binding(),
                pairs.args.as_entire_binding(),
            ],
        );
        let gather_group = kernels.order[0].bind(
            device,
            "satgpu.order.gather",
            &[
                pairs.candidates.as_entire_binding(),
                results.as_entire_binding(),
                order_control.as_entire_binding(),
                keys.as_entire_binding(),
                values.as_entire_binding(),
                contacts.as_entire_binding(),
            ],
        );
        PairOrder {
            frame_control: frame_control.clone(),
            radix,
            two_sorts: shift == 32,
            keys_group,
            gather_group,
            args: pairs.args.clone(),
            _buffers: [keys, values],
        }
    }

    /// The keys, in place of the compaction's write (after its scan).
    pub fn encode_keys(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(k.order_keys.pipeline());
        pass.set_bind_group(0, &self.keys_group, &[]);
        pass.dispatch_workgroups_indirect(&self.frame_control, 4 * control::PAIR_ARGS);
    }

    /// The sort or sorts, then the contacts written in order.
    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.radix.encode(k, pass);
        if self.two_sorts {
            self.encode_phase(&k.order[0], pass);
            self.radix.encode(k, pass);
        }
        self.encode_phase(&k.order[1], pass);
    }

    fn encode_phase(&self, kernel: &Kernel, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(kernel.pipeline());
        pass.set_bind_group(0, &self.gather_group, &[]);
        pass.dispatch_workgroups_indirect(&self.args, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hold_both_indices_or_sort_twice() {
        assert_eq!(key_layout(0), (1, 8));
        assert_eq!(key_layout(2), (1, 8));
        assert_eq!(key_layout(16), (4, 8));
        assert_eq!(key_layout(17), (5, 16));
        assert_eq!(key_layout(4096), (12, 24));
        assert_eq!(key_layout(65_536), (16, 32));
        assert_eq!(key_layout(65_537), (32, 24));
        assert_eq!(key_layout(1 << 24), (32, 24));
        assert_eq!(key_layout((1 << 24) + 1), (32, 32));
        assert_eq!(key_layout(1 << 31), (32, 32));
    }
}
