//! Scenes in a periodic box for the tests of issue 65.

use satgpu::scene::{generate, SceneKind};
use satgpu::{Aabb, Periodic, Polygon};

/// The box of every shape of `scene`.
pub fn scene_box(scene: &[Polygon]) -> Aabb {
    scene.iter().map(Polygon::aabb).reduce(|a, b| a.union(&b)).unwrap()
}

/// The larger side of `b`.
pub fn extent(b: &Aabb) -> f64 {
    (b.max[0] - b.min[0]).max(b.max[1] - b.min[1])
}

/// A scene of `kind` in a box a tenth smaller than its bounds (at least twice its widest body
/// plus the margin, and a little), so that bodies straddle every edge and corner and some lie
/// outside it. (`scales` lies round the origin, its smallest groups there: its box too, so that
/// none is moved 1e30 away, where its f32 anchor would hold nothing of it. `outliers` has its box
/// round its crowd: its strays 1e3 and 1e6 crowds away come round from there, and the one 1e20
/// away, a billionth of that across, is too wide for the box and left out.)
pub fn boxed(kind: SceneKind, n: usize, seed: u64, margin: f64) -> (Vec<Polygon>, Periodic) {
    let mut scene = generate(kind, n, seed);
    let mut b = scene_box(&scene);
    if kind == SceneKind::Scales {
        let r = b.min.iter().chain(&b.max).map(|c| c.abs()).fold(0.0, f64::max);
        b = Aabb { min: [-r, -r], max: [r, r] };
    }
    if kind == SceneKind::Outliers {
        let crowd: Vec<Polygon> =
            scene.iter().filter(|q| q.vertices()[0].iter().all(|c| c.abs() < 1e3)).cloned().collect();
        b = scene_box(&crowd);
        let room = 0.4 * (b.max[0] - b.min[0]).min(b.max[1] - b.min[1]);
        scene.retain(|q| extent(&q.aabb()) < room);
    }
    let widest = scene.iter().map(|q| extent(&q.aabb())).fold(0.0, f64::max);
    let least = 2.0 * (widest + margin) * 1.01;
    let (w, h) = (((b.max[0] - b.min[0]) * 0.9).max(least), ((b.max[1] - b.min[1]) * 0.9).max(least));
    let (x0, y0) = (b.min[0] + 0.05 * (b.max[0] - b.min[0]), b.min[1] + 0.05 * (b.max[1] - b.min[1]));
    (scene, Periodic::new([x0, y0, x0 + w, y0 + h], [true, true]).unwrap())
}
