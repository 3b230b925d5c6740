// Scan setup: one invocation, for a scan whose length no control kernel plans (shared/scan_plan.wgsl).
// The element count n is in word 0 of the region (written by the host, or by an earlier pass on
// the GPU).

#import constants
#import scan_plan

@group(0) @binding(0) var<storage, read_write> control: array<u32>; // the scan's region

@compute @workgroup_size(1)
fn main() {
    plan_scan(0u);
}
