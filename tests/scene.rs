//! Tests of scene parsing (every bad input gives its typed error, naming the polygon), the
//! generators and the output writers. The polygon rules themselves are tested beside the
//! geometry, in src/geometry/.

use std::path::{Path, PathBuf};

use satgpu::geometry::MAX_OUTLINE_VERTICES;
use satgpu::scene::{
    generate, parse_scene, read_scene, scene_to_json, write_contacts_csv, write_contacts_json, write_scene, Scene,
    SceneKind,
};
use satgpu::DetectOptions;
use satgpu::{Body, Contact, Error, Filter, Polygon, PolygonError, ShapeKind};

fn parse(text: &str) -> satgpu::Result<Scene> {
    parse_scene(text, Path::new("scene.json"))
}

/// A scene with a valid triangle first and `bad` second, so errors must name index 1.
fn with_bad_second(bad: &str) -> String {
    format!(r#"{{"polygons": [{{"vertices": [[0, 0], [1, 0], [0, 1]]}}, {{"vertices": {bad}}}]}}"#)
}

/// The reason given for polygon 1, failing the test on any other outcome.
fn reason_for_second(bad: &str) -> PolygonError {
    match parse(&with_bad_second(bad)) {
        Err(Error::InvalidPolygon { index: 1, reason }) => reason,
        other => panic!("expected InvalidPolygon at index 1 for {bad}, got {other:?}"),
    }
}

#[test]
fn overflowing_json_number_is_a_json_error_with_position() {
    // serde_json refuses to turn 1e999 into infinity: it reports "number out of range" at the
    // end of the literal, so an infinite coordinate can never reach Polygon::new from a file.
    let text = "{\"polygons\": [\n{\"vertices\": [[0, 0], [1e999, 0], [0, 1]]}\n]}";
    match parse(text) {
        Err(Error::Json { path, line, column, message }) => {
            assert_eq!(path, PathBuf::from("scene.json"));
            assert_eq!(line, 2);
            assert_eq!(column, 28, "column should point at the end of 1e999");
            assert!(message.contains("number out of range"), "{message}");
        }
        other => panic!("expected a JSON error, got {other:?}"),
    }
}

#[test]
fn malformed_json_reports_line_and_column() {
    // Missing comma between the second and third vertex, on line 3.
    let text = "{\n  \"polygons\": [\n    {\"vertices\": [[0, 0], [1, 0] [0, 1]]}\n  ]\n}\n";
    match parse(text) {
        Err(Error::Json { path, line, column, message }) => {
            assert_eq!(path, PathBuf::from("scene.json"));
            assert_eq!((line, column), (3, 34), "{message}");
            assert!(message.contains("expected `,` or `]`"), "{message}");
        }
        other => panic!("expected a JSON error, got {other:?}"),
    }
    assert!(matches!(parse(""), Err(Error::Json { line: 1, column: 0, .. })));
    assert!(matches!(parse("[1, 2"), Err(Error::Json { line: 1, column: 5, .. })));
    // Well-formed JSON of the wrong shape inside the array is a JSON error too.
    assert!(matches!(parse(r#"{"polygons": [{"vertices": 3}]}"#), Err(Error::Json { .. })));
}

#[test]
fn missing_polygons_array() {
    for text in [
        r#"{"shapes": []}"#,
        "{}",
        r#"{"polygons": null}"#,
        r#"[{"vertices": [[0, 0], [1, 0], [0, 1]]}]"#,
        "42",
        "  \"polygons\"",
    ] {
        match parse(text) {
            Err(Error::MissingPolygons { path }) => assert_eq!(path, Path::new("scene.json")),
            other => panic!("{text}: expected MissingPolygons, got {other:?}"),
        }
    }
}

#[test]
fn a_bad_polygon_is_named_by_its_index_and_clockwise_input_is_turned() {
    assert_eq!(reason_for_second("[[0, 0], [1, 0]]"), PolygonError::TooFewVertices { count: 2 });
    assert_eq!(reason_for_second("[[0, 0], [1, 1], [2, 2]]"), PolygonError::ZeroArea);
    let too_many: Vec<[f64; 2]> = (0..=MAX_OUTLINE_VERTICES)
        .map(|i| {
            let t = i as f64 * std::f64::consts::TAU / (MAX_OUTLINE_VERTICES + 1) as f64;
            [100.0 * t.cos(), 100.0 * t.sin()]
        })
        .collect();
    let json = serde_json::to_string(&too_many).unwrap();
    // Outlines past MAX_VERTICES are split into parts; past MAX_OUTLINE_VERTICES refused.
    assert_eq!(
        reason_for_second(&json),
        PolygonError::TooManyVertices { count: MAX_OUTLINE_VERTICES + 1, max: MAX_OUTLINE_VERTICES }
    );
    let scene = parse(r#"{"polygons": [{"vertices": [[0, 0], [0, 1], [1, 1], [1, 0]]}]}"#).unwrap();
    assert_eq!(scene.bodies[0].shapes()[0].vertices(), &[[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]);
}

#[test]
fn empty_scene_and_extra_fields_are_valid() {
    assert!(parse(r#"{"polygons": []}"#).unwrap().bodies.is_empty());
    let scene = parse(r#"{"name": "x", "polygons": [{"vertices": [[0, 0], [1, 0], [0, 1]], "color": 3}]}"#).unwrap();
    assert_eq!(scene.len(), 1);
}

#[test]
fn generate_is_deterministic_and_gives_exactly_n_valid_polygons() {
    for kind in SceneKind::ALL {
        for n in [0, 1, 2, 3, 257, 1000] {
            let polys = generate(kind, n, 42);
            assert_eq!(polys.len(), n, "{kind} n={n}");
            for p in &polys {
                assert_eq!(Polygon::from_core(p.vertices().to_vec(), p.radius()).as_ref(), Ok(p), "{kind}");
            }
            assert_eq!(polys, generate(kind, n, 42), "{kind} n={n} not deterministic");
        }
        assert_ne!(generate(kind, 500, 1), generate(kind, 500, 2), "{kind} ignores the seed");
    }
    let grid = generate(SceneKind::Grid, 1000, 5);
    assert!(grid.iter().flat_map(|p| p.vertices()).all(|v| v[0].fract() == 0.0 && v[1].fract() == 0.0));
    assert!(grid.iter().any(|p| p.vertices().len() == 3), "grid should contain triangles");
}

#[test]
fn generate_pins_its_output() {
    // Guards cross-platform and cross-version determinism: these exact values must not change
    // unless the generator is changed on purpose.
    let crowd = generate(SceneKind::Crowd, 10, 1);
    let digest: f64 = crowd.iter().flat_map(|p| p.vertices()).map(|v| v[0] + 2.0 * v[1]).sum();
    assert_eq!(digest, PINNED_CROWD_DIGEST, "crowd digest {digest:?}");
}

const PINNED_CROWD_DIGEST: f64 = 967.741585;

#[test]
fn scene_json_round_trips_exactly() {
    for kind in SceneKind::ALL {
        let scene = Scene::new(generate(kind, 500, 9));
        let text = scene_to_json(&scene);
        let back = parse(&text).unwrap();
        let bits = |s: &Scene| -> Vec<u64> {
            s.shapes().flat_map(|p| p.vertices()).flat_map(|v| v.map(f64::to_bits)).collect()
        };
        assert_eq!(bits(&back), bits(&scene), "{kind}");
        assert_eq!(back, scene);
    }
    // Hand-written values, negative zero and large magnitudes survive as well.
    let scene = parse(r#"{"polygons": [{"vertices": [[-0.0, 0.1], [123456.789, -2.5e-7], [3e10, 7.25]]}]}"#).unwrap();
    let back = parse(&scene_to_json(&scene)).unwrap();
    assert_eq!(back, scene);
    assert!(back.bodies[0].shapes()[0].vertices().iter().any(|v| v[0].to_bits() == (-0.0f64).to_bits()));
}

/// Issue 65: a periodic box reads, writes back the same, defaults its axes to true, and a bad
/// one names the file.
#[test]
fn a_periodic_box_round_trips() {
    let text = r#"{"polygons": [{"vertices": [[0, 0], [1, 0], [0, 1]]}], "periodic": {"box": [-1.5, 0, 1e3, 2.5e-3], "y": false}}"#;
    let scene = parse(text).unwrap();
    let p = scene.periodic.expect("a box");
    assert_eq!((p.bounds(), p.wraps()), ([-1.5, 0.0, 1e3, 2.5e-3], [true, false]));
    let back = parse(&scene_to_json(&scene)).unwrap();
    assert_eq!(back, scene);
    assert!(scene_to_json(&back).contains(r#""periodic": {"box": [-1.5,0.0,1000.0,0.0025], "x": true, "y": false}"#));
    assert_eq!(parse(r#"{"polygons": []}"#).unwrap().periodic, None);
    let bad = parse(r#"{"polygons": [], "periodic": {"box": [0, 0, 1, 1], "x": false, "y": false}}"#).unwrap_err();
    assert!(bad.to_string().contains("scene.json") && bad.to_string().contains("neither axis"), "{bad}");
}

#[test]
fn scene_files_round_trip_and_io_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("satgpu-scene-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.json");
    let scene = Scene::new(generate(SceneKind::Mixed, 200, 3));
    write_scene(&path, &scene).unwrap();
    assert_eq!(read_scene(&path).unwrap(), scene);
    let missing = dir.join("missing.json");
    match read_scene(&missing) {
        Err(Error::Io { path, .. }) => assert_eq!(path, missing),
        other => panic!("expected Io error, got {other:?}"),
    }
    match write_scene(&dir.join("no-such-dir").join("s.json"), &scene) {
        Err(Error::Io { path, .. }) => assert!(path.ends_with("no-such-dir/s.json")),
        other => panic!("expected Io error, got {other:?}"),
    }
    std::fs::write(&path, "{\"polygons\": [}").unwrap();
    assert!(matches!(read_scene(&path), Err(Error::Json { path: p, .. }) if p == path));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn sample_contacts() -> Vec<Contact> {
    vec![
        Contact { a: 0, b: 3, normal: [1.0, 0.0], depth: 0.0 },
        Contact { a: 2, b: 7, normal: [0.6, -0.8], depth: 0.125 },
    ]
}

#[test]
fn csv_has_exact_header_and_one_row_per_contact() {
    let mut out = Vec::new();
    write_contacts_csv(&mut out, &sample_contacts(), Path::new("-")).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines, ["a,b,normal_x,normal_y,depth", "0,3,1.0,0.0,0.0", "2,7,0.6,-0.8,0.125"]);
    let mut empty = Vec::new();
    write_contacts_csv(&mut empty, &[], Path::new("-")).unwrap();
    assert_eq!(String::from_utf8(empty).unwrap(), "a,b,normal_x,normal_y,depth\n");
}

/// The CSV writer is written by hand (the library does not depend on the csv crate); its bytes
/// must equal what the csv crate writes for the same rows, which earlier releases used.
#[test]
fn csv_bytes_equal_the_csv_crates() {
    let mut contacts = sample_contacts();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..2000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let f = f64::from_bits(x >> 2) % 1e6 * if i % 3 == 0 { 1e-30 } else { 1.0 };
        let g = (x >> 11) as f64 / (1u64 << 53) as f64;
        contacts.push(Contact { a: i, b: i + (x % 97) as u32 + 1, normal: [g, -g * 0.5], depth: f.abs() });
    }
    contacts.push(Contact { a: 1, b: 2, normal: [-0.0, 1.0], depth: 1e300 });
    let mut ours = Vec::new();
    write_contacts_csv(&mut ours, &contacts, Path::new("-")).unwrap();
    let mut theirs = csv::Writer::from_writer(Vec::new());
    theirs.write_record(["a", "b", "normal_x", "normal_y", "depth"]).unwrap();
    for c in &contacts {
        theirs.serialize((c.a, c.b, c.normal[0], c.normal[1], c.depth)).unwrap();
    }
    let theirs = theirs.into_inner().unwrap();
    assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
}

#[test]
fn json_contacts_have_the_documented_shape() {
    let mut out = Vec::new();
    write_contacts_json(&mut out, &sample_contacts(), Path::new("-")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[1], serde_json::json!({"a": 2, "b": 7, "normal_x": 0.6, "normal_y": -0.8, "depth": 0.125}));
    let mut empty = Vec::new();
    write_contacts_json(&mut empty, &[], Path::new("-")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&empty).unwrap();
    assert_eq!(v, serde_json::json!({"pairs": []}));
}

/// A writer that always fails, to check that output errors are typed and name the target.
struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("disk on fire"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::Error::other("disk on fire"))
    }
}

#[test]
fn writer_errors_are_io_errors_naming_the_target() {
    let target = Path::new("out/contacts");
    for result in [
        write_contacts_csv(Broken, &sample_contacts(), target),
        write_contacts_json(Broken, &sample_contacts(), target),
    ] {
        match result {
            Err(Error::Io { path, source }) => {
                assert_eq!(path, target);
                assert!(source.to_string().contains("disk on fire"), "{source}");
            }
            other => panic!("expected Io error, got {other:?}"),
        }
    }
}

#[test]
fn scene_kind_names() {
    for kind in SceneKind::ALL {
        assert_eq!(kind.to_string().parse::<SceneKind>(), Ok(kind));
    }
    assert_eq!("grid".parse::<SceneKind>(), Ok(SceneKind::Grid));
    let err = "Crowd".parse::<SceneKind>().unwrap_err();
    for name in ["crowd", "dense", "mixed", "clustered", "grid"] {
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn every_shape_parses_with_its_filter_and_round_trips() {
    let text = r#"{"polygons": [
        {"vertices": [[0, 0], [2, 0], [2, 2], [0, 2]]},
        {"vertices": [[3, 0], [4, 0], [4, 1]], "radius": 0.25, "category": 2, "mask": 5, "group": -3},
        {"circle": {"center": [1, 5], "radius": 0.5}, "group": 7},
        {"capsule": {"a": [0, 8], "b": [3, 9], "radius": 0.125}, "mask": 4294967295}
    ]}"#;
    let scene = parse(text).unwrap();
    let shapes: Vec<&Polygon> = scene.shapes().collect();
    assert!(!scene.compound && scene.bodies.iter().all(|b| b.shapes().len() == 1));
    let kinds: Vec<ShapeKind> = shapes.iter().map(|p| p.kind()).collect();
    assert_eq!(kinds, [ShapeKind::Polygon, ShapeKind::RoundedPolygon, ShapeKind::Circle, ShapeKind::Capsule]);
    assert_eq!(shapes[1].radius(), 0.25);
    assert_eq!(shapes[2].vertices(), &[[1.0, 5.0]]);
    assert_eq!(shapes[3].vertices(), &[[0.0, 8.0], [3.0, 9.0]]);
    let d = Filter::DEFAULT;
    assert_eq!(
        scene.filters,
        [d, Filter { category: 2, mask: 5, group: -3 }, Filter { group: 7, ..d }, d],
        "filters, with the defaults filled in"
    );
    let back = parse(&scene_to_json(&scene)).unwrap();
    assert_eq!(back, scene);
    // A scene without filters keeps none.
    assert!(parse(r#"{"polygons": [{"circle": {"center": [0, 0], "radius": 1}}]}"#).unwrap().filters.is_empty());
}

#[test]
fn bad_shapes_are_typed_errors_naming_the_entry() {
    let reason = |entry: &str| match parse(&format!(
        r#"{{"polygons": [{{"circle": {{"center": [0, 0], "radius": 1}}}}, {entry}]}}"#
    )) {
        Err(Error::InvalidPolygon { index: 1, reason }) => reason,
        other => panic!("{entry}: expected an invalid entry 1, got {other:?}"),
    };
    for r in ["0", "-1", "1e38"] {
        let e = reason(&format!(r#"{{"circle": {{"center": [0, 0], "radius": {r}}}}}"#));
        assert!(matches!(e, PolygonError::BadRadius { .. }), "circle radius {r}: {e:?}");
        let e = reason(&format!(r#"{{"capsule": {{"a": [0, 0], "b": [1, 0], "radius": {r}}}}}"#));
        assert!(matches!(e, PolygonError::BadRadius { .. }), "capsule radius {r}: {e:?}");
    }
    let e = reason(r#"{"vertices": [[0, 0], [1, 0], [0, 1]], "radius": -0.5}"#);
    assert!(matches!(e, PolygonError::BadRadius { radius, .. } if radius == -0.5), "{e:?}");
    assert_eq!(
        reason(r#"{"capsule": {"a": [2, 3], "b": [2, 3], "radius": 1}}"#),
        PolygonError::DegenerateCapsule { x: 2.0, y: 3.0 }
    );
    assert_eq!(reason(r#"{"color": 3}"#), PolygonError::MissingShape);
    assert!(matches!(
        reason(r#"{"circle": {"center": [0, 0], "radius": 1}, "vertices": [[0, 0], [1, 0], [0, 1]]}"#),
        PolygonError::ConflictingShapes { .. }
    ));
    assert!(matches!(
        reason(r#"{"circle": {"center": [0, 0], "radius": 1}, "radius": 2}"#),
        PolygonError::ConflictingShapes { .. }
    ));
    assert!(matches!(
        reason(r#"{"circle": {"center": [1e38, 0], "radius": 1}}"#),
        PolygonError::OutOfRange { vertex: 0, .. }
    ));
    // NaN cannot be written in JSON; through the API it is a BadRadius.
    assert!(matches!(Polygon::circle([0.0, 0.0], f64::NAN), Err(PolygonError::BadRadius { .. })));
    assert!(matches!(
        Polygon::capsule([0.0, 0.0], [f64::NAN, 0.0], 1.0),
        Err(PolygonError::NonFinite { vertex: 1, .. })
    ));
    // Filters out of their types' range are JSON errors with a position.
    for bad in [r#""category": -1"#, r#""mask": 4294967296"#, r#""group": 2147483648"#, r#""group": "a""#] {
        let text = format!(r#"{{"polygons": [{{"circle": {{"center": [0, 0], "radius": 1}}, {bad}}}]}}"#);
        assert!(matches!(parse(&text), Err(Error::Json { .. })), "{bad}");
    }
}

#[test]
fn filters_follow_box2d() {
    let f = |category, mask, group| Filter { category, mask, group };
    assert!(Filter::DEFAULT.should_collide(&Filter::DEFAULT));
    // Same positive group: always, even with disjoint masks; same negative group: never.
    assert!(f(1, 0, 4).should_collide(&f(2, 0, 4)));
    assert!(!f(1, u32::MAX, -4).should_collide(&f(1, u32::MAX, -4)));
    // Different groups (or group 0) fall back to the category and mask bits, both ways.
    assert!(f(1, u32::MAX, -4).should_collide(&f(1, 1, -5)), "different negative groups: the bits decide");
    assert!(f(1, 2, -4).should_collide(&f(2, 1, -5)));
    assert!(!f(1, 2, 0).should_collide(&f(2, 2, 0)), "b's category is in a's mask, but a's is not in b's");
    assert!(!f(4, u32::MAX, 0).should_collide(&f(1, 3, 0)));
    for (a, b) in [(f(1, 2, 0), f(2, 1, 0)), (f(3, 1, 2), f(1, 0, 2)), (f(1, 1, -1), f(1, 1, 1))] {
        assert_eq!(a.should_collide(&b), b.should_collide(&a), "symmetric");
    }
}

/// Issue 22: the parser started its filter list at the first non-default filter, and lost it when
/// that filter was shape 0's. The same two squares, with the filter on the first shape, on the
/// last, on both, and on the only shape of a one-shape scene.
#[test]
fn a_filter_on_the_first_or_the_last_shape_is_kept() {
    let a = r#"{"vertices": [[0,0],[1,0],[1,1],[0,1]], "category": 2, "mask": 3}"#;
    let b = r#"{"vertices": [[0.5,0.5],[1.5,0.5],[1.5,1.5],[0.5,1.5]], "category": 8, "mask": 4294967295}"#;
    let plain = r#"{"vertices": [[0.5,0.5],[1.5,0.5],[1.5,1.5],[0.5,1.5]]}"#;
    let f = |category, mask| Filter { category, mask, group: 0 };
    let d = Filter::DEFAULT;
    for (text, want) in [
        (format!(r#"{{"polygons": [{a}, {b}]}}"#), vec![f(2, 3), f(8, u32::MAX)]),
        (format!(r#"{{"polygons": [{b}, {a}]}}"#), vec![f(8, u32::MAX), f(2, 3)]),
        (format!(r#"{{"polygons": [{a}, {plain}]}}"#), vec![f(2, 3), d]),
        (format!(r#"{{"polygons": [{plain}, {a}]}}"#), vec![d, f(2, 3)]),
        (format!(r#"{{"polygons": [{a}]}}"#), vec![f(2, 3)]),
    ] {
        let scene = parse(&text).unwrap();
        assert_eq!(scene.filters, want, "{text}");
        assert_eq!(parse(&scene_to_json(&scene)).unwrap(), scene, "round trip of {text}");
    }
    // The issue's scene: 8 & 3 == 0, so the reference reports no pair, in either order.
    for text in [format!(r#"{{"polygons": [{a}, {b}]}}"#), format!(r#"{{"polygons": [{b}, {a}]}}"#)] {
        let scene = parse(&text).unwrap();
        assert!(
            satgpu::reference::detect(&scene.bodies, &DetectOptions::default()).contacts.len() == 1,
            "the squares overlap"
        );
        assert!(
            satgpu::reference::detect(&scene.bodies, &DetectOptions::default().with_filters(scene.filters.to_vec()))
                .contacts
                .is_empty(),
            "{text}"
        );
    }
    assert!(parse(r#"{"polygons": []}"#).unwrap().filters.is_empty());
}

mod filters_at_every_position {
    use super::*;
    use proptest::prelude::*;

    fn filter() -> impl Strategy<Value = Option<Filter>> {
        prop_oneof![
            Just(None),
            Just(Some(Filter::DEFAULT)),
            (any::<u32>(), any::<u32>(), any::<i32>()).prop_map(|(category, mask, group)| Some(Filter {
                category,
                mask,
                group
            })),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Scenes of 1 to 12 shapes whose entries carry a filter, a default one written out, or
        /// none, at every position (the first and the last included): the parser gives one
        /// filter per shape exactly as written, or none when every one is the default, and the
        /// scene round-trips through the writer.
        #[test]
        fn parse_exactly_as_written(entries in prop::collection::vec(filter(), 1..12)) {
            let body: Vec<String> = entries
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let square = format!("[[{i},0],[{i}.5,0],[{i}.5,1],[{i},1]]");
                    match f {
                        None => format!(r#"{{"vertices": {square}}}"#),
                        Some(f) => format!(
                            r#"{{"vertices": {square}, "category": {}, "mask": {}, "group": {}}}"#,
                            f.category, f.mask, f.group
                        ),
                    }
                })
                .collect();
            let scene = parse(&format!(r#"{{"polygons": [{}]}}"#, body.join(","))).unwrap();
            let all: Vec<Filter> = entries.iter().map(|f| f.unwrap_or(Filter::DEFAULT)).collect();
            let want = if all.iter().all(|f| *f == Filter::DEFAULT) { vec![] } else { all };
            prop_assert_eq!(&scene.filters, &want);
            prop_assert_eq!(parse(&scene_to_json(&scene)).unwrap(), scene);
        }
    }
}

/// Issue 25: `parts` entries and concave outlines make compound bodies; a part names its place
/// in errors; a compound scene writes and reads back as itself.
#[test]
fn parts_and_concave_outlines_make_compound_bodies() {
    let text = r#"{"polygons": [
        {"vertices": [[0,0],[1,0],[0,1]]},
        {"vertices": [[0,0],[4,0],[4,1],[1,1],[1,4],[0,4]], "radius": 0.25, "mask": 3},
        {"parts": [{"circle": {"center": [0, 0], "radius": 1}}, {"vertices": [[0,0],[2,0],[2,2],[1,0.5],[0,2]]}]}
    ]}"#;
    let scene = parse(text).unwrap();
    assert!(scene.compound);
    assert_eq!(scene.len(), 3);
    let parts: Vec<usize> = scene.bodies.iter().map(|c| c.shapes().len()).collect();
    assert_eq!(parts[0], 1);
    assert!(parts[1] >= 2 && parts[2] >= 3, "{parts:?}");
    assert!(scene.bodies[1].shapes().iter().all(|p| p.radius() == 0.25), "every part of a rounded outline is rounded");
    assert_eq!(scene.filters[1].mask, 3);
    assert_eq!(parse(&scene_to_json(&scene)).unwrap(), scene, "round trip");
    // Every shape, body after body: the one part of the triangle first.
    let shapes: Vec<&Polygon> = scene.shapes().collect();
    assert_eq!(shapes.len(), parts.iter().sum::<usize>());
    assert_eq!(shapes[0], &scene.bodies[0].shapes()[0]);
    assert_eq!(*shapes.last().unwrap(), scene.bodies[2].shapes().last().unwrap());
    // Convex scenes stay as they were, each shape a body of one.
    let convex =
        parse(r#"{"polygons": [{"vertices": [[0,0],[1,0],[0,1]]}, {"circle": {"center": [5, 5], "radius": 1}}]}"#)
            .unwrap();
    assert!(!convex.compound && convex.len() == 2);
    assert!(convex.bodies.iter().all(|b| b.shapes().len() == 1));
    assert_eq!(convex.shapes().map(|p| p.kind()).collect::<Vec<_>>(), [ShapeKind::Polygon, ShapeKind::Circle]);
    assert_eq!(convex.clone().into_shapes(), convex.shapes().cloned().collect::<Vec<_>>());
    assert!(!scene_to_json(&convex).contains("parts"), "a plain scene writes plain entries");
    // A plain scene with walls is compound: every body is written back as parts.
    let mut walled = convex.clone();
    walled.add_walls(vec![Body::chain(&[[9.0, 0.0], [9.0, 9.0]], false, 0.0).unwrap()]);
    assert!(walled.compound && walled.len() == 3);
    assert_eq!(parse(&scene_to_json(&walled)).unwrap(), walled, "round trip with walls");
    assert!(parse(r#"{"polygons": []}"#).unwrap().is_empty());
    // The body of every shape: one each for plain entries, one per segment for a chain.
    assert_eq!(convex.owners(), [0, 1]);
    let mut bent = convex.clone();
    bent.add_walls(vec![Body::chain(&[[9.0, 0.0], [9.0, 9.0], [0.0, 9.0]], false, 0.0).unwrap()]);
    assert_eq!((bent.owners(), bent.shapes().count()), (vec![0, 1, 2, 2], 4));
    assert!(Scene::from_bodies(vec![]).owners().is_empty());
    assert_eq!(Scene::from_bodies(vec![]), parse(r#"{"polygons": []}"#).unwrap(), "no bodies: a plain scene");
    assert!(Scene::from_bodies(vec![Body::from(convex.bodies[0].shapes()[0].clone())]).compound);
    // A convex outline of more than 1,024 vertices is split rather than refused.
    let ring: Vec<String> = (0..2000)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / 2000.0;
            format!("[{}, {}]", a.cos(), a.sin())
        })
        .collect();
    let big = parse(&format!(r#"{{"polygons": [{{"vertices": [{}]}}]}}"#, ring.join(","))).unwrap();
    assert!(big.compound && big.bodies[0].shapes().len() >= 2);
}

#[test]
fn bad_parts_and_outlines_are_named() {
    let second = |entry: &str| match parse(&format!(
        r#"{{"polygons": [{{"circle": {{"center": [0, 0], "radius": 1}}}}, {entry}]}}"#
    )) {
        Err(Error::InvalidPolygon { index: 1, reason }) => reason,
        other => panic!("expected InvalidPolygon at index 1 for {entry}, got {other:?}"),
    };
    let r = second(r#"{"parts": [{"circle": {"center": [0, 0], "radius": 1}}, {"vertices": [[0, 0], [1, 0]]}]}"#);
    assert_eq!(r, PolygonError::InPart { part: 1, reason: Box::new(PolygonError::TooFewVertices { count: 2 }) });
    assert_eq!(
        Error::InvalidPolygon { index: 1, reason: r }.to_string(),
        "polygon 1 part 1 has 2 vertices; a polygon needs at least 3"
    );
    assert_eq!(
        second(r#"{"parts": [{"circle": {"center": [0, 0], "radius": 1}, "group": 2}]}"#),
        PolygonError::PartField { part: 0, field: "group" }
    );
    assert_eq!(
        second(r#"{"parts": [{"parts": [{"circle": {"center": [0, 0], "radius": 1}}]}]}"#),
        PolygonError::PartField { part: 0, field: "parts" }
    );
    assert_eq!(second(r#"{"parts": []}"#), PolygonError::NoParts);
    // Holes are refused, never ignored: on a body, in a part, and on the first entry.
    let square = r#""vertices": [[0, 0], [4, 0], [4, 4], [0, 4]]"#;
    let hole = r#""holes": [[[1, 1], [3, 1], [3, 3], [1, 3]]]"#;
    assert_eq!(second(&format!("{{{square}, {hole}}}")), PolygonError::Holes);
    assert_eq!(
        second(&format!(r#"{{"parts": [{{{square}, {hole}}}]}}"#)),
        PolygonError::InPart { part: 0, reason: Box::new(PolygonError::Holes) }
    );
    match parse(&format!(r#"{{"polygons": [{{{square}, {hole}}}]}}"#)) {
        Err(e @ Error::InvalidPolygon { index: 0, reason: PolygonError::Holes }) => {
            assert!(e.to_string().starts_with(r#"polygon 0 has "holes""#), "{e}");
        }
        other => panic!("expected holes refused at polygon 0, got {other:?}"),
    }
    assert!(matches!(
        second(r#"{"parts": [], "vertices": [[0,0],[1,0],[0,1]]}"#),
        PolygonError::ConflictingShapes { .. }
    ));
    assert_eq!(
        second(r#"{"vertices": [[0,0],[2,2],[2,0],[0,2]]}"#),
        PolygonError::SelfIntersecting { first: 0, second: 2 }
    );
    assert!(matches!(second(r#"{"vertices": [[0,0],[1,0],[1,1],[1,1],[0,1]]}"#), PolygonError::DuplicateVertex { .. }));
    assert!(matches!(
        second(r#"{"vertices": [[0,0],[1,1],[2,2]]}"#),
        PolygonError::ZeroArea | PolygonError::Collinear { .. }
    ));
}

/// What the library's writers and judges are handed by a caller, not only by satgpu: a manifold
/// of no point is written with empty point fields, a contact whose normal is not finite gets a
/// manifold, and bodies of no shape have no band; none of them panics.
#[test]
fn empty_manifolds_bad_normals_and_no_shapes_are_not_panics() {
    let contact = Contact { a: 0, b: 1, normal: [1.0, 0.0], depth: 0.5 };
    let mut csv = vec![];
    satgpu::scene::write_manifolds_csv(&mut csv, &[contact], &[satgpu::Manifold::default()], Path::new("m.csv"))
        .unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(csv.lines().nth(1), Some("0,1,1.0,0.0,0.5,0,0,0,,,,,,"), "{csv}");
    let mut json = vec![];
    satgpu::scene::write_manifolds_json(&mut json, &[contact], &[satgpu::Manifold::default()], Path::new("m.json"))
        .unwrap();
    assert!(String::from_utf8(json).unwrap().contains("\"p1_x\":null"));
    let (a, b) = (Polygon::circle([0.0, 0.0], 1.0).unwrap(), Polygon::circle([1.5, 0.0], 1.0).unwrap());
    let nan = Contact { normal: [f64::NAN, 0.0], ..contact };
    assert_eq!(satgpu::reference::manifold(&a, &b, &nan).points().len(), 1);
    assert_eq!(satgpu::validate::body_band(&[], &[]), 0.0);
    assert!(satgpu::validate::body_band(&[], std::slice::from_ref(&b)) > 0.0);
}
