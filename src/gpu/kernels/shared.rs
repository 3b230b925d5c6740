//! The constants that Rust and WGSL share and that more than one file needs, at the bottom of
//! the GPU module: the composer (`shaders.rs`) writes them into the generated `constants`
//! module, and the stages and the host packing read them here, so no lower file reaches up into
//! a stage for them.

/// Most vertices of a polygon in the narrow phase's small path (and the transform's per-vertex
/// box); a larger shape carries its inner circle in one more record (`pack.rs`).
pub(crate) const SMALL: u32 = 8;
/// Cost bins of the narrow phase's large pairs.
pub(crate) const COST_BINS: u32 = 8;
/// Word of the narrow phase's scratch buffer where the list of large pairs starts, after the bins.
pub(crate) const LARGE_LIST: u32 = 32;
/// Word of the ordering's control buffer holding the key's shift of `a`, or 32 for two sorts.
pub(crate) const ORDER_SHIFT: u64 = 0;
/// Bits of a part's index within its compound body in the deepest part pair's key (`deepest.wgsl`):
/// room for [`MAX_PARTS`](crate::geometry::MAX_PARTS).
pub(crate) const PART_BITS: u32 = 14;
const _: () = assert!(crate::geometry::MAX_PARTS <= 1 << PART_BITS);
/// Bits of a strip entry key: 6 radix passes.
pub(crate) const KEY_BITS: u32 = 24;
/// Most strips of the strip grid (`control_grid.wgsl`): 4096 leaves 12 bits of a key for x.
pub(crate) const MAX_STRIPS: u32 = 4096;

/// Invocations per workgroup of the per-body, per-entry and per-pair kernels (WGSL: `WG`).
pub(crate) const WG: u32 = 64;

/// Default strip height in typical AABB heights of the bodies' shapes (a mean that leaves out
/// the few largest, see `pack::typical_height`). Taller strips mean fewer
/// entries to sort but longer sweeps; on lavapipe at 100,000 polygons of every scene kind, frames
/// were fastest between 4 and 6 (1.3 entries per body instead of 2 at 1), see docs/benchmarks-history.md.
pub const STRIP_HEIGHT_FACTOR: f64 = 4.0;
// The shaders get it as a whole number (control_grid.wgsl's strips where the grid is mapped).
const _: () = assert!(STRIP_HEIGHT_FACTOR == STRIP_HEIGHT_FACTOR as u64 as f64);
