//! The subcommands that run the library: `gen`, `run`, `detect`, `bench` and `adapters` (`render`
//! and `sim` have modules of their own).

// The argument types and helpers of main.rs.
use super::*;

/// `satgpu gen`: refuses a scene whose polygons and text do not fit in the host's memory.
pub(crate) fn gen(kind: SceneKind, n: usize, seed: u64, out: &Path, periodic: bool) -> Result<(), Failure> {
    let estimate = memory::estimate(SceneSize::generated(kind, n, seed), Work::GENERATE);
    let available = memory::available_within(memory_limit()?);
    memory::check(|| format!("{} {kind} polygons", memory::grouped(n as u64)), "host", estimate.host, available)?;
    let mut scene = match kind.is_compound() {
        true => scene::Scene::from_bodies(scene::generate_bodies(kind, n, seed)),
        false => scene::Scene::new(scene::generate(kind, n, seed)),
    };
    if periodic {
        scene.periodic = Some(periodic_box(&scene, kind)?);
    }
    scene::write_scene(out, &scene)?;
    println!("wrote {}: {} polygons", out.display(), memory::grouped(n as u64));
    Ok(())
}

/// `gen --periodic`: the box the bodies' centres span (the density the kind scatters them at),
/// checked against its widest body. `scales` and `outliers` spread over far more than any box of
/// their density and are refused.
fn periodic_box(scene: &scene::Scene, kind: SceneKind) -> Result<satgpu::Periodic, Failure> {
    if matches!(kind, SceneKind::Scales | SceneKind::Outliers) || scene.bodies.is_empty() {
        let why = "its bodies lie over far more than a box of its density (or there are none)";
        return Err(Failure(2, format!("--periodic --kind {kind}: {why}")));
    }
    let centre = |b: &satgpu::Aabb| [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for c in scene.bodies.iter().map(|b| centre(&b.aabb())) {
        (lo, hi) = ([lo[0].min(c[0]), lo[1].min(c[1])], [hi[0].max(c[0]), hi[1].max(c[1])]);
    }
    let p = satgpu::Periodic::new([lo[0], lo[1], hi[0], hi[1]], [true, true])?;
    p.check_boxes(scene.bodies.iter().map(|b| b.aabb()), 0.0)
        .map_err(|e| Failure(2, format!("--periodic --kind {kind}: {e} (more bodies make a wider box)")))?;
    Ok(p)
}

/// `satgpu run`: a generated scene detected on the GPU (timed, the second frame) and checked
/// against the reference, bodies of one shape or of several alike.
pub(crate) fn run(kind: SceneKind, n: usize, seed: u64, device: &DeviceArgs) -> Result<(), Failure> {
    let gpu = device.open()?;
    let estimate = check_generated(&gpu, kind, n, seed, Work::VALIDATE)?;
    let t = Instant::now();
    if kind.is_compound() {
        let bodies = scene::generate_bodies(kind, n, seed);
        let parts: usize = bodies.iter().map(|b| b.shapes().len()).sum();
        run_bodies(&gpu, &bodies, format!("{kind}, {n} bodies ({parts} convex parts), seed {seed}"), t, estimate)
    } else {
        let polygons = scene::generate(kind, n, seed);
        run_bodies(&gpu, &polygons, format!("{kind}, {n} polygons, seed {seed}"), t, estimate)
    }
}

/// `run`'s report on `bodies` (`scene` says what they are; generated since `generated`).
fn run_bodies<B: AsRef<[satgpu::Polygon]> + Sync>(
    gpu: &Gpu,
    bodies: &[B],
    scene: String,
    generated: Instant,
    estimate: memory::MemoryEstimate,
) -> Result<(), Failure> {
    println!("scene      {scene} (generated in {:.0} ms)", ms(generated));
    println!("adapter    {}", gpu.describe());
    let available = gpu.memory_available().map_or("unknown".into(), memory::human_bytes);
    println!(
        "memory     about {} on the host and {} on the device estimated; {available} available",
        memory::human_bytes(estimate.host),
        memory::human_bytes(estimate.device)
    );
    let t = Instant::now();
    let mut world = World::from_bodies(gpu, bodies, &WorldOptions::default().with_timestamps(true))?;
    let upload_ms = ms(t);
    // The first frame compiles shaders in the driver and sizes the buffers; time the second.
    world.step()?;
    let t = Instant::now();
    let frame = world.step()?;
    let step_ms = ms(t);
    let stats = &frame.stats;
    println!("upload     {upload_ms:.2} ms (wall, buffers and bind groups)");
    for p in &stats.passes {
        println!("  {:<16} {:>9.3} ms ({})", p.name, p.ms, p.clock);
    }
    println!("frame      {:.2} ms (wall, second frame, GPU passes + readback)", stats.frame_ms);
    println!("step       {step_ms:.2} ms (wall, the whole step: the frame and the Frame handed over)");
    println!("candidates {} (pairs of shapes)", stats.candidates);
    println!("colliding  {} (pairs of bodies)", frame.contacts.len());
    let t = Instant::now();
    let expected = reference::detect(bodies, &DetectOptions::default());
    let (ref_candidates, colliding) = (expected.candidates, expected.contacts.len());
    println!("reference  {:.1} ms (CPU f64), {ref_candidates} candidates, {colliding} colliding", ms(t));
    verdict(&validate::compare(bodies, &frame.contacts, &expected.contacts, &DetectOptions::default()))
}

/// Prints `run`'s comparison with the reference; exit 1 on a disagreement outside the band.
fn verdict(report: &validate::Report) -> Result<(), Failure> {
    println!("in band    {} (pairs inside the tolerance band, allowed)", report.in_band);
    println!("disagreements {}", report.disagreements.len());
    for d in report.disagreements.iter().take(10) {
        println!("  {d}");
    }
    if report.ok() {
        Ok(())
    } else {
        Err(Failure(
            1,
            format!("{} pairs disagree with the CPU reference outside the band", report.disagreements.len()),
        ))
    }
}

/// `satgpu neighbours`: each body's neighbours within `radius` (the `k` nearest), on the GPU or
/// the reference, written as CSV or summed up.
pub(crate) fn neighbours(
    source: &SceneArgs,
    (radius, k): (f64, Option<usize>),
    backend: Backend,
    out: Option<&Path>,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    if !(radius >= 0.0 && radius.is_finite()) {
        return Err(Failure(2, format!("--radius {radius}: must be finite and at least 0")));
    }
    if k == Some(0) {
        return Err(Failure(2, "--k 0: must be at least 1 (leave it out for every neighbour)".into()));
    }
    if let Some(out) = out.filter(|o| o.extension().and_then(|e| e.to_str()) != Some("csv")) {
        return Err(Failure(2, format!("{}: --out must end in .csv", out.display())));
    }
    let scene = source.read_boxed(radius)?;
    let bodies = &scene.bodies;
    let mut options = DetectOptions::default().with_filters(scene.filters.clone());
    options.world.periodic = scene.periodic;
    let t = Instant::now();
    let found = match backend {
        Backend::Gpu => gpu::neighbours(&device.open()?, bodies, radius, k, &options)?,
        Backend::Cpu => reference::neighbours(bodies, radius, k, &options),
    };
    let said = format!(
        "{} bodies, {} neighbour rows within {radius} ({} backend, {:.1} ms)",
        found.len(),
        found.neighbour.len(),
        if backend == Backend::Gpu { "gpu" } else { "cpu" },
        ms(t)
    );
    match out {
        Some(out) => {
            scene::write_atomically(out, |w| scene::write_neighbours_csv(w, &found, out))?;
            println!("wrote {}: {said}", out.display());
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{said}");
            for body in (0..found.len()).filter(|&b| !found.of(b).0.is_empty()).take(10) {
                let (n, d, _) = found.of(body);
                let list: Vec<String> = n.iter().zip(d).map(|(n, d)| format!("{n} at {d:.6}")).collect();
                let _ = writeln!(stdout, "  {body}: {}", list.join(", "));
            }
        }
    }
    Ok(())
}

pub(crate) fn detect(
    source: &SceneArgs,
    backend: Backend,
    out: Option<&Path>,
    (detail, margin): (ContactDetail, f64),
    device: &DeviceArgs,
) -> Result<(), Failure> {
    // Every argument is checked before any work starts.
    if !(margin >= 0.0 && margin.is_finite()) {
        return Err(Failure(2, format!("--margin {margin}: must be finite and at least 0")));
    }
    let json = match out.map(|out| (out, out.extension().and_then(|e| e.to_str()))) {
        None => false,
        Some((_, Some("json"))) => true,
        Some((_, Some("csv"))) => false,
        Some((out, _)) => return Err(Failure(2, format!("{}: --out must end in .csv or .json", out.display()))),
    };
    let scene = source.read_boxed(margin)?;
    let (bodies, compound) = (&scene.bodies, scene.compound);
    // Opening the device (and compiling every pipeline) is timed apart from the detection.
    let t = Instant::now();
    let gpu = if backend == Backend::Gpu { Some(device.open()?) } else { None };
    let open_ms = ms(t);
    let t = Instant::now();
    let full = detail == ContactDetail::Full;
    let mut options =
        DetectOptions::default().with_filters(scene.filters.clone()).with_margin(margin).with_contact_detail(detail);
    options.world.periodic = scene.periodic;
    let (contacts, manifolds, parts) = detect_bodies(gpu.as_ref(), bodies, &options)?;
    // With compound bodies, each pair's deepest part pair too (part 0 where every body has one).
    let parts = compound.then(|| match parts.is_empty() {
        true => vec![[0, 0]; contacts.len()],
        false => parts,
    });
    let elapsed = ms(t);
    let timing = match gpu {
        Some(_) => format!("gpu backend: device opened in {open_ms:.1} ms, detection {elapsed:.1} ms"),
        None => format!("cpu backend: detection {elapsed:.1} ms"),
    };
    match out {
        Some(out) => {
            scene::write_atomically(out, |w| match (json, full, &parts) {
                (true, true, Some(parts)) => scene::write_compound_manifolds_json(w, &contacts, &manifolds, parts, out),
                (false, true, Some(parts)) => scene::write_compound_manifolds_csv(w, &contacts, &manifolds, parts, out),
                (true, true, None) => scene::write_manifolds_json(w, &contacts, &manifolds, out),
                (false, true, None) => scene::write_manifolds_csv(w, &contacts, &manifolds, out),
                (true, false, _) => scene::write_contacts_json(w, &contacts, out),
                (false, false, _) => scene::write_contacts_csv(w, &contacts, out),
            })?;
            println!("wrote {}: {} ({timing})", out.display(), pairs_said(&contacts, margin, true));
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            let bodies = match compound {
                false => format!("{} polygons", bodies.len()),
                true => {
                    format!(
                        "{} bodies ({} convex parts)",
                        bodies.len(),
                        bodies.iter().map(|b| b.shapes().len()).sum::<usize>()
                    )
                }
            };
            let _ = writeln!(stdout, "{bodies}, {} ({timing})", pairs_said(&contacts, margin, false));
            for (i, c) in contacts.iter().enumerate().take(10) {
                let _ = write!(
                    stdout,
                    "  ({}, {}) normal ({:.6}, {:.6}) depth {:.6}",
                    c.a, c.b, c.normal[0], c.normal[1], c.depth
                );
                if let Some([ka, kb]) = parts.as_ref().map(|p| p[i]) {
                    let _ = write!(stdout, " parts ({ka}, {kb})");
                }
                if let Some(m) = manifolds.get(i) {
                    let _ = write!(stdout, " a_in_b {} b_in_a {}", u8::from(m.a_in_b), u8::from(m.b_in_a));
                    for p in m.points() {
                        let _ = write!(stdout, " point ({:.6}, {:.6}) depth {:.6}", p.point[0], p.point[1], p.depth);
                    }
                }
                let _ = writeln!(stdout);
            }
            if contacts.len() > 10 {
                let _ = writeln!(stdout, "  ... {} more (use --out FILE.csv for all)", contacts.len() - 10);
            }
        }
    }
    Ok(())
}

/// "N colliding pairs", or with a margin "N pairs within D (M colliding)"; `grouped`: numbers
/// with thousands separators.
fn pairs_said(contacts: &[Contact], margin: f64, grouped: bool) -> String {
    let say = |n: usize| if grouped { memory::grouped(n as u64) } else { n.to_string() };
    match margin {
        0.0 => format!("{} colliding pairs", say(contacts.len())),
        d => {
            let colliding = contacts.iter().filter(|c| c.depth >= 0.0).count();
            format!("{} pairs within {d} ({} colliding)", say(contacts.len()), say(colliding))
        }
    }
}

/// Pairs of bodies: contacts, manifolds (with `--contacts full`) and each pair's deepest shape
/// pair (empty where every body has one shape).
type Pairs = (Vec<Contact>, Vec<Manifold>, Vec<[u32; 2]>);

/// The pairs of `bodies` on the GPU (`gpu`) or the reference.
fn detect_bodies<B: AsRef<[satgpu::Polygon]>>(
    gpu: Option<&gpu::Gpu>,
    bodies: &[B],
    options: &DetectOptions,
) -> Result<Pairs, Failure> {
    Ok(match gpu {
        Some(gpu) => {
            let frame = gpu::detect(gpu, bodies, options)?;
            (frame.contacts, frame.manifolds, frame.shapes)
        }
        None => {
            let found = reference::detect(bodies, options);
            (found.contacts, found.manifolds, found.shapes)
        }
    })
}

/// The scenes `bench` runs: a file, or every kind at every size from a seed.
pub(crate) struct Scenes<'a> {
    pub(crate) file: Option<&'a Path>,
    pub(crate) kinds: &'a [SceneKind],
    pub(crate) sizes: &'a [usize],
    pub(crate) seed: u64,
}

pub(crate) fn bench(
    scenes: Scenes<'_>,
    frames: usize,
    (json, plot, trace): (Option<&Path>, Option<&Path>, Option<&Path>),
    options: &WorldOptions,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    let Scenes { file: scene_file, kinds, sizes, seed } = scenes;
    if let Some(kind) = kinds.iter().find(|k| k.is_compound()).filter(|_| scene_file.is_none()) {
        return Err(Failure(
            2,
            format!("bench takes convex kinds; {kind} has compound bodies: use `satgpu run --kind {kind}`"),
        ));
    }
    if frames == 0 {
        return Err(Failure(2, "--frames must be at least 1".into()));
    }
    if let Some(path) = plot {
        draw::Format::of(path, "--plot")?;
    }
    let gpu = device.open()?;
    println!("adapter {}", gpu.describe());
    let scenes: Vec<(String, Option<(SceneKind, usize)>)> = match scene_file {
        Some(path) => vec![(path.display().to_string(), None)],
        None => kinds.iter().flat_map(|&k| sizes.iter().map(move |&n| (format!("{k}"), Some((k, n))))).collect(),
    };
    // Every scene is checked before the first one runs: one runs at a time.
    for &(_, generated) in &scenes {
        if let Some((kind, n)) = generated {
            check_generated(&gpu, kind, n, seed, Work::VALIDATE)?;
        }
    }
    let bar = indicatif::ProgressBar::new((scenes.len() * 5 * (frames + 2)) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut results = vec![];
    let mut events = trace.map(|_| crate::trace::Trace::default());
    for (name, generated) in scenes {
        // A scene file's periodic box, if it has one: its world runs in it, and the reference.
        let mut options = options.clone();
        let polygons = match generated {
            Some((kind, n)) => scene::generate(kind, n, seed),
            None => {
                let scene = scene::read_scene(Path::new(&name))?;
                if let Some(p) = &scene.periodic {
                    p.check_boxes(scene.bodies.iter().map(|b| b.aabb()), options.margin)?;
                    options.periodic = Some(*p);
                }
                if scene.compound {
                    // Not silently an empty scene: compound bodies are not benchmarked yet.
                    return Err(Failure(
                        2,
                        format!("{name}: bench takes scenes of convex shapes; this one has compound bodies (\"parts\" or concave outlines): use `satgpu detect`"),
                    ));
                }
                scene.into_shapes()
            }
        };
        bar.set_message(format!("{name} n={}", polygons.len()));
        let base = bar.position();
        let progress = |done, _| bar.set_position(base + done as u64);
        let result = bench::run(&gpu, (&name, &polygons), 2, frames, &options, events.as_mut(), progress)?;
        results.push(result);
    }
    bar.finish_and_clear();
    let clock = results.first().map(|r| r.pass_clock.clone()).unwrap_or_default();
    println!("per-pass medians in ms ({clock} clock for GPU passes; upload and readback: wall clock)");
    let mut names: Vec<String> = vec![];
    for r in &results {
        for k in r.passes.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    let order: Vec<&str> = std::iter::once("upload")
        .chain(gpu::Pass::ALL.iter().map(|p| p.name()))
        .chain(["gpu_total", "readback"])
        .collect();
    names.sort_by_key(|n| order.iter().position(|o| o == n).unwrap_or(order.len()));
    print!("{:<10} {:>9} {:>10} {:>10}", "scene", "n", "candidates", "colliding");
    for n in &names {
        print!(" {:>9}", truncate(n, 9));
    }
    let columns = ["frame", "sim", "sim f32", "sim view", "resident", "cpu ref", "agree"];
    columns[..6].iter().for_each(|c| print!(" {c:>9}"));
    println!(" {:>6}", columns[6]);
    for r in &results {
        print!("{:<10} {:>9} {:>10} {:>10}", truncate(&r.scene, 10), r.n, r.candidates, r.colliding);
        for n in &names {
            match r.passes.get(n) {
                Some(ms) => print!(" {ms:>9.2}"),
                None => print!(" {:>9}", "-"),
            }
        }
        println!(
            " {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.1} {:>6}",
            r.frame_ms_median,
            r.sim_frame_ms_median,
            r.sim_frame_f32_ms_median,
            r.sim_frame_view_ms_median,
            r.resident_frame_ms_median,
            r.reference_ms,
            r.agrees
        );
    }
    for r in &results {
        println!(
            "{}: a batch of independent frames takes {:.2} ms a frame one at a time, {:.2} ms with two in flight ({:.2}x)",
            r.scene,
            r.batch_frame_ms,
            r.batch_two_in_flight_ms,
            r.batch_frame_ms / r.batch_two_in_flight_ms
        );
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&results).map_err(|e| Failure(2, e.to_string()))?;
        scene::write_atomically(path, |w| {
            w.write_all(text.as_bytes()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
        })?;
        println!("wrote {}: {} scenes", path.display(), results.len());
    }
    if let (Some(path), Some(events)) = (trace, &events) {
        let text = events.to_json().map_err(|e| Failure(2, e.to_string()))?;
        scene::write_atomically(path, |w| {
            w.write_all(text.as_bytes()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
        })?;
        println!("wrote {}: {} spans", path.display(), events.spans());
    }
    if let Some(path) = plot {
        crate::plot::write(path, &results, &names)?;
        println!("wrote {}: {} scenes", path.display(), results.len());
    }
    if results.iter().all(|r| r.agrees) {
        Ok(())
    } else {
        Err(Failure(1, "the GPU disagreed with the CPU reference on a benchmarked scene".into()))
    }
}

/// The first `n` characters of `s` (a name cut to its column).
pub(crate) fn truncate(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(end, _)| &s[..end])
}

pub(crate) fn adapters() -> Result<(), Failure> {
    let list = gpu::list_adapters();
    for report in &list {
        match &report.unsuitable {
            None => println!("{}", gpu::describe_adapter(&report.info)),
            Some(reason) => println!("{}  [cannot run satgpu: {reason}]", gpu::describe_adapter(&report.info)),
        }
    }
    // Exit 3 unless some adapter can run satgpu, naming the best one that cannot.
    if list.iter().any(|r| r.unsuitable.is_none()) {
        return Ok(());
    }
    match list.into_iter().next() {
        Some(gpu::AdapterReport { info, unsuitable: Some(reason), .. }) => {
            Err(Error::UnsuitableAdapter { adapter: gpu::describe_adapter(&info), reason }.into())
        }
        _ => Err(Error::NoAdapter { detail: String::new() }.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncate_cuts_between_characters() {
        assert_eq!(truncate("abcdefghié.json", 10), "abcdefghié");
        assert_eq!(truncate("abcdefghi", 10), "abcdefghi");
        assert_eq!(truncate("éé", 1), "é");
        assert_eq!(truncate("", 3), "");
    }
}
