//! The built-in scenarios: crowds crossing a corridor, past pillars or through a doorway, or
//! through each other in a torus.
//!
//! In the crossing, group A fills a square block left of the middle and walks right; group B fills the block to
//! the right and walks left; each body's goal is where it stands, moved one block and the gap
//! over, so the two groups must pass through each other. Bodies are dropped at random at a
//! packing fraction of one half, so they start overlapping and the first frames are push-out
//! more than walking.
//!
//! - [`Scenario::crossing`]: static walls (long boxes) close the corridor above and below, and a
//!   row of pillars stands in the gap between the blocks.
//! - [`Scenario::doorway`]: one crowd, twice as long, walks right through a doorway (the
//!   bottleneck of pedestrian experiments). The walls above and below are concave bodies, each
//!   with a jamb pointing into the corridor (a triangle half as wide as it is tall, whose slopes
//!   lead a body walking into them toward the door): one opening a third of the corridor wide.
//! - [`Scenario::torus`]: no walls: a periodic box (issue 65) where half the bodies walk right
//!   and half left, each coming back at the opposite edge (the World wraps them on the GPU).

use std::f64::consts::TAU;
use std::fmt;
use std::str::FromStr;

use crate::geometry::{Periodic, Polygon, PolygonError, Transform};

type Result<T> = std::result::Result<T, PolygonError>;

/// The shapes of the moving bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimKind {
    /// Circles of radius 0.25 to 0.34 (pedestrians seen from above).
    Agents,
    /// Convex polygons of 3 to 6 vertices, circumradius 0.26 to 0.32, turned at random.
    Crowd,
    /// A mix of circles, capsules, rounded boxes and hexagons.
    Shapes,
}

impl SimKind {
    /// Every kind, in the order `--kind` lists them.
    pub const ALL: [SimKind; 3] = [SimKind::Agents, SimKind::Crowd, SimKind::Shapes];

    /// The name `--kind` takes.
    pub fn name(self) -> &'static str {
        match self {
            SimKind::Agents => "agents",
            SimKind::Crowd => "crowd",
            SimKind::Shapes => "shapes",
        }
    }

    /// The body shapes, centred on their own origin.
    fn shapes(self) -> Result<Vec<Polygon>> {
        let regular = |k: usize, r: f64| -> Vec<[f64; 2]> {
            (0..k).map(|i| [r * (TAU * i as f64 / k as f64).cos(), r * (TAU * i as f64 / k as f64).sin()]).collect()
        };
        let shapes = match self {
            SimKind::Agents => {
                [0.25, 0.28, 0.31, 0.34].iter().map(|&r| Polygon::circle([0.0, 0.0], r)).collect::<Result<_>>()?
            }
            SimKind::Crowd => vec![
                Polygon::new(regular(3, 0.32))?,
                Polygon::new(regular(4, 0.28))?,
                Polygon::new(regular(5, 0.3))?,
                Polygon::new(regular(6, 0.26))?,
                Polygon::new(vec![[-0.3, -0.12], [0.3, -0.12], [0.22, 0.14], [-0.22, 0.14]])?,
            ],
            SimKind::Shapes => vec![
                Polygon::circle([0.0, 0.0], 0.3)?,
                Polygon::capsule([-0.14, 0.0], [0.14, 0.0], 0.17)?,
                Polygon::rounded(vec![[-0.17, -0.17], [0.17, -0.17], [0.17, 0.17], [-0.17, 0.17]], 0.08)?,
                Polygon::new(regular(6, 0.3))?,
            ],
        };
        Ok(shapes)
    }
}

impl fmt::Display for SimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SimKind {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<SimKind, String> {
        SimKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = SimKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown simulation kind {s:?}; expected one of {}", names.join(", "))
        })
    }
}

/// What a body wants: where it walks, how fast, and how hard it is to push.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Walker {
    /// Where the body walks to (world units).
    pub goal: [f64; 2],
    /// Preferred walking speed (world units per second); 0 for walls.
    pub speed: f64,
    /// Inverse mass: 0 for static bodies (walls, pillars), which never move.
    pub inv_mass: f64,
    /// The body's bounding radius (largest distance of its outline from its origin).
    pub radius: f64,
}

impl Walker {
    /// Full speed toward the goal from `at` (zero on the goal): a body's velocity at the start.
    pub fn preferred_velocity(&self, at: [f64; 2]) -> [f64; 2] {
        let to_goal = [self.goal[0] - at[0], self.goal[1] - at[1]];
        let d = to_goal[0].hypot(to_goal[1]);
        if d > 0.0 {
            [to_goal[0] / d * self.speed, to_goal[1] / d * self.speed]
        } else {
            [0.0; 2]
        }
    }
}

/// A simulation's starting state: shapes, bodies and what each body wants. The moving bodies
/// come first (indices `0..moving`), then the static ones.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The shapes, in local coordinates.
    pub shapes: Vec<Polygon>,
    /// Each body's shape (an index into `shapes`).
    pub body_shapes: Vec<u32>,
    /// Each body's starting position and rotation.
    pub start: Vec<Transform>,
    /// Each body's goal, speed, inverse mass and radius.
    pub walkers: Vec<Walker>,
    /// The number of moving bodies (the first ones).
    pub moving: usize,
    /// Static compound bodies (concave walls): ranges of body indices, each the convex parts of
    /// one body. Parts of one body never collide, and a pair of bodies pushes along its deepest
    /// part pair only, as [`World::from_bodies`](crate::gpu::World::from_bodies) reports it. Empty when
    /// every body is one shape.
    pub compounds: Vec<std::ops::Range<usize>>,
    /// A periodic box the bodies live in (see [`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)):
    /// a body that walks past an edge comes back at the other, on the GPU. `None`: an open plane.
    pub periodic: Option<Periodic>,
}

/// A small deterministic generator (SplitMix64): the scenario is a function of its seed alone.
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The bounding radius of a shape centred on its origin.
fn bounding_radius(shape: &Polygon) -> f64 {
    shape.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max) + shape.radius()
}

/// Gap between the two blocks, where the pillars stand (world units).
const GAP: f64 = 2.4;
/// Preferred walking speed (world units per second), give or take 10 %.
const SPEED: f64 = 1.3;

/// How far ahead a torus walker's goal lies: a heading for a day of walking (f32 keeps its
/// direction to a ten-millionth).
const TORUS_GOAL: f64 = 1e5;

impl Scenario {
    /// Two crowds of `n` bodies in all crossing in a corridor (see the module docs). Fails only
    /// when `n` is so large that the walls' coordinates leave the range a polygon may have.
    pub fn crossing(kind: SimKind, n: usize, seed: u64) -> Result<Scenario> {
        let mut random = Random(seed ^ 0x5a71_6770_7573_696d);
        let mut shapes = kind.shapes()?;
        let radii: Vec<f64> = shapes.iter().map(bounding_radius).collect();
        let mean_radius = radii.iter().sum::<f64>() / radii.len() as f64;
        // Each block is a square holding half the bodies at a packing fraction of one half.
        let area = std::f64::consts::PI * mean_radius * mean_radius / 0.5;
        let side = ((n as f64 / 2.0) * area).sqrt().max(2.0);
        let (mut body_shapes, mut start, mut walkers) = (vec![], vec![], vec![]);
        for i in 0..n {
            let s = (random.next() * shapes.len() as f64) as usize % shapes.len();
            let left = i % 2 == 0;
            let (r, along) = (radii[s], random.next());
            let y = r + (side - 2.0 * r) * random.next();
            let x = GAP / 2.0 + r + (side - 2.0 * r) * along;
            let x = if left { -x } else { x };
            let shift = side + GAP;
            let goal = [if left { x + shift } else { x - shift }, y];
            body_shapes.push(s as u32);
            start.push(Transform { x, y, angle: random.next() * TAU });
            walkers.push(Walker { goal, speed: SPEED * (0.9 + 0.2 * random.next()), inv_mass: 1.0, radius: r });
        }
        // Walls above and below, one body length beyond both blocks, and pillars in the gap.
        let length = 2.0 * side + GAP + 4.0;
        let wall = shapes.len() as u32;
        shapes.push(Polygon::new(vec![
            [-length / 2.0, -0.5],
            [length / 2.0, -0.5],
            [length / 2.0, 0.5],
            [-length / 2.0, 0.5],
        ])?);
        let pillar = shapes.len() as u32;
        let pillar_radius = 0.4;
        shapes.push(Polygon::new(
            (0..8)
                .map(|k| [pillar_radius * (TAU * k as f64 / 8.0).cos(), pillar_radius * (TAU * k as f64 / 8.0).sin()])
                .collect(),
        )?);
        let mut statics = vec![(wall, 0.0, -0.5, length / 2.0), (wall, 0.0, side + 0.5, length / 2.0)];
        let mut y = 3.0;
        while y < side - 1.0 {
            statics.push((pillar, 0.0, y, pillar_radius));
            y += 6.0;
        }
        for (shape, x, y, radius) in statics {
            body_shapes.push(shape);
            start.push(Transform { x, y, angle: 0.0 });
            walkers.push(Walker { goal: [x, y], speed: 0.0, inv_mass: 0.0, radius });
        }
        Ok(Scenario { shapes, body_shapes, start, walkers, moving: n, compounds: vec![], periodic: None })
    }

    /// A crowd of `n` bodies passing a doorway, the bottleneck of pedestrian experiments (see
    /// the module docs): every body starts left of the door and walks right, to where it
    /// stands moved one block and the gap over. The corridor's walls are two concave static
    /// bodies, split into convex parts, whose jambs leave an opening a third of the corridor
    /// wide. Fails only when `n` is so large that the walls' coordinates leave the range a
    /// polygon may have.
    pub fn doorway(kind: SimKind, n: usize, seed: u64) -> Result<Scenario> {
        let mut random = Random(seed ^ 0x646f_6f72_7761_7921);
        let mut shapes = kind.shapes()?;
        let radii: Vec<f64> = shapes.iter().map(bounding_radius).collect();
        let mean_radius = radii.iter().sum::<f64>() / radii.len() as f64;
        // One block twice as long as the corridor is wide, at a packing fraction of one half.
        let area = std::f64::consts::PI * mean_radius * mean_radius / 0.5;
        let side = ((n as f64 / 2.0) * area).sqrt().max(2.0);
        let length = 2.0 * side;
        // The door: the middle third of the corridor, between the jambs' tips; each jamb rises
        // from a base half as wide as it is tall, and the block starts clear of it.
        let door = side / 3.0;
        let jamb = (side - door) / 2.0;
        let gap = jamb + GAP;
        let (mut body_shapes, mut start, mut walkers) = (vec![], vec![], vec![]);
        for _ in 0..n {
            let s = (random.next() * shapes.len() as f64) as usize % shapes.len();
            let (r, along) = (radii[s], random.next());
            let y = r + (side - 2.0 * r) * random.next();
            let x = -(gap / 2.0 + r + (length - 2.0 * r) * along);
            let goal = [x + length + gap, y];
            body_shapes.push(s as u32);
            start.push(Transform { x, y, angle: random.next() * TAU });
            walkers.push(Walker { goal, speed: SPEED * (0.9 + 0.2 * random.next()), inv_mass: 1.0, radius: r });
        }
        // The walls: a slab one unit thick along the corridor, beyond both blocks, and its jamb.
        let half = length + gap / 2.0 + 2.0;
        let foot = jamb / 2.0;
        let below = [[-half, -1.0], [half, -1.0], [half, 0.0], [foot, 0.0], [0.0, jamb], [-foot, 0.0], [-half, 0.0]];
        let above: Vec<[f64; 2]> = below.iter().rev().map(|&[x, y]| [x, side - y]).collect();
        let mut compounds = vec![];
        for outline in [below.to_vec(), above] {
            let body = crate::geometry::Body::concave(&outline)?;
            let first = start.len();
            for part in body.shapes() {
                // Each part is a static body of its own, placed at the centre of its box.
                let b = part.aabb();
                let (x, y) = ((b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0);
                let local = part.transformed(&Transform { x: -x, y: -y, angle: 0.0 });
                body_shapes.push(shapes.len() as u32);
                walkers.push(Walker { goal: [x, y], speed: 0.0, inv_mass: 0.0, radius: bounding_radius(&local) });
                shapes.push(local);
                start.push(Transform { x, y, angle: 0.0 });
            }
            compounds.push(first..start.len());
        }
        Ok(Scenario { shapes, body_shapes, start, walkers, moving: n, compounds, periodic: None })
    }

    /// Two crowds of `n` bodies in all walking through each other in a torus with no walls (see
    /// the module docs): half walk along +x, half along -x, forever, each coming back at the
    /// other edge; the counterflow in a periodic corridor where lanes form. The box is square,
    /// at a packing fraction of a quarter. Fails only when `n` is so large that the box leaves
    /// the range a coordinate may have.
    pub fn torus(kind: SimKind, n: usize, seed: u64) -> Result<Scenario> {
        let mut random = Random(seed ^ 0x746f_7275_7321_7321);
        let shapes = kind.shapes()?;
        let radii: Vec<f64> = shapes.iter().map(bounding_radius).collect();
        let mean_radius = radii.iter().sum::<f64>() / radii.len() as f64;
        let largest = radii.iter().copied().fold(0.0, f64::max);
        let area = std::f64::consts::PI * mean_radius * mean_radius / 0.25;
        // At least a few bodies across, so that each fits the box at any angle.
        let side = (n as f64 * area).sqrt().max(8.0 * largest);
        // The box's corner past the range a coordinate may have, as a polygon's would be.
        let periodic = Periodic::new([0.0, 0.0, side, side], [true, true]).map_err(|_| PolygonError::OutOfRange {
            vertex: 0,
            x: side,
            y: side,
            max: crate::geometry::MAX_COORDINATE,
        })?;
        let (mut body_shapes, mut start, mut walkers) = (vec![], vec![], vec![]);
        for i in 0..n {
            let s = (random.next() * shapes.len() as f64) as usize % shapes.len();
            let (x, y) = (side * random.next(), side * random.next());
            // A goal far along the body's way: its heading, as the box wraps its position.
            let way = if i % 2 == 0 { TORUS_GOAL } else { -TORUS_GOAL };
            body_shapes.push(s as u32);
            start.push(Transform { x, y, angle: random.next() * TAU });
            let speed = SPEED * (0.9 + 0.2 * random.next());
            walkers.push(Walker { goal: [x + way, y], speed, inv_mass: 1.0, radius: radii[s] });
        }
        Ok(Scenario { shapes, body_shapes, start, walkers, moving: n, compounds: vec![], periodic: Some(periodic) })
    }

    /// The smallest bounding radius of a moving body (the yardstick of "1 % of a body's radius").
    pub fn body_radius(&self) -> f64 {
        self.walkers[..self.moving].iter().map(|w| w.radius).fold(f64::INFINITY, f64::min)
    }

    /// The largest bounding radius of a moving body.
    pub fn largest_radius(&self) -> f64 {
        self.walkers[..self.moving].iter().map(|w| w.radius).fold(0.0, f64::max)
    }

    /// The bodies in world coordinates at `positions` (x, y per body; rotations from the start),
    /// for pictures and checks.
    pub fn placed(&self, positions: &[[f32; 2]]) -> Vec<Polygon> {
        self.body_shapes
            .iter()
            .zip(&self.start)
            .zip(positions)
            .map(|((&s, t), p)| {
                let t = Transform { x: f64::from(p[0]), y: f64::from(p[1]), angle: t.angle };
                self.shapes[s as usize].transformed(&t)
            })
            .collect()
    }
}
