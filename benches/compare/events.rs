//! Contact events (issue 26) against parry2d doing the same job: per frame of a scene whose
//! bodies move, the colliding pairs and the pairs that began and ended since the frame before.
//!
//! * **gpu frame**: `World::set_polygons` + `step()` on a world without events, as the main
//!   table's gpu frame; **gpu + events**: the same on a world with `WorldOptions::events`, the
//!   events read too (`World::events`): the difference is what the events cost;
//! * **parry2d**: the main table's contact query (`query::contact` per BVH candidate) for the
//!   frame, then the began and ended pairs by one merge of the two sorted pair lists; on one
//!   thread and on all cores (the merge is sequential either way: it is linear and cheap).
//!
//! Frames: the scene, then every body moved by a small step of its own (a fraction of its box)
//! each frame. Medians over the frames after the first. Checked every frame: the GPU's pairs
//! with `validate::compare`, its events against `reference::contact_events` of its own pairs,
//! and parry2d's events against the GPU's wherever the two agree on the pairs.

use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, validate, Contact, Polygon, Transform};

use crate::{median, parry_detect, parry_detect_all_cores, ParryQuery};
use satgpu::DetectOptions;

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EventsRow {
    pub kind: String,
    pub n: usize,
    pub frames: usize,
    /// Medians per frame.
    pub pairs: usize,
    pub began: usize,
    pub ended: usize,
    pub gpu_frame_ms: f64,
    pub gpu_events_frame_ms: f64,
    pub parry_ms: f64,
    pub parry_all_cores_ms: f64,
    pub threads: usize,
    /// Every frame's pairs agree with the reference, and its events are those of its pairs.
    pub gpu_ok: bool,
    /// Events parry2d reports differently, each on a pair the two detections differ on (band).
    pub parry_event_differences: usize,
    /// Events parry2d reports differently on a pair both detections agree on (must be 0).
    pub parry_event_errors: usize,
}

/// `polygons` with each body moved by a small step of its own for frame `frame`.
fn moved(polygons: &[Polygon], frame: usize) -> Vec<Polygon> {
    polygons
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let b = p.aabb();
            let size = (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]);
            let step = |k: usize| ((k % 7) as f64 - 3.0) * 0.08 * size;
            p.transformed(&Transform { x: step(i * 31 + frame * 17), y: step(i * 13 + frame * 5), angle: 0.0 })
        })
        .collect()
}

type Pairs = Vec<(u32, u32)>;

/// The pairs of `now` missing from `before` and those of `before` missing from `now`, both
/// sorted, by one merge.
fn merge_events(before: &[(u32, u32)], now: &[(u32, u32)]) -> (Pairs, Pairs) {
    let (mut began, mut ended) = (vec![], vec![]);
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(p), Some(q)) if p == q => (i, j) = (i + 1, j + 1),
            (Some(p), Some(q)) if p < q => (ended.push(*p), i += 1).1,
            (Some(p), None) => (ended.push(*p), i += 1).1,
            (_, Some(q)) => (began.push(*q), j += 1).1,
            (None, None) => unreachable!("the loop runs while one list has pairs"),
        }
    }
    (began, ended)
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, frames: usize) -> EventsRow {
    let polygons = scene::generate(kind, n, seed);
    let scenes: Vec<Vec<Polygon>> = (0..frames).map(|f| moved(&polygons, f)).collect();
    let options = WorldOptions::default();
    let mut plain = World::from_polygons(gpu, &scenes[0], &options).expect("a world");
    let mut evented = World::from_polygons(gpu, &scenes[0], &options.clone().with_events(true)).expect("a world");
    let (mut t_plain, mut t_events, mut t_parry, mut t_parry_all) = (vec![], vec![], vec![], vec![]);
    let (mut pairs, mut began, mut ended) = (vec![], vec![], vec![]);
    let (mut gpu_ok, mut parry_event_differences, mut parry_event_errors) = (true, 0, 0);
    let (mut gpu_before, mut parry_before): (Vec<Contact>, Vec<(u32, u32)>) = (vec![], vec![]);
    for (f, scene) in scenes.iter().enumerate() {
        let t = std::time::Instant::now();
        plain.set_polygons(scene).expect("set_polygons");
        std::hint::black_box(plain.step().expect("step"));
        let plain_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        evented.set_polygons(scene).expect("set_polygons");
        let frame = evented.step().expect("step");
        let events = evented.events().expect("events are on").clone();
        let events_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let parry_now = parry_detect(scene, ParryQuery::Contact).pairs;
        let parry_events = merge_events(&parry_before, &parry_now);
        let parry_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let all_now = parry_detect_all_cores(scene, ParryQuery::Contact);
        std::hint::black_box(merge_events(&parry_before, &all_now));
        let parry_all_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(all_now, parry_now, "parry2d on all cores finds the pairs it finds on one");
        // Checks: the GPU's pairs, its events from its own pairs, parry2d's events.
        gpu_ok &= validate::compare(
            scene,
            &frame.contacts,
            &reference::detect(scene, &DetectOptions::default()).contacts,
            &DetectOptions::default(),
        )
        .ok();
        gpu_ok &= events == reference::contact_events(&gpu_before, &frame.contacts);
        let gpu_pairs: Vec<(u32, u32)> = frame.contacts.iter().map(|c| (c.a, c.b)).collect();
        let as_pairs = |e: &[[u32; 2]]| e.iter().map(|p| (p[0], p[1])).collect::<Vec<_>>();
        let disputed = |p: &(u32, u32)| {
            let either = |a: &[(u32, u32)], b: &[(u32, u32)]| a.binary_search(p).is_ok() != b.binary_search(p).is_ok();
            either(&gpu_pairs, &parry_now)
                || either(&gpu_before.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), &parry_before)
        };
        for (mine, theirs) in [(as_pairs(&events.began), &parry_events.0), (as_pairs(&events.ended), &parry_events.1)] {
            let mine: std::collections::BTreeSet<_> = mine.into_iter().collect();
            let theirs: std::collections::BTreeSet<_> = theirs.iter().copied().collect();
            for p in mine.symmetric_difference(&theirs) {
                match disputed(p) {
                    true => parry_event_differences += 1,
                    false => parry_event_errors += 1,
                }
            }
        }
        if f > 0 {
            t_plain.push(plain_ms);
            t_events.push(events_ms);
            t_parry.push(parry_ms);
            t_parry_all.push(parry_all_ms);
            pairs.push(frame.contacts.len() as f64);
            began.push(events.began.len() as f64);
            ended.push(events.ended.len() as f64);
        }
        (gpu_before, parry_before) = (frame.contacts, parry_now);
    }
    EventsRow {
        kind: kind.to_string(),
        n,
        frames,
        pairs: median(&pairs) as usize,
        began: median(&began) as usize,
        ended: median(&ended) as usize,
        gpu_frame_ms: median(&t_plain),
        gpu_events_frame_ms: median(&t_events),
        parry_ms: median(&t_parry),
        parry_all_cores_ms: median(&t_parry_all),
        threads: rayon::current_num_threads(),
        gpu_ok,
        parry_event_differences,
        parry_event_errors,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[EventsRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("contact events (per frame of moving bodies: the pairs, and those that began and ended; medians):");
    println!(
        "{:<10} {:>8} {:>9} {:>8} {:>8} {:>10} {:>11} {:>10} {:>10} {:>9} {:>6}",
        "kind", "n", "pairs", "began", "ended", "gpu frame", "gpu+events", "parry 1", "parry all", "all/gpu", "agree"
    );
    let mut failures = vec![];
    for r in rows {
        let agree = r.gpu_ok && r.parry_event_errors == 0;
        println!(
            "{:<10} {:>8} {:>9} {:>8} {:>8} {:>10.2} {:>11.2} {:>10.2} {:>10.2} {:>8.2}x {:>6}",
            r.kind,
            r.n,
            r.pairs,
            r.began,
            r.ended,
            r.gpu_frame_ms,
            r.gpu_events_frame_ms,
            r.parry_ms,
            r.parry_all_cores_ms,
            r.parry_all_cores_ms / r.gpu_events_frame_ms,
            if agree { "yes" } else { "NO" }
        );
        let name = format!("{} n={} events", r.kind, r.n);
        if !r.gpu_ok {
            failures.push(format!("{name}: GPU pairs or events disagree with the reference"));
        }
        if r.parry_event_errors > 0 {
            failures.push(format!("{name}: parry2d's events differ on {} undisputed pair(s)", r.parry_event_errors));
        }
    }
    println!(
        "gpu+events = the same frame on a world with events, read back too; parry = contact() per candidate, then one merge \
         of the sorted pair lists; all/gpu against gpu+events; {} threads",
        rows[0].threads
    );
    failures
}
