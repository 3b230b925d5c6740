//! Issue 44, continuous collision: the f64 reference (`reference::sweep`) on what a frame's
//! discrete test misses (a small fast body shot through a thin wall, two bodies that pass
//! through each other), head-on and rotating sweeps against their closed forms, pairs touching at
//! the start, filters, compound bodies, and conservative advancement against the exact cast on
//! translations (a circle turning about its centre is the same circle).

use std::f64::consts::{FRAC_PI_2, PI};

use satgpu::reference::{detect, sweep};
use satgpu::{Body, DetectOptions, Filter, Impact, Polygon, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn pose(x: f64, y: f64, angle: f64) -> Transform {
    Transform { x, y, angle }
}

#[test]
fn a_fast_small_body_shot_through_a_thin_wall_is_caught() {
    // A wall 0.01 thick at x = 5; a ball of radius 0.05 from x = 0 to x = 10 in one frame.
    let bodies = [rect(-0.005, -2.0, 0.005, 2.0), Polygon::circle([0.0, 0.0], 0.05).unwrap()];
    let start = [pose(5.0, 0.0, 0.0), pose(0.0, 0.0, 0.0)];
    let end = [pose(5.0, 0.0, 0.0), pose(10.0, 0.0, 0.0)];
    let placed =
        |poses: &[Transform]| -> Vec<Polygon> { bodies.iter().zip(poses).map(|(b, t)| b.transformed(t)).collect() };
    // Neither frame's discrete test sees it.
    for poses in [&start, &end] {
        assert!(detect(&placed(poses), &DetectOptions::default()).contacts.is_empty());
    }
    let found = sweep(&bodies, &start, &end, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    let Impact { a, b, toi } = found[0];
    assert_eq!((a, b), (0, 1));
    assert!((toi - (5.0 - 0.005 - 0.05) / 10.0).abs() < 1e-12, "{toi}");
    // Filtered apart, nothing.
    let mut filters = vec![Filter::DEFAULT; 2];
    filters[1].mask = 0;
    assert!(sweep(&bodies, &start, &end, &filters).is_empty());
}

#[test]
fn sweeps_by_hand() {
    let square = rect(-0.5, -0.5, 0.5, 0.5);
    let ball = Polygon::circle([0.0, 0.0], 0.5).unwrap();
    // Head on, both moving: gap 4, closing at 3 per frame, touching at 4/3 of... never (1 frame
    // closes 3); closing at 8: at one half.
    let bodies = [square.clone(), ball.clone()];
    let apart = [pose(0.0, 0.0, 0.0), pose(5.0, 0.0, 0.0)];
    assert!(sweep(&bodies, &apart, &[pose(1.0, 0.0, 0.0), pose(3.0, 0.0, 0.0)], &[]).is_empty());
    let hit = sweep(&bodies, &apart, &[pose(4.0, 0.0, 0.0), pose(1.0, 0.0, 0.0)], &[]);
    assert!(hit.len() == 1 && (hit[0].toi - 0.5).abs() < 1e-12, "{hit:?}");
    // Passing through each other mid-frame and apart again at the end.
    let through = sweep(&bodies, &apart, &[pose(5.0, 0.0, 0.0), pose(0.0, 0.0, 0.0)], &[]);
    assert!(through.len() == 1 && (through[0].toi - 0.4).abs() < 1e-12, "{through:?}");
    // Touching at the start (and at the end), and still: at 0; apart and still: nothing.
    let touching = [pose(0.0, 0.0, 0.0), pose(1.0, 0.0, 0.0)];
    assert_eq!(sweep(&bodies, &touching, &touching, &[]), [Impact { a: 0, b: 1, toi: 0.0 }]);
    assert!(sweep(&bodies, &apart, &apart, &[]).is_empty());
    // A bar (a segment of half length 1) turning a quarter turn about its centre sweeps over a
    // ball of radius 0.1 at (0, 0.5): it first touches where its line passes 0.1 from the
    // ball's centre, 0.5 cos(angle) = 0.1.
    let bar = [Polygon::segment([-1.0, 0.0], [1.0, 0.0], 0.0).unwrap(), Polygon::circle([0.0, 0.0], 0.1).unwrap()];
    let start = [pose(0.0, 0.0, 0.0), pose(0.0, 0.5, 0.0)];
    let end = [pose(0.0, 0.0, FRAC_PI_2), pose(0.0, 0.5, 0.0)];
    let turn = sweep(&bar, &start, &end, &[]);
    let want = 0.2f64.acos() / FRAC_PI_2;
    assert!(turn.len() == 1 && (turn[0].toi - want).abs() < 1e-6, "{turn:?} against {want}");
    assert!(turn[0].toi <= want, "conservative advancement never passes the touch");
    // Turning less than that, the other way: it never reaches the ball.
    let away = [pose(0.0, 0.0, -FRAC_PI_2 + 0.5), pose(0.0, 0.5, 0.0)];
    assert!(sweep(&bar, &start, &away, &[]).is_empty());
    // Compound bodies: an ell swept down onto a square touches with its lower arm.
    let ell = Body::concave(&[[0.0, 0.0], [2.0, 0.0], [2.0, 0.5], [0.5, 0.5], [0.5, 2.0], [0.0, 2.0]]).unwrap();
    let bodies = [ell, Body::from(rect(0.0, 0.0, 1.0, 1.0))];
    let fall =
        sweep(&bodies, &[pose(0.0, 3.0, 0.0), pose(0.0, 0.0, 0.0)], &[pose(0.0, -1.0, 0.0), pose(0.0, 0.0, 0.0)], &[]);
    assert!(fall.len() == 1 && (fall[0].toi - 0.5).abs() < 1e-12, "{fall:?}");
}

#[test]
fn conservative_advancement_agrees_with_the_exact_cast_on_translations() {
    // Squares turned by a ten-millionth of a radian take the advancing path; their first touch
    // differs from the unturned squares' exact cast by no more than that turn moves them.
    let mut checked = 0;
    for k in 0..200 {
        let f = |x: f64| ((k as f64 + 1.0) * x).sin();
        let h = [0.2 + 0.1 * f(1.3).abs(), 0.3 + 0.2 * f(2.1).abs()];
        let bodies = [rect(-h[0], -h[0], h[0], h[0]), rect(-h[1], -h[1], h[1], h[1])];
        let start = [pose(0.0, 0.0, 0.0), pose(3.0 * f(0.7), 3.0 * f(1.9), 0.0)];
        let end = [pose(2.0 * f(3.1), 2.0 * f(0.3), 0.0), pose(-3.0 * f(1.1), -3.0 * f(2.7), 0.0)];
        let exact = sweep(&bodies, &start, &end, &[]);
        let turned = [pose(end[0].x, end[0].y, 1e-7), pose(end[1].x, end[1].y, -1e-7)];
        let advanced = sweep(&bodies, &start, &turned, &[]);
        assert_eq!(exact.len(), advanced.len(), "{k}: {exact:?} {advanced:?}");
        if let (Some(e), Some(a)) = (exact.first(), advanced.first()) {
            assert!((e.toi - a.toi).abs() < 1e-6, "{k}: {e:?} {a:?}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} pairs touched");
}

#[test]
fn near_misses_while_turning_are_not_touches() {
    // A disc spinning a whole turn beside another, 1e-5 apart; a ball rolling (turning as it
    // goes) 1e-6 above the ground; a square turning a quarter turn 1e-4 beyond its reach.
    let ball = Polygon::circle([0.0, 0.0], 1.0).unwrap();
    let spin = sweep(
        &[ball.clone(), ball.clone()],
        &[pose(0.0, 0.0, 0.0), pose(2.00001, 0.0, 0.0)],
        &[pose(0.0, 0.0, 2.0 * PI), pose(2.00001, 0.0, 0.0)],
        &[],
    );
    assert!(spin.is_empty(), "{spin:?}");
    let ground = rect(-10.0, -1.0, 10.0, 0.0);
    let roll = sweep(
        &[ground, ball],
        &[pose(0.0, 0.0, 0.0), pose(0.0, 1.000001, 0.0)],
        &[pose(0.0, 0.0, 0.0), pose(1.0, 1.000001, -1.0)],
        &[],
    );
    assert!(roll.is_empty(), "{roll:?}");
    let reach = 0.5f64.sqrt();
    let square = rect(-0.5, -0.5, 0.5, 0.5);
    let dot = Polygon::circle([0.0, 0.0], 0.01).unwrap();
    let gap = reach + 0.01 + 1e-4;
    let turn = sweep(
        &[square.clone(), dot.clone()],
        &[pose(0.0, 0.0, 0.0), pose(gap, 0.0, 0.0)],
        &[pose(0.0, 0.0, FRAC_PI_2), pose(gap, 0.0, 0.0)],
        &[],
    );
    assert!(turn.is_empty(), "{turn:?}");
    // 1e-4 inside its reach, the corner sweeps over the dot (at a quarter of the turn, closed
    // form: the corner's angle pi/4 from the x axis).
    let inside = reach + 0.01 - 1e-4;
    let hit = sweep(
        &[square, dot],
        &[pose(0.0, 0.0, 0.0), pose(inside, 0.0, 0.0)],
        &[pose(0.0, 0.0, FRAC_PI_2), pose(inside, 0.0, 0.0)],
        &[],
    );
    assert!(hit.len() == 1 && (hit[0].toi - 0.5).abs() < 0.05, "{hit:?}");
}
