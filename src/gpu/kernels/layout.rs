//! `#[repr(C)]` twins of the structs the shaders read and write. Each WGSL struct carries a
//! comment naming its twin here; the size assertions catch a field added on one side only.

use bytemuck::{Pod, Zeroable};

/// A body's pose as the GPU reads it (shaders: a `vec4<f32>` of `transforms`): translation and rotation as its
/// cosine and sine, f32. The form in which [`World::set_transforms`](crate::gpu::World::set_transforms)
/// uploads with a copy and checks alone, and the records of
/// [`World::transforms_buffer`](crate::gpu::World::transforms_buffer).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuTransform {
    /// Translation along x.
    pub x: f32,
    /// Translation along y.
    pub y: f32,
    /// Cosine of the rotation.
    pub cos: f32,
    /// Sine of the rotation.
    pub sin: f32,
}

impl GpuTransform {
    /// A rotation by `angle` radians (counter-clockwise) and a translation, each value rounded
    /// once to f32 from f64, as [`World::set_transforms`](crate::gpu::World::set_transforms)
    /// uploads a [`Transform`](crate::Transform).
    pub fn new(x: f64, y: f64, angle: f64) -> GpuTransform {
        let (sin, cos) = angle.sin_cos();
        GpuTransform { x: x as f32, y: y as f32, cos: cos as f32, sin: sin as f32 }
    }
}

/// A shape instance: one shape of one body as the GPU places it (a body of several shapes has
/// one per shape), and where its shape lives (shaders: `Instance`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuInstance {
    /// First vertex of the instance's shape in the shape buffer.
    pub shape_start: u32,
    /// Number of vertices.
    pub count: u32,
    /// Largest distance of a vertex from the instance's anchor, rounded up: the narrow phase picks
    /// each pair's power-of-two scale from it.
    pub radius: f32,
    /// The shape's own radius around its core (0 for a plain polygon; circles, capsules and
    /// rounded polygons are every point within it of the core).
    pub round: f32,
}

/// The old name of [`GpuInstance`].
#[deprecated(note = "renamed GpuInstance: one shape of one body on the GPU")]
pub type GpuBody = GpuInstance;

/// What a body needs to know of its core's local vertices, gathered one vertex at a time (so a
/// packing loop reads each vertex once).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalBounds {
    lo: [f32; 2],
    hi: [f32; 2],
    /// Largest squared distance from the anchor, in f64: squares of f32 values cannot overflow
    /// it, so no hypot (several times slower, for every vertex of every frame's polygons).
    r2: f64,
}

impl Default for LocalBounds {
    fn default() -> Self {
        LocalBounds { lo: [f32::INFINITY; 2], hi: [f32::NEG_INFINITY; 2], r2: 0.0 }
    }
}

impl LocalBounds {
    pub fn of(local: &[[f32; 4]]) -> LocalBounds {
        let mut bounds = LocalBounds::default();
        for v in local {
            bounds.add(v);
        }
        bounds
    }

    /// Adds a vertex (finite, as every packed one is: plain comparisons, not `f32::min`'s NaN
    /// handling, which doubled the packing's time per vertex).
    #[inline]
    pub fn add(&mut self, v: &[f32; 4]) {
        let least = |a: f32, b: f32| if b < a { b } else { a };
        let most = |a: f32, b: f32| if b > a { b } else { a };
        self.lo = [least(self.lo[0], v[0]), least(self.lo[1], v[1])];
        self.hi = [most(self.hi[0], v[0]), most(self.hi[1], v[1])];
        let r2 = f64::from(v[0]) * f64::from(v[0]) + f64::from(v[1]) * f64::from(v[1]);
        self.r2 = if r2 > self.r2 { r2 } else { self.r2 };
    }

    /// The body of these vertices: `count` of them from `shape_start`, `round` around the core.
    pub fn body(&self, shape_start: u32, count: u32, round: f64) -> GpuInstance {
        GpuInstance { shape_start, count, radius: self.radius(), round: round as f32 }
    }

    /// The largest distance of a vertex from the anchor, rounded up (`GpuInstance::radius`).
    pub fn radius(&self) -> f32 {
        (self.r2.sqrt() * (1.0 + 1e-6)) as f32
    }

    /// The core's box in local coordinates, (min.xy, max.xy): the transform pass boxes a body of
    /// many vertices from it instead of rotating every vertex.
    pub fn local_box(&self) -> [f32; 4] {
        [self.lo[0], self.lo[1], self.hi[0], self.hi[1]]
    }
}

/// Per-world constants (shaders: `Params`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct GpuParams {
    /// Number of bodies.
    pub n_bodies: u32,
    /// Capacity of the strip entry buffers.
    pub entry_capacity: u32,
    /// Capacity of the candidate pair buffers.
    pub candidate_capacity: u32,
    /// Most workgroups per dispatch dimension; larger dispatches fold into y.
    pub fold_width: u32,
    /// Height of a broad-phase strip, in world units.
    pub strip_height: f32,
    /// First candidate pair of this batch: 0, unless a frame has more candidates than one
    /// binding holds and runs in batches.
    pub candidate_base: u32,
    /// The margin of [`WorldOptions::margin`](crate::gpu::WorldOptions::margin), rounded up to f32.
    pub margin: f32,
    /// 2: the bound of the loop that tells whether an invocation's loops were cut short
    /// (shaders/shared/loops.wgsl), from a uniform so that no compiler unrolls it.
    pub two: u32,
    /// Which window of each sweep walk this dispatch runs (0: the first, from the entry on;
    /// see `sweep.wgsl`).
    pub window: u32,
    /// Steps of a sweep walk per window: `u32::MAX` (one window) but on Mesa's software
    /// adapters, whose loops stop at 65,535 iterations per invocation.
    pub window_steps: u32,
    /// 1 with [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous): the transform
    /// pass sweeps each body's box from its start pose.
    pub continuous: u32,
    /// How many worlds the bodies are in ([`World::set_worlds`](crate::gpu::World::set_worlds)):
    /// each world's bodies have strips of their own, and pairs never cross worlds.
    pub worlds: u32,
    /// The periodic box's wrapping axes ([`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)):
    /// bit 0 x, bit 1 y; 0 without a box.
    pub wrap: u32,
    /// The box's left edge, rounded to f32.
    pub box_x0: f32,
    /// Its bottom edge.
    pub box_y0: f32,
    /// Its right edge.
    pub box_x1: f32,
    /// Its top edge.
    pub box_y1: f32,
    /// Its width, rounded to f32.
    pub period_x: f32,
    /// Its height, rounded to f32.
    pub period_y: f32,
    /// The f64 width less `period_x`, rounded to f32.
    pub period_x_lo: f32,
    /// The f64 height less `period_y`, rounded to f32.
    pub period_y_lo: f32,
    /// 0: what `keep` (shaders/shared/exact.wgsl) XORs with, from a uniform so that no compiler
    /// sees through it.
    pub zero: u32,
    /// Padding to a multiple of 16 bytes.
    pub pad1: u32,
    /// Padding to a multiple of 16 bytes.
    pub pad2: u32,
}

impl GpuParams {
    /// These params with the periodic box `periodic` (none: no box).
    pub fn with_periodic(self, periodic: Option<&crate::geometry::Periodic>) -> GpuParams {
        let Some(p) = periodic else { return self };
        let ([x0, y0, x1, y1], [w, h], [wx, wy]) = (p.bounds(), p.size(), p.wraps());
        let (period_x, period_y) = (w as f32, h as f32);
        GpuParams {
            wrap: u32::from(wx) | u32::from(wy) << 1,
            box_x0: x0 as f32,
            box_y0: y0 as f32,
            box_x1: x1 as f32,
            box_y1: y1 as f32,
            period_x,
            period_y,
            period_x_lo: (w - f64::from(period_x)) as f32,
            period_y_lo: (h - f64::from(period_y)) as f32,
            ..self
        }
    }
}

/// A colliding pair as the GPU leaves it in [`World::contacts_buffer`](crate::gpu::World::contacts_buffer)
/// (compact.wgsl: `Contact`): `a < b`, unit normal from a to b, depth >= 0 (negative, minus the
/// distance, for a pair apart within [`WorldOptions::margin`](crate::gpu::WorldOptions::margin)).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuContact {
    /// Lower body index.
    pub a: u32,
    /// Higher body index.
    pub b: u32,
    /// Normal, x component.
    pub normal_x: f32,
    /// Normal, y component.
    pub normal_y: f32,
    /// Penetration depth.
    pub depth: f32,
    /// 0; in a periodic box ([`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)), which
    /// image of b the pair was judged with: 2 bits per axis (x in bits 0-1, y in 2-3), 1 a box up
    /// (+x, +y), 2 a box down (shaders/shared/candidate.wgsl).
    pub pad: u32,
}

/// The manifold and containment flags of a colliding pair, at the same index as its
/// [`GpuContact`] in [`World::manifolds_buffer`](crate::gpu::World::manifolds_buffer) (manifold.wgsl:
/// `Manifold`). Positions are in world coordinates.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuManifold {
    /// Bit 0: `a_in_b`; bit 1: `b_in_a`; bits 2 and up: the number of points (1 or 2).
    pub flags: u32,
    /// First point, x.
    pub p1_x: f32,
    /// First point, y.
    pub p1_y: f32,
    /// Depth at the first point.
    pub p1_depth: f32,
    /// Second point, x (0 when there is one point).
    pub p2_x: f32,
    /// Second point, y.
    pub p2_y: f32,
    /// Depth at the second point.
    pub p2_depth: f32,
    /// Padding.
    pub pad: u32,
}

impl GpuManifold {
    /// As the library reports it.
    pub fn to_manifold(&self) -> crate::geometry::Manifold {
        use crate::geometry::{ContactPoint, Manifold};
        // `+ 0.0` turns -0.0 into 0.0, as for the contacts.
        let point = |x: f32, y: f32, depth: f32| ContactPoint {
            point: [f64::from(x) + 0.0, f64::from(y) + 0.0],
            depth: f64::from(depth) + 0.0,
        };
        let points = [point(self.p1_x, self.p1_y, self.p1_depth), point(self.p2_x, self.p2_y, self.p2_depth)];
        let len = ((self.flags >> 2) as usize).clamp(1, 2);
        Manifold::new(self.flags & 1 != 0, self.flags & 2 != 0, &points[..len])
    }
}

const _: () = assert!(std::mem::size_of::<GpuInstance>() == 16);
const _: () = assert!(std::mem::size_of::<GpuTransform>() == 16);
const _: () = assert!(std::mem::size_of::<GpuParams>() == 96);
const _: () = assert!(std::mem::size_of::<GpuContact>() == 24);
const _: () = assert!(std::mem::size_of::<GpuManifold>() == 32);
