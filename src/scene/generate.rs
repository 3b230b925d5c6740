//! Deterministic scene generators: the built-in scene kinds of `satgpu gen`, `run` and `bench`.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use crate::geometry::{Body, Polygon};

/// The built-in scene families, each stressing a different part of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// Uniformly scattered, similar sized 3- to 8-gons at about 0.5 candidate pairs per
    /// polygon: the baseline throughput case, where most candidates are rejected cheaply.
    Crowd,
    /// As [`SceneKind::Crowd`] but packed to about 2 candidate pairs per polygon: stresses the
    /// narrow phase and the size of the candidate and contact buffers.
    Dense,
    /// Mostly small polygons with a heavy tail of sizes up to 400 times larger, about 1
    /// candidate per polygon on average: a few huge boxes overlap hundreds of others, which
    /// stresses load balance and any broad phase that assumes similar sizes.
    Mixed,
    /// Gaussian clusters (one per thousand polygons) separated by empty space, several
    /// candidates per polygon inside a cluster: stresses uneven spatial distribution (skewed
    /// sort keys, hot cells).
    Clustered,
    /// Unit squares and right triangles on an integer grid that share edges and corners
    /// exactly: stresses the closed-set convention (touching means colliding, depth 0) and
    /// float robustness at exact contact.
    Grid,
    /// Crowd sizes and density, but polygons of 3 to 1024 vertices (most under 64; regular
    /// polygons squashed along a random direction): stresses the narrow phase on large polygons
    /// and every mix of vertex counts in one pair.
    Round,
    /// A pile-up: crowd polygons packed 40 times denser, about 20 candidate pairs per polygon:
    /// stresses the candidate and contact buffers (batching) and the narrow phase.
    Pile,
    /// Groups of eight overlapping crowd polygons, each group scaled by a power of two from
    /// 2^-96 (about 1e-29) to 2^99 (about 6e29) and placed a thousand of its own sizes from the
    /// origin; coordinates are exact f32 values. Stresses scale invariance over the f32 range.
    Scales,
    /// A crowd with three stray bodies at 1e3, 1e6 and 1e20 times the crowd's width from it: a
    /// parked agent, a spawn queue, a projectile that flew off. The first two are crowd sized;
    /// the farthest is a billionth of its distance across (about 1e14 at a million bodies), so
    /// that it is well formed in f64. Stresses a broad phase laid out from the scene's bounds
    /// and sizes.
    Outliers,
    /// Crowd agents: circles of radius 0.2 to 0.4 at about 0.5 candidate pairs per body, as in
    /// a crowd: the shape crowd simulations use.
    Agents,
    /// A mix of every shape at crowd density: a quarter each of circles, capsules, rounded
    /// polygons and polygons, sizes 0.5 to 2 times a crowd polygon's, one in eight polygons or
    /// rounded polygons with 9 to 64 vertices: stresses every pairing of the narrow phase.
    Shapes,
    /// A crowd in rooms: agents (as [`SceneKind::Agents`]) among square rooms 12 wide, each
    /// walled by one concave body (a ring 0.4 thick, cut open by a doorway 2 wide on a random
    /// side), with a plus-shaped pillar at each corridor crossing: bodies of several parts.
    /// A compound kind ([`SceneKind::COMPOUND`]): its bodies come from [`generate_bodies`].
    Rooms,
}

impl SceneKind {
    /// Every kind, in a fixed order, for loops in tests and benchmarks.
    pub const ALL: [SceneKind; 11] = [
        SceneKind::Crowd,
        SceneKind::Dense,
        SceneKind::Mixed,
        SceneKind::Clustered,
        SceneKind::Grid,
        SceneKind::Round,
        SceneKind::Pile,
        SceneKind::Scales,
        SceneKind::Outliers,
        SceneKind::Agents,
        SceneKind::Shapes,
    ];

    /// The kinds whose bodies have several parts ([`generate_bodies`]), not in [`SceneKind::ALL`].
    pub const COMPOUND: [SceneKind; 1] = [SceneKind::Rooms];

    /// Whether the kind's bodies have several parts (see [`SceneKind::COMPOUND`]).
    pub fn is_compound(self) -> bool {
        SceneKind::COMPOUND.contains(&self)
    }

    /// The lower-case name used on the command line and in file names.
    /// The kind's name, as `FromStr` reads it and the CLI lists it.
    pub fn name(self) -> &'static str {
        match self {
            SceneKind::Crowd => "crowd",
            SceneKind::Dense => "dense",
            SceneKind::Mixed => "mixed",
            SceneKind::Clustered => "clustered",
            SceneKind::Grid => "grid",
            SceneKind::Round => "round",
            SceneKind::Pile => "pile",
            SceneKind::Scales => "scales",
            SceneKind::Outliers => "outliers",
            SceneKind::Agents => "agents",
            SceneKind::Shapes => "shapes",
            SceneKind::Rooms => "rooms",
        }
    }
}

impl fmt::Display for SceneKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SceneKind {
    type Err = String;

    /// Parses a lower-case kind name; the error lists the valid names so a CLI can show it as
    /// is.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let kinds = || SceneKind::ALL.into_iter().chain(SceneKind::COMPOUND);
        kinds().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = kinds().map(|k| k.name()).collect();
            format!("unknown scene kind {s:?}; expected one of: {}", names.join(", "))
        })
    }
}

/// `(cos, sin)` of `2*pi/k` for `k = 3..=8`, as literals so that generated scenes do not
/// depend on the platform's `sin`/`cos` (which may differ in the last bit between libms).
const TURNS: [[f64; 2]; 6] = [
    [-0.5, 0.8660254037844386],
    [0.0, 1.0],
    [0.30901699437494745, 0.9510565162951535],
    [0.5, 0.8660254037844386],
    [0.6234898018587336, 0.7818314824680298],
    [std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2],
];

/// Rounds a generated coordinate to a multiple of 1e-6.
///
/// Values with at most 15 significant digits are parsed back exactly even by serde_json's
/// default (not correctly rounded) float parser, so generated scenes round-trip through files
/// bit for bit; it also absorbs any last-bit difference in floating-point evaluation.
fn quantise(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A random unit vector, by rejection from the unit disk: only `sqrt`, which IEEE 754 rounds
/// correctly, so the result is identical on every platform.
fn random_direction(rng: &mut ChaCha8Rng) -> [f64; 2] {
    loop {
        let x = rng.random::<f64>() * 2.0 - 1.0;
        let y = rng.random::<f64>() * 2.0 - 1.0;
        let r2 = x * x + y * y;
        if r2 > 0.01 && r2 <= 1.0 {
            let r = r2.sqrt();
            return [x / r, y / r];
        }
    }
}

/// A roughly regular 3- to 8-gon of about `radius` around `center`, randomly rotated, with
/// each vertex's radius jittered by up to 5% (small enough to keep it clearly convex).
fn regular_ish(rng: &mut ChaCha8Rng, center: [f64; 2], radius: f64) -> Polygon {
    loop {
        let k = rng.random_range(3u32..=8) as usize;
        let turn = TURNS[k - 3];
        let mut dir = random_direction(rng);
        let mut vertices = Vec::with_capacity(k);
        for _ in 0..k {
            let r = radius * (0.95 + 0.1 * rng.random::<f64>());
            vertices.push([quantise(center[0] + r * dir[0]), quantise(center[1] + r * dir[1])]);
            dir = [dir[0] * turn[0] - dir[1] * turn[1], dir[0] * turn[1] + dir[1] * turn[0]];
        }
        // Rounding cannot realistically break a polygon this far from degenerate, but a
        // generator must never emit an invalid one, so redraw rather than assume.
        if let Ok(p) = Polygon::new(vertices) {
            return p;
        }
    }
}

/// `(cos, sin)` of `x` (|x| <= pi) from their Taylor series: only additions and
/// multiplications, which IEEE 754 rounds the same everywhere, so generated scenes do not depend
/// on the platform's libm.
fn cos_sin(x: f64) -> [f64; 2] {
    let (mut c, mut s) = (0.0, 0.0);
    let mut term = 1.0; // x^k / k!
    for k in 0..40 {
        match k % 4 {
            0 => c += term,
            1 => s += term,
            2 => c -= term,
            _ => s -= term,
        }
        term *= x / f64::from(k + 1);
    }
    [c, s]
}

/// A regular `k`-gon of radius `radius` around `center`, rotated at random and squashed by a
/// factor between 0.5 and 1 along a random direction (an affine map keeps it convex).
/// `round` maps each coordinate to what the scene stores.
fn squashed_regular(
    rng: &mut ChaCha8Rng,
    k: usize,
    center: [f64; 2],
    radius: f64,
    round: impl Fn(f64) -> f64,
) -> Option<Polygon> {
    let turn = cos_sin(std::f64::consts::TAU / k as f64);
    let mut dir = random_direction(rng);
    let squash = random_direction(rng);
    let aspect = 0.5 + 0.5 * rng.random::<f64>();
    let mut vertices = Vec::with_capacity(k);
    for _ in 0..k {
        let along = (aspect - 1.0) * (dir[0] * squash[0] + dir[1] * squash[1]);
        let v = [dir[0] + along * squash[0], dir[1] + along * squash[1]];
        vertices.push([round(center[0] + radius * v[0]), round(center[1] + radius * v[1])]);
        dir = [dir[0] * turn[0] - dir[1] * turn[1], dir[0] * turn[1] + dir[1] * turn[0]];
    }
    Polygon::new(vertices).ok()
}

/// World area per polygon for [`SceneKind::Crowd`], tuned for about 0.5 candidates per polygon.
const CROWD_AREA: f64 = 14.0;
/// World area per polygon for [`SceneKind::Dense`], tuned for about 2 candidates per polygon.
const DENSE_AREA: f64 = 3.5;
/// Radius of the smallest [`SceneKind::Mixed`] polygons.
const MIXED_R0: f64 = 0.25;
/// World area per polygon for [`SceneKind::Mixed`], tuned for about 1 candidate per polygon.
const MIXED_AREA: f64 = 1100.0;
/// Polygons per Gaussian cluster in [`SceneKind::Clustered`].
const CLUSTER_SIZE: usize = 1000;
/// Variance of a cluster per polygon in it: sets the density inside clusters.
const CLUSTER_VARIANCE_PER_POLYGON: f64 = 0.15;
/// World area per polygon for [`SceneKind::Clustered`]: several times the clusters' own area,
/// so that there is empty space between them.
const CLUSTERED_AREA: f64 = 40.0;
/// World area per polygon for [`SceneKind::Pile`]: 40 times denser than a crowd.
const PILE_AREA: f64 = CROWD_AREA / 40.0;
/// World area per body for [`SceneKind::Agents`]: a crowd's area scaled by the squared ratio of
/// the radii (0.3 against 1), for about as many candidates per body.
const AGENTS_AREA: f64 = CROWD_AREA * 0.09;
/// Distances of the stray bodies of [`SceneKind::Outliers`], in crowd widths.
const OUTLIER_DISTANCES: [f64; 3] = [1e3, 1e6, 1e20];
/// Polygons per group in [`SceneKind::Scales`].
const SCALES_GROUP: usize = 8;
/// Fraction of occupied cells in [`SceneKind::Grid`].
const GRID_FILL: f64 = 0.75;

/// Generates `n` valid polygons of the given kind, deterministically for `(kind, n, seed)`.
///
/// The world grows with `n` (its area is proportional to `n`), so the number of candidate
/// pairs per polygon stays roughly constant from ten thousand to millions of polygons and
/// benchmarks at different sizes measure the same workload per polygon.
///
/// A compound kind ([`SceneKind::Rooms`]) gives the parts of its bodies one by one, more than
/// `n` of them; [`generate_bodies`] gives the bodies.
pub fn generate(kind: SceneKind, n: usize, seed: u64) -> Vec<Polygon> {
    if kind.is_compound() {
        return generate_bodies(kind, n, seed).into_iter().flat_map(Body::into_shapes).collect();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let uniform = |rng: &mut ChaCha8Rng, side: f64| [rng.random::<f64>() * side, rng.random::<f64>() * side];
    let jittered = |rng: &mut ChaCha8Rng| 0.8 + 0.4 * rng.random::<f64>();
    match kind {
        SceneKind::Crowd | SceneKind::Dense | SceneKind::Pile | SceneKind::Outliers => {
            let area = match kind {
                SceneKind::Dense => DENSE_AREA,
                SceneKind::Pile => PILE_AREA,
                _ => CROWD_AREA,
            };
            let strays = if kind == SceneKind::Outliers { OUTLIER_DISTANCES.len().min(n) } else { 0 };
            let side = ((n - strays) as f64 * area).sqrt();
            let mut out: Vec<Polygon> = (0..n - strays)
                .map(|_| {
                    let c = uniform(&mut rng, side);
                    let r = jittered(&mut rng);
                    regular_ish(&mut rng, c, r)
                })
                .collect();
            for &f in &OUTLIER_DISTANCES[..strays] {
                let d = side.max(1.0) * f;
                out.push(regular_ish(&mut rng, [d, d], (d * 1e-9).max(1.0)));
            }
            out
        }
        SceneKind::Mixed => {
            let side = (n as f64 * MIXED_AREA).sqrt();
            (0..n)
                .map(|_| {
                    let c = uniform(&mut rng, side);
                    // Heavy tail: half are within 0.1% of r0, about 2% are over 300 * r0 and
                    // the largest reach 400 * r0. A polynomial, so no libm is involved.
                    let u: f64 = rng.random();
                    let r = MIXED_R0 * (1.0 + 399.0 * u.powi(16));
                    regular_ish(&mut rng, c, r)
                })
                .collect()
        }
        SceneKind::Clustered => {
            let clusters = n / CLUSTER_SIZE + 1;
            let side = (n as f64 * CLUSTERED_AREA).sqrt();
            let centers: Vec<_> = (0..clusters).map(|_| uniform(&mut rng, side)).collect();
            let sigma = (CLUSTER_VARIANCE_PER_POLYGON * (n as f64 / clusters as f64)).sqrt();
            let normal = Normal::new(0.0, sigma.max(1.0)).expect("finite positive sigma");
            (0..n)
                .map(|_| {
                    let c = centers[rng.random_range(0..clusters as u64) as usize];
                    let p = [c[0] + normal.sample(&mut rng), c[1] + normal.sample(&mut rng)];
                    let r = jittered(&mut rng);
                    regular_ish(&mut rng, p, r)
                })
                .collect()
        }
        SceneKind::Grid => generate_grid(&mut rng, n),
        SceneKind::Round => {
            let side = (n as f64 * CROWD_AREA).sqrt();
            let mut out = Vec::with_capacity(n);
            while out.len() < n {
                let c = uniform(&mut rng, side);
                let r = jittered(&mut rng);
                // Heavy tail of vertex counts: about 84% under 64, mean about 63, up to 1024.
                let u: f64 = rng.random();
                let k = 3 + (1021.0 * u.powi(16)).round() as usize;
                out.extend(squashed_regular(&mut rng, k, c, r, quantise));
            }
            out
        }
        SceneKind::Agents => {
            let side = (n as f64 * AGENTS_AREA).sqrt();
            (0..n)
                .map(|_| {
                    let c = uniform(&mut rng, side);
                    let r = quantise(0.2 + 0.2 * rng.random::<f64>());
                    Polygon::circle([quantise(c[0]), quantise(c[1])], r).expect("a positive radius")
                })
                .collect()
        }
        SceneKind::Shapes => {
            let side = (n as f64 * CROWD_AREA).sqrt();
            let mut out = Vec::with_capacity(n);
            while out.len() < n {
                let c = uniform(&mut rng, side);
                let r = (0.5 + 1.5 * rng.random::<f64>()) * jittered(&mut rng) * 0.8;
                let center = [quantise(c[0]), quantise(c[1])];
                let shape = match out.len() % 4 {
                    0 => Polygon::circle(center, quantise(r * 0.8)).ok(),
                    1 => {
                        let d = random_direction(&mut rng);
                        let h = r * (0.4 + 0.4 * rng.random::<f64>());
                        let a = [quantise(c[0] - h * d[0]), quantise(c[1] - h * d[1])];
                        let b = [quantise(c[0] + h * d[0]), quantise(c[1] + h * d[1])];
                        Polygon::capsule(a, b, quantise(r * (0.2 + 0.3 * rng.random::<f64>()))).ok()
                    }
                    k => {
                        let round = if k == 2 { quantise(r * (0.1 + 0.3 * rng.random::<f64>())) } else { 0.0 };
                        let core = if rng.random::<f64>() < 0.125 {
                            let k = rng.random_range(9usize..=64);
                            squashed_regular(&mut rng, k, c, r - round, quantise)
                        } else {
                            Some(regular_ish(&mut rng, c, r - round))
                        };
                        core.and_then(|p| Polygon::rounded(p.vertices().to_vec(), round).ok())
                    }
                };
                out.extend(shape);
            }
            out
        }
        SceneKind::Rooms => unreachable!("compound kinds are generated by generate_bodies"),
        SceneKind::Scales => {
            let mut out = Vec::with_capacity(n);
            let group_side = (SCALES_GROUP as f64 * DENSE_AREA).sqrt();
            while out.len() < n {
                // A power of two, so the scale itself adds no rounding.
                let scale = 2f64.powi(rng.random_range(-96..=99));
                let at = random_direction(&mut rng);
                let offset = [at[0] * 1000.0 * scale, at[1] * 1000.0 * scale];
                for _ in 0..SCALES_GROUP.min(n - out.len()) {
                    let c = uniform(&mut rng, group_side);
                    let center = [offset[0] + c[0] * scale, offset[1] + c[1] * scale];
                    let r = jittered(&mut rng) * scale;
                    let k = rng.random_range(3usize..=12);
                    let to_f32 = |x: f64| f64::from(x as f32);
                    if let Some(p) = squashed_regular(&mut rng, k, center, r, to_f32) {
                        out.push(p);
                    }
                }
            }
            out
        }
    }
}

/// The integer grid scene: cells visited row by row, each occupied with probability
/// [`GRID_FILL`] by a unit square (70%), one right triangle (15%) or both triangles of a
/// diagonal split (15%). Rows continue past the nominal square if needed, so exactly `n`
/// polygons come out; they are then shuffled so that input order carries no locality.
fn generate_grid(rng: &mut ChaCha8Rng, n: usize) -> Vec<Polygon> {
    use rand::seq::SliceRandom;
    let side = ((n as f64 / GRID_FILL).sqrt().ceil() as u64).max(1);
    let mut out = Vec::with_capacity(n);
    let mut cell = 0u64;
    while out.len() < n {
        let (i, j) = ((cell % side) as f64, (cell / side) as f64);
        cell += 1;
        if rng.random::<f64>() >= GRID_FILL {
            continue;
        }
        let (p00, p10, p11, p01) = ([i, j], [i + 1.0, j], [i + 1.0, j + 1.0], [i, j + 1.0]);
        let kind = rng.random::<f64>();
        let shapes: Vec<Vec<[f64; 2]>> = if kind < 0.7 {
            vec![vec![p00, p10, p11, p01]]
        } else {
            // The two triangles of a diagonal split; which diagonal is random.
            let halves = if rng.random::<bool>() {
                [vec![p00, p10, p11], vec![p00, p11, p01]]
            } else {
                [vec![p00, p10, p01], vec![p10, p11, p01]]
            };
            let [first, second] = halves;
            if kind < 0.85 {
                vec![if rng.random::<bool>() { first } else { second }]
            } else {
                vec![first, second]
            }
        };
        for v in shapes {
            if out.len() < n {
                out.push(Polygon::new(v).expect("grid cells are valid polygons"));
            }
        }
    }
    out.shuffle(rng);
    out
}

/// Generates `n` bodies of the given kind, deterministically for `(kind, n, seed)`: for a
/// compound kind ([`SceneKind::COMPOUND`]) bodies of several parts, for any other the shapes of
/// [`generate`], one part each.
pub fn generate_bodies(kind: SceneKind, n: usize, seed: u64) -> Vec<Body> {
    if kind != SceneKind::Rooms {
        return generate(kind, n, seed).into_iter().map(Body::from).collect();
    }
    const ROOM: f64 = 12.0;
    const CORRIDOR: f64 = 4.0;
    const WALL: f64 = 0.4;
    const DOOR: f64 = 2.0;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The agents' square, with a room per cell of ROOM + CORRIDOR; walls and pillars take at
    // most half of the bodies.
    let side = (n as f64 * AGENTS_AREA).sqrt();
    let per_side = (side / (ROOM + CORRIDOR)).floor() as usize;
    let rooms = (per_side * per_side).min(n / 4);
    let mut out = Vec::with_capacity(n);
    for r in 0..rooms {
        let x0 = CORRIDOR / 2.0 + (r % per_side) as f64 * (ROOM + CORRIDOR);
        let y0 = CORRIDOR / 2.0 + (r / per_side) as f64 * (ROOM + CORRIDOR);
        let (x1, y1, t) = (x0 + ROOM, y0 + ROOM, WALL);
        let xa = quantise(x0 + t + 0.5 + rng.random::<f64>() * (ROOM - 2.0 * t - DOOR - 1.0));
        let xb = xa + DOOR;
        // The wall, counter-clockwise, with the doorway in the bottom side.
        let wall = [
            [xb, y0],
            [x1, y0],
            [x1, y1],
            [x0, y1],
            [x0, y0],
            [xa, y0],
            [xa, y0 + t],
            [x0 + t, y0 + t],
            [x0 + t, y1 - t],
            [x1 - t, y1 - t],
            [x1 - t, y0 + t],
            [xb, y0 + t],
        ];
        // Turned by a quarter turn a random number of times about the room's centre.
        let (cx, cy) = (x0 + ROOM / 2.0, y0 + ROOM / 2.0);
        let turns = rng.random_range(0..4);
        let turned: Vec<[f64; 2]> = wall
            .iter()
            .map(|&p| (0..turns).fold(p, |[x, y], _| [quantise(cx - (y - cy)), quantise(cy + (x - cx))]))
            .collect();
        out.push(Body::concave(&turned).expect("a room's wall is a simple outline"));
        // A plus-shaped pillar at the corridor crossing below and left of the room.
        let (px, py, arm, half) = (x0 - CORRIDOR / 2.0, y0 - CORRIDOR / 2.0, 1.2, 0.3);
        let plus: Vec<[f64; 2]> = [
            [half, -half],
            [arm, -half],
            [arm, half],
            [half, half],
            [half, arm],
            [-half, arm],
            [-half, half],
            [-arm, half],
            [-arm, -half],
            [-half, -half],
            [-half, -arm],
            [half, -arm],
        ]
        .iter()
        .map(|&[x, y]| [quantise(px + x), quantise(py + y)])
        .collect();
        out.push(Body::concave(&plus).expect("a pillar is a simple outline"));
    }
    while out.len() < n {
        let c = [rng.random::<f64>() * side, rng.random::<f64>() * side];
        let r = quantise(0.2 + 0.2 * rng.random::<f64>());
        let agent = Polygon::circle([quantise(c[0]), quantise(c[1])], r).expect("a positive radius");
        out.push(agent.into());
    }
    out
}
