// Sweep pass of sort-and-sweep: one invocation per sorted position i. Walks forward through the
// bodies sorted by AABB min.x while their min.x is not past this body's max.x, and keeps those whose
// y intervals overlap too (closed intervals: touching boxes are candidates). Each overlapping pair is
// found exactly once, from the one that comes first in sorted order.
//
// Run twice with the same loop: with WRITE = false it stores how many candidates position i has;
// the host then scans those counts into offsets; with WRITE = true it writes position i's pairs at
// its offset. The output order is therefore fixed by the sort, with no atomics, and every write is
// guarded by the capacity: the total is read back and the host grows the buffer and reruns if needed.

override WRITE: bool = false;

// keep in sync with GpuParams in src/gpu/layout.rs
struct Params {
    n_bodies: u32,
    n_padded: u32,
    max_candidates: u32,
    fold_width: u32,      // most workgroups per dispatch dimension; more fold into y
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<vec2<u32>>;   // sorted (sortable min.x, body)
@group(0) @binding(2) var<storage, read> aabbs: array<vec4<f32>>;  // by body
@group(0) @binding(3) var<storage, read_write> counts: array<u32>; // per sorted position: count, then offset
@group(0) @binding(4) var<storage, read_write> candidates: array<vec2<u32>>; // (a, b), a < b

const WG: u32 = 64u;

fn sortable(f: f32) -> u32 {
    let b = bitcast<u32>(select(f, 0.0, f == 0.0));
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n_bodies {
        return;
    }
    let a = keys[i].y;
    let box_a = aabbs[a];
    let end = sortable(box_a.z);
    var found = 0u;
    var out = 0u;
    if WRITE {
        out = counts[i];
    }
    for (var j = i + 1u; j < params.n_bodies; j++) {
        let kj = keys[j];
        if kj.x > end {
            break;
        }
        let box_b = aabbs[kj.y];
        if box_b.y <= box_a.w && box_a.y <= box_b.w {
            if WRITE {
                let slot = out + found;
                if slot < params.max_candidates {
                    candidates[slot] = vec2<u32>(min(a, kj.y), max(a, kj.y));
                }
            }
            found++;
        }
    }
    if !WRITE {
        counts[i] = found;
    }
}
