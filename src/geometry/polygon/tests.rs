//! Tests of `polygon.rs`.

use super::*;

fn regular(k: usize) -> Vec<[f64; 2]> {
    (0..k)
        .map(|i| {
            let t = i as f64 * std::f64::consts::TAU / k as f64;
            [100.0 * t.cos(), 100.0 * t.sin()]
        })
        .collect()
}

fn reason(vertices: &[[f64; 2]]) -> PolygonError {
    Polygon::new(vertices.to_vec()).expect_err("invalid polygon accepted")
}

#[test]
fn too_few_vertices() {
    assert_eq!(reason(&[[0.0, 0.0], [1.0, 0.0]]), PolygonError::TooFewVertices { count: 2 });
    assert_eq!(reason(&[]), PolygonError::TooFewVertices { count: 0 });
}

#[test]
fn nan_and_infinite_coordinates() {
    assert!(matches!(reason(&[[0.0, 0.0], [f64::NAN, 0.0], [0.0, 1.0]]), PolygonError::NonFinite { vertex: 1, .. }));
    assert_eq!(
        reason(&[[0.0, 0.0], [1.0, 0.0], [0.0, f64::INFINITY]]),
        PolygonError::NonFinite { vertex: 2, x: 0.0, y: f64::INFINITY }
    );
    assert!(matches!(
        reason(&[[f64::NEG_INFINITY, 0.0], [1.0, 0.0], [0.0, 1.0]]),
        PolygonError::NonFinite { vertex: 0, .. }
    ));
}

#[test]
fn duplicate_points() {
    let dup = reason(&[[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    assert_eq!(dup, PolygonError::DuplicateVertex { vertex: 2, x: 1.0, y: 0.0 });
    // Repeating the first vertex at the end (closing the ring) is a duplicate too.
    let closed = reason(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]);
    assert_eq!(closed, PolygonError::DuplicateVertex { vertex: 0, x: 0.0, y: 0.0 });
}

#[test]
fn collinear_points() {
    let square_with_midpoint = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
    assert_eq!(reason(&square_with_midpoint), PolygonError::Collinear { vertex: 1 });
}

#[test]
fn zero_area() {
    assert_eq!(reason(&[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), PolygonError::ZeroArea);
    assert_eq!(reason(&[[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [2.0, 0.0]]), PolygonError::ZeroArea);
}

#[test]
fn non_convex_l_shape_and_pentagram() {
    let l_shape = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]];
    assert_eq!(reason(&l_shape), PolygonError::NonConvex { vertex: 3 });
    // A pentagram turns the same way at every vertex but winds around twice.
    let pentagon = regular(5);
    let star: Vec<_> = (0..5).map(|i| pentagon[(2 * i) % 5]).collect();
    assert_eq!(reason(&star), PolygonError::SelfIntersecting { first: 0, second: 2 });
    assert!(Polygon::new(pentagon).is_ok());
}

/// Issue 29: a bow-tie was "zero area (collinear)" and a lopsided one "not convex"; both
/// name the two edges that cross. A simple concave outline stays NonConvex.
#[test]
fn self_intersecting_outlines_name_the_edges_that_cross() {
    let bow_tie = [[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]];
    assert_eq!(reason(&bow_tie), PolygonError::SelfIntersecting { first: 0, second: 2 });
    let lopsided = [[0.0, 0.0], [4.0, 3.0], [4.0, 0.0], [0.0, 1.0]];
    assert_eq!(reason(&lopsided), PolygonError::SelfIntersecting { first: 0, second: 2 });
    assert_eq!(
        PolygonError::SelfIntersecting { first: 0, second: 2 }.to_string(),
        "intersects itself: edges 0 and 2 cross (edge k runs from vertex k to the next)"
    );
    // Edges 1 and 3 cross here; a vertex touching a non-adjacent edge counts too.
    let twisted = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
    assert_eq!(reason(&twisted), PolygonError::SelfIntersecting { first: 1, second: 3 });
    let pinched = [[0.0, 0.0], [4.0, 0.0], [2.0, 2.0], [4.0, 4.0], [0.0, 4.0], [2.0, 2.0]];
    assert!(matches!(reason(&pinched), PolygonError::SelfIntersecting { .. }), "{:?}", reason(&pinched));
    // In clockwise order too.
    let mut backwards = bow_tie;
    backwards.reverse();
    assert!(matches!(reason(&backwards), PolygonError::SelfIntersecting { .. }));
}

#[test]
fn vertex_count_limit() {
    assert_eq!(
        reason(&regular(MAX_VERTICES + 1)),
        PolygonError::TooManyVertices { count: MAX_VERTICES + 1, max: MAX_VERTICES }
    );
    assert_eq!(Polygon::new(regular(MAX_VERTICES)).unwrap().vertices().len(), MAX_VERTICES);
}

#[test]
fn clockwise_input_is_stored_counter_clockwise() {
    let p = Polygon::new(vec![[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]).unwrap();
    let v = p.vertices();
    assert_eq!(v, &[[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]);
    let area2: f64 = (0..v.len())
        .map(|i| {
            let (a, b) = (v[i], v[(i + 1) % v.len()]);
            a[0] * b[1] - a[1] * b[0]
        })
        .sum();
    assert_eq!(area2, 2.0);
}

/// `from_core` takes a core that is convex and counter-clockwise exactly as it is, as the parts
/// of concave outlines are, though `new` refuses its all but straight corner: every shape is
/// rebuilt from its core bit for bit (what pickling in Python relies on).
#[test]
fn from_core_rebuilds_a_core_that_new_refuses_as_all_but_straight() {
    let core = vec![[0.0, 0.0], [1.0, 0.0], [2.0, 1e-13], [2.0, 1.0], [0.0, 1.0]];
    assert!(Polygon::new(core.clone()).is_err(), "the case needs a core `new` refuses");
    let p = Polygon::from_core(core.clone(), 0.25).unwrap();
    assert_eq!((p.vertices(), p.radius()), (&core[..], 0.25));
    let again = Polygon::from_core(p.vertices().to_vec(), p.radius()).unwrap();
    assert_eq!(format!("{again:?}"), format!("{p:?}"));
    // Clockwise, or not convex exactly: as `rounded` decides.
    let clockwise: Vec<_> = core.iter().rev().copied().collect();
    assert!(Polygon::from_core(clockwise, 0.0).is_err());
    assert!(Polygon::from_core(vec![[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0]], 0.0).is_err());
}
