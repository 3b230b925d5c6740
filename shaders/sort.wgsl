// Bitonic sort step: one compare-exchange per invocation over (key, body) pairs, ordered by key
// then body, so the order is total and the result deterministic. The host dispatches one step
// per (k, j) with k = 2, 4, .., n_padded and j = k/2, .., 1, selecting the step's (k, j) through a
// dynamic uniform offset. n_padded is a power of two; padding entries are (~0, ~0).

// keep in sync with GpuSortStep in src/gpu/layout.rs
struct Step {
    k: u32,
    j: u32,
    half: u32, // n_padded / 2, the number of compare-exchanges
    pad: u32,
}

@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read_write> keys: array<vec2<u32>>;

const WG: u32 = 256u;

fn less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if t >= step.half {
        return;
    }
    let i = 2u * step.j * (t / step.j) + (t % step.j);
    let l = i + step.j;
    let ascending = (i & step.k) == 0u;
    let a = keys[i];
    let b = keys[l];
    if less(b, a) == ascending {
        keys[i] = b;
        keys[l] = a;
    }
}
