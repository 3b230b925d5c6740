//! Tests of the drawing of scenes (render/mod.rs).

use super::*;

#[test]
fn a_capsule_outline_is_a_stadium_and_a_polygon_outline_its_vertices() {
    let (a, b, r) = ([1.0, 2.0], [5.0, 4.0], 0.5);
    let capsule = Polygon::capsule(a, b, r).unwrap();
    let points = outline(&capsule, 100.0);
    assert!(points.len() > 16, "arcs at 50 px radius need many steps: {}", points.len());
    for p in &points {
        // Distance to the segment a-b.
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
        let d = (p[0] - a[0] - t * dx).hypot(p[1] - a[1] - t * dy);
        assert!((d - r).abs() < 1e-9, "{p:?} is {d} from the core");
    }
    let square = Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]).unwrap();
    assert_eq!(outline(&square, 100.0), square.vertices());
}

#[test]
fn static_shapes_are_grey_and_never_colliding() {
    let mut shapes: Vec<Polygon> = (0..10).map(|i| Polygon::circle([i as f64 * 3.0, 1.0], 1.0).unwrap()).collect();
    shapes.push(Polygon::new(vec![[-2.0, -1.0], [30.0, -1.0], [30.0, 0.5], [-2.0, 0.5]]).unwrap());
    let mut fixed = vec![false; 10];
    fixed.push(true);
    let contacts = [Contact { a: 0, b: 10, normal: [0.0, -1.0], depth: 0.5 }];
    let options = Options { view: View::All, title: "walls".into(), ..Options::default() };
    let picture = draw_bodies(
        &Bodies {
            shapes: &shapes,
            fixed: &fixed,
            contacts: &contacts,
            groups: &[],
            group_names: ["", ""],
            owners: &[],
            image_of: &[],
            periodic: None,
        },
        &options,
    );
    let svg = picture.drawing.to_svg();
    assert!(svg.contains("colliding body (1 of 11)") && svg.contains("static shape (1)"), "{svg}");
    assert_eq!(svg.matches(r#"class="mtv""#).count(), 1);
    assert_eq!(picture.view, "view: all 11 shapes");
}

#[test]
fn the_second_group_has_its_own_colour_and_legend_entry() {
    let shapes: Vec<Polygon> = (0..4).map(|i| Polygon::circle([i as f64 * 3.0, 0.0], 1.0).unwrap()).collect();
    let groups = [false, true, true, false];
    let bodies = Bodies {
        shapes: &shapes,
        fixed: &[],
        contacts: &[],
        groups: &groups,
        group_names: ["east", "west"],
        owners: &[],
        image_of: &[],
        periodic: None,
    };
    let svg = draw_bodies(&bodies, &Options { view: View::All, ..Options::default() }).drawing.to_svg();
    assert!(svg.contains("body, east") && svg.contains("body, west"), "{svg}");
    // Two shapes and the legend swatch in each colour.
    assert_eq!(svg.matches(r##"fill="#a1d99b""##).count(), 3, "{svg}");
    assert_eq!(svg.matches(r##"fill="#9ecae1""##).count(), 3, "{svg}");
}

#[test]
fn auto_window_holds_about_the_target_and_auto_crops_above_the_limit() {
    let shapes: Vec<Polygon> = (0..10_000)
        .map(|i| {
            let (x, y) = ((i % 100) as f64 * 2.0, (i / 100) as f64 * 2.0);
            Polygon::new(vec![[x, y], [x + 1.0, y], [x, y + 1.0]]).unwrap()
        })
        .collect();
    let w = auto_window(&shapes, CROP_TARGET);
    let inside = shapes.iter().filter(|p| contains(&w, centre(&p.aabb()))).count();
    assert!((CROP_TARGET..CROP_TARGET + 150).contains(&inside), "{inside} in {w:?}");
    // A uniform scene is cropped in its middle.
    assert!((centre(&w)[0] - 99.0).abs() < 20.0 && (centre(&w)[1] - 99.0).abs() < 20.0, "{w:?}");
    let picture = draw_bodies(
        &Bodies {
            shapes: &shapes,
            fixed: &[],
            contacts: &[],
            groups: &[],
            group_names: ["", ""],
            owners: &[],
            image_of: &[],
            periodic: None,
        },
        &Options::default(),
    );
    assert!(picture.view.starts_with("view: crop of densest area"), "{}", picture.view);
    assert!(picture.drawing.to_png().unwrap().starts_with(b"\x89PNG"));
}
