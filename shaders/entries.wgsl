// Strip entries: one invocation per body. Each body gets one entry per strip its AABB spans.
// With WRITE = false it stores how many; the host's scan turns those into offsets; with
// WRITE = true it writes the entries (key, body) at its offset, guarded by the capacity. The key
// is the strip index in the high bits and the AABB min.x quantised below it, so sorting the keys
// orders entries by strip, then by min.x.

override WRITE: bool = false;

// keep in sync with GpuParams in src/gpu/layout.rs
struct Params {
    n_bodies: u32,
    entry_capacity: u32,
    candidate_capacity: u32,
    fold_width: u32,
    strip_height: f32,
    candidate_base: u32, // first candidate of this batch (0 unless a frame runs in batches)
    pad1: u32,
    pad2: u32,
}

// keep in sync with src/gpu/control.rs
const GRID: u32 = 16u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> aabbs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>; // per body: count, then offset
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;

const WG: u32 = 64u;

// keep in sync with strip() and key_base() in sweep.wgsl
fn strip(y: f32) -> u32 {
    let s = floor((y - bitcast<f32>(control[GRID])) * bitcast<f32>(control[GRID + 1u]));
    return min(u32(max(s, 0.0)), control[GRID + 2u] - 1u);
}

fn key(s: u32, x: f32) -> u32 {
    let x_bits = control[GRID + 3u];
    let kept = control[GRID + 6u];
    let max_q = f32((1u << kept) - 1u);
    let q = u32(clamp(floor((x - bitcast<f32>(control[GRID + 4u])) * bitcast<f32>(control[GRID + 5u])), 0.0, max_q));
    return (s << x_bits) | (q << (x_bits - kept));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n_bodies {
        return;
    }
    let box = aabbs[i];
    let s0 = strip(box.y);
    let s1 = strip(box.w);
    if !WRITE {
        counts[i] = s1 - s0 + 1u;
        return;
    }
    let start = counts[i];
    for (var s = s0; s <= s1; s++) {
        let slot = start + s - s0;
        if slot < params.entry_capacity {
            keys[slot] = key(s, box.x);
            values[slot] = i;
        }
    }
}
