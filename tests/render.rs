//! `satgpu render` and `satgpu bench --plot` from the outside: the pictures' contents, their
//! formats and the errors on bad input.

mod cli_common;

use std::path::Path;
use std::process::Output;

use cli_common::{expect_bad_input, p, satgpu, stderr, tmp, write};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn ok(args: &[&str]) -> Output {
    let o = satgpu(args);
    assert!(o.status.success(), "{args:?}: stdout {} stderr {}", stdout(&o), stderr(&o));
    o
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}: not a PNG", path.display());
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// A minimal well-formedness check: one root element, tags balanced, no stray `<` or `>` in text.
fn check_svg(svg: &str) {
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let mut open: Vec<&str> = vec![];
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        assert!(!rest[..start].contains('>'), "stray '>' in {:?}", &rest[..start]);
        let end = start + rest[start..].find('>').expect("every tag closes");
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "'<' inside tag {tag:?}");
        let name = tag.trim_start_matches('/').split([' ', '/']).next().unwrap();
        if let Some(closing) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(closing.trim()), "closing {closing}");
        } else if !tag.ends_with('/') {
            open.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed {open:?}");
}

/// Five shapes of every kind; 0 and 1 overlap (depth 1 along +x), the rest stand apart.
const SCENE: &str = r#"{"polygons": [
    {"vertices": [[0,0],[4,0],[4,2],[0,2]]},
    {"vertices": [[3,1],[6,1],[5,4]]},
    {"circle": {"center": [8, 1], "radius": 1.2}},
    {"capsule": {"a": [7, 3.5], "b": [11, 5.5], "radius": 0.6}},
    {"vertices": [[1,4],[3,4],[3,6],[1,6]], "radius": 0.5},
    {"vertices": [[12,0],[14,0],[13,2]]}
]}"#;

#[test]
fn render_draws_each_kind_of_shape_the_pairs_and_a_legend_in_svg_and_png() {
    let scene = write("small.json", SCENE);
    // The `--contacts full` layout: extra columns after depth are ignored.
    let pairs = write("pairs.csv", "a,b,normal_x,normal_y,depth,a_in_b,b_in_a\n0,1,1.0,0.0,1.0,0,0\n");
    let svg_path = tmp("small.svg");
    let o = ok(&["render", p(&scene), "--pairs", p(&pairs), "--out", p(&svg_path)]);
    assert!(stdout(&o).contains("view: all 6 shapes"), "{}", stdout(&o));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    check_svg(&svg);
    assert_eq!(svg.matches(r#"class="shape""#).count(), 6, "one element per shape");
    assert_eq!(svg.matches(r#"<circle class="shape""#).count(), 1, "the circle is a circle");
    // The capsule and the rounded square are outlines with arcs: many points each.
    let rounded = svg.lines().filter(|l| l.starts_with(r#"<path class="shape""#) && l.matches('L').count() > 12);
    assert_eq!(rounded.count(), 2, "capsule and rounded square drawn with arcs");
    assert_eq!(svg.matches(r#"class="mtv""#).count(), 1, "one MTV arrow");
    for needle in [
        "small.json",
        "view: all 6 shapes",
        ">body<",
        "colliding body (2 of 6)",
        "MTV a-&gt;b, length = depth",
        "1 pairs from pairs.csv",
        "axes: world units",
    ] {
        assert!(svg.contains(needle), "the SVG lacks {needle:?}");
    }
    // Colliding bodies in their own colour: the two overlapping shapes, and only them.
    assert_eq!(svg.matches("fill=\"#fc8d59\"").count(), 2 + 1, "two colliding shapes and the legend swatch");

    let png_path = tmp("small.png");
    ok(&["render", p(&scene), "--pairs", p(&pairs), "--out", p(&png_path), "--size", "640"]);
    let (w, h) = png_size(&png_path);
    assert_eq!(w, 640);
    assert!(h > 300 && h < 2000, "height {h}");
    // Shapes only.
    ok(&["render", p(&scene), "--out", p(&tmp("shapes.svg"))]);
    let svg = std::fs::read_to_string(tmp("shapes.svg")).unwrap();
    assert_eq!(svg.matches(r#"class="mtv""#).count(), 0);
    assert!(svg.contains("colliding body (0 of 6)"));
}

#[test]
fn render_rejects_bad_pairs_and_outputs_with_exit_2() {
    let scene = write("bad-scene.json", SCENE);
    let out = tmp("bad.svg");
    let header = "a,b,normal_x,normal_y,depth\n";
    let range = write("range.csv", &format!("{header}0,1,1,0,0.5\n2,6,0,1,0.1\n"));
    expect_bad_input(
        &["render", p(&scene), "--pairs", p(&range), "--out", p(&out)],
        &["range.csv", "line 3", "b = 6", "out of range", "6 shapes"],
    );
    let number = write("number.csv", &format!("{header}0,1,x,0,0.5\n"));
    expect_bad_input(
        &["render", p(&scene), "--pairs", p(&number), "--out", p(&out)],
        &["number.csv", "line 2", "normal_x"],
    );
    let short = write("short.csv", &format!("{header}0,1,1\n"));
    expect_bad_input(
        &["render", p(&scene), "--pairs", p(&short), "--out", p(&out)],
        &["short.csv", "line 2", "3 fields"],
    );
    let no_header = write("noheader.csv", "a,b,nx,ny,depth\n0,1,1,0,0\n");
    expect_bad_input(
        &["render", p(&scene), "--pairs", p(&no_header), "--out", p(&out)],
        &["noheader.csv", "line 1", "normal_x"],
    );
    let missing = tmp("missing.csv");
    expect_bad_input(&["render", p(&scene), "--pairs", p(&missing), "--out", p(&out)], &["missing.csv"]);
    expect_bad_input(&["render", p(&scene), "--out", p(&tmp("x.jpg"))], &["x.jpg", "--out must end in .svg or .png"]);
    expect_bad_input(&["render", p(&scene), "--pairs", p(&range), "--detect", "--out", p(&out)], &["--detect"]);
    expect_bad_input(&["render", p(&scene), "--window", "0,0,1", "--out", p(&out)], &["--window"]);
    expect_bad_input(&["render", p(&scene), "--size", "10", "--out", p(&out)], &["--size"]);
    assert!(!out.exists(), "nothing written on bad input");
}

#[test]
fn render_detect_draws_every_pair_the_gpu_finds() {
    let scene = tmp("mixed100.json");
    ok(&["gen", "--kind", "mixed", "--n", "100", "--seed", "1", "--out", p(&scene)]);
    let csv = tmp("mixed100.csv");
    ok(&["detect", p(&scene), "--out", p(&csv)]);
    let pairs = std::fs::read_to_string(&csv).unwrap().lines().count() - 1;
    assert!(pairs > 5, "the mixed scene has pairs");
    let svg_path = tmp("mixed100.svg");
    let o = ok(&["render", p(&scene), "--detect", "--out", p(&svg_path)]);
    assert!(stdout(&o).contains(&format!("{pairs} colliding pairs")), "{}", stdout(&o));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    check_svg(&svg);
    assert_eq!(svg.matches(r#"class="mtv""#).count(), pairs, "one arrow per pair");
    assert!(svg.contains(&format!("{pairs} pairs detected on the GPU")));
    // The same pairs from the file draw the same picture, but for the legend line.
    let from_file = tmp("mixed100-file.svg");
    ok(&["render", p(&scene), "--pairs", p(&csv), "--out", p(&from_file)]);
    let file_svg = std::fs::read_to_string(&from_file).unwrap();
    let arrows = |s: &str| s.lines().filter(|l| l.contains(r#"class="mtv""#)).map(String::from).collect::<Vec<_>>();
    assert_eq!(arrows(&svg), arrows(&file_svg));
    let png = tmp("mixed100.png");
    ok(&["render", p(&scene), "--detect", "--out", p(&png)]);
    assert_eq!(png_size(&png).0, 1000, "default width");
}

#[test]
fn render_draws_a_segment_of_no_thickness_as_a_line() {
    let square = r#"{"vertices": [[4, -1], [5, -1], [5, 1], [4, 1]]}"#;
    let lines = |name: &str, entries: &str| {
        let scene = write(&format!("{name}.json"), &format!(r#"{{"polygons": [{entries}]}}"#));
        let svg_path = tmp(&format!("{name}.svg"));
        ok(&["render", p(&scene), "--window", "-1,-2,6,2", "--out", p(&svg_path)]);
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        check_svg(&svg);
        svg.matches("<line ").count()
    };
    let with = lines("wall", &format!(r#"{square}, {{"segment": {{"a": [0, 0], "b": [4, 0]}}}}"#));
    let without = lines("no-wall", square);
    assert_eq!(with, without + 1, "the segment is one line");
}

#[test]
fn render_crops_a_10k_crowd_and_says_which_view() {
    let scene = tmp("crowd10k.json");
    ok(&["gen", "--kind", "crowd", "--n", "10000", "--out", p(&scene)]);
    let png = tmp("crowd10k.png");
    let o = ok(&["render", p(&scene), "--detect", "--out", p(&png)]);
    assert!(stdout(&o).contains("view: crop of densest area"), "{}", stdout(&o));
    assert_eq!(png_size(&png).0, 1000);
    let svg_path = tmp("crowd10k.svg");
    ok(&["render", p(&scene), "--out", p(&svg_path)]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    check_svg(&svg);
    let title = svg.lines().find(|l| l.contains("view: crop of densest area")).expect("the title names the view");
    assert!(title.contains("of 10000 shapes"), "{title}");
    let drawn = svg.matches(r#"class="shape""#).count();
    assert!((800..=1500).contains(&drawn), "{drawn} shapes drawn in the crop");
    assert!(svg.contains(">whole scene<") && svg.contains(r#"class="overview""#), "the overview map");
    // The whole scene as a density map, and an explicit window.
    let density = tmp("density.svg");
    ok(&["render", p(&scene), "--view", "density", "--out", p(&density)]);
    let svg = std::fs::read_to_string(&density).unwrap();
    assert!(svg.contains("view: density, 10000 shapes") && svg.contains("shapes per cell"));
    assert_eq!(svg.matches(r#"class="shape""#).count(), 0);
    let window = tmp("window.svg");
    let o = ok(&["render", p(&scene), "--window", "10,10,30,30", "--out", p(&window)]);
    assert!(stdout(&o).contains("view: crop, "), "{}", stdout(&o));
}

#[test]
fn bench_plot_draws_every_pass() {
    let svg_path = tmp("bench.svg");
    let json = tmp("bench.json");
    ok(&["bench", "--kind", "crowd", "--n", "1000", "--frames", "1", "--plot", p(&svg_path), "--json", p(&json)]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    check_svg(&svg);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let passes: Vec<&String> = v[0]["passes"].as_object().unwrap().keys().collect();
    let per_pass = passes.iter().any(|k| !["upload", "gpu_total", "readback"].contains(&k.as_str()));
    for name in &passes {
        let shown = svg.contains(&format!(">{name}</text>"));
        if per_pass && name.as_str() == "gpu_total" {
            assert!(!shown, "gpu_total would count the passes twice");
        } else {
            assert!(shown, "pass {name} missing from the plot");
        }
    }
    assert!(svg.contains("crowd n=1000") && svg.contains("milliseconds") && svg.contains("host wall clock"));
    assert!(svg.contains(v[0]["adapter"].as_str().unwrap().split(' ').next().unwrap()), "the adapter");
    expect_bad_input(
        &["bench", "--n", "10", "--frames", "1", "--plot", p(&tmp("plot.txt"))],
        &["--plot must end in .svg or .png"],
    );
}
