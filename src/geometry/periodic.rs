//! A periodic box (issue 65): bodies on a torus, or on a cylinder where one axis wraps.
//!
//! The box is `[x0, x1) x [y0, y1)`; along a wrapping axis a body and its images, moved by whole
//! box sizes, are one body. A pair of bodies is judged between `a` and the image of `b` that
//! touches it (the minimum image): the box must be wide enough that at most one image can, which
//! [`Periodic::check_extent`] decides.

use crate::error::{Error, Result};
use crate::geometry::{Aabb, MAX_COORDINATE};

/// A periodic box: its rectangle and which axes wrap.
///
/// ```
/// # use satgpu::Periodic;
/// let torus = Periodic::new([0.0, 0.0, 100.0, 50.0], [true, true])?;
/// assert_eq!(torus.size(), [100.0, 50.0]);
/// let channel = Periodic::new([0.0, 0.0, 100.0, 50.0], [true, false])?;
/// assert_eq!(channel.wraps(), [true, false]);
/// # Ok::<(), satgpu::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Periodic {
    min: [f64; 2],
    max: [f64; 2],
    wraps: [bool; 2],
}

impl Periodic {
    /// The box `[x0, y0, x1, y1]`, wrapping the axes where `wraps` (`[x, y]`) is true.
    ///
    /// [`Error::InvalidSetting`] (`"periodic box"`) where a corner is NaN, infinite or past
    /// [`MAX_COORDINATE`], where a wrapping axis's size is not positive (or overflows), or where
    /// no axis wraps.
    pub fn new(bounds: [f64; 4], wraps: [bool; 2]) -> Result<Periodic> {
        let refuse = |detail: String| Err(Error::InvalidSetting { what: "periodic box", detail });
        let [x0, y0, x1, y1] = bounds;
        if let Some(c) = bounds.iter().find(|c| c.is_nan() || c.abs() > MAX_COORDINATE) {
            return refuse(format!("{bounds:?}: corner coordinate {c} is not finite within +-{MAX_COORDINATE:e}"));
        }
        if !wraps.contains(&true) {
            return refuse(format!("{bounds:?}: wraps neither axis (give x, y or both)"));
        }
        for (axis, (lo, hi)) in ["x", "y"].into_iter().zip([(x0, x1), (y0, y1)]) {
            // Checked on every axis: the box also bounds what a non-wrapping axis's queries see.
            let size = hi - lo;
            if !(size > 0.0 && size <= MAX_COORDINATE) {
                return refuse(format!(
                    "{bounds:?}: its size along {axis} is {size}, not positive within {MAX_COORDINATE:e}"
                ));
            }
        }
        Ok(Periodic { min: [x0, y0], max: [x1, y1], wraps })
    }

    /// The box as `[x0, y0, x1, y1]`.
    pub fn bounds(&self) -> [f64; 4] {
        [self.min[0], self.min[1], self.max[0], self.max[1]]
    }

    /// Which axes wrap, `[x, y]`.
    pub fn wraps(&self) -> [bool; 2] {
        self.wraps
    }

    /// The box's width and height.
    pub fn size(&self) -> [f64; 2] {
        [self.max[0] - self.min[0], self.max[1] - self.min[1]]
    }

    /// The whole number of boxes `n`, per axis, that moves `p` into the box: `p + n * size` lies
    /// in `[x0, x1) x [y0, y1)` up to f64's rounding (0 on an axis that does not wrap).
    pub fn cell_shift(&self, p: [f64; 2]) -> [f64; 2] {
        let size = self.size();
        std::array::from_fn(|k| if self.wraps[k] { -((p[k] - self.min[k]) / size[k]).floor() + 0.0 } else { 0.0 })
    }

    /// `p` moved by whole boxes into the box, in f64 and rounded to f32 again (`p` itself where it
    /// lies in the box): a pose's translation as the GPU reads it.
    pub(crate) fn wrap_f32(&self, p: [f32; 2]) -> [f32; 2] {
        let x = p.map(f64::from);
        let n = self.cell_shift(x);
        if n == [0.0; 2] {
            return p;
        }
        let size = self.size();
        [(x[0] + n[0] * size[0]) as f32, (x[1] + n[1] * size[1]) as f32]
    }

    /// Whether a body whose box is `extent` wide and tall fits, under `margin`: on each wrapping
    /// axis the box must be wider than twice the body's extent plus the margin
    /// (`size > 2 (extent + margin)`), so that at most one image of any body lies within the
    /// margin of another. [`Error::InvalidSetting`] (`"periodic box"`) naming `body`, the axis
    /// and how much wider the box must be otherwise.
    pub fn check_extent(&self, body: usize, extent: [f64; 2], margin: f64) -> Result<()> {
        let size = self.size();
        for k in 0..2 {
            let need = 2.0 * (extent[k] + margin);
            if self.wraps[k] && (size[k] <= need || need.is_nan()) {
                let (axis, side) = (["x", "y"][k], ["width", "height"][k]);
                let detail = format!(
                    "body {body} is {} along {axis}; the box's {side} {} must exceed twice that plus twice the margin {margin} ({need}): {} short",
                    extent[k],
                    size[k],
                    need - size[k]
                );
                return Err(Error::InvalidSetting { what: "periodic box", detail });
            }
        }
        Ok(())
    }

    /// [`check_extent`](Periodic::check_extent) for every body of `boxes`, in order (the first
    /// that does not fit is named).
    pub fn check_boxes(&self, boxes: impl IntoIterator<Item = Aabb>, margin: f64) -> Result<()> {
        for (i, b) in boxes.into_iter().enumerate() {
            self.check_extent(i, [b.max[0] - b.min[0], b.max[1] - b.min[1]], margin)?;
        }
        Ok(())
    }
}

/// Which axes of a periodic box wrap, by word, as Python's `periodic_axes` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeriodicAxes {
    /// x wraps (a cylinder round x).
    X,
    /// y wraps.
    Y,
    /// Both wrap (a torus).
    Xy,
}

impl PeriodicAxes {
    /// `[x, y]`: whether each wraps.
    pub fn wraps(self) -> [bool; 2] {
        [self != PeriodicAxes::Y, self != PeriodicAxes::X]
    }

    /// The value that wraps `wraps` (`None` where neither does).
    pub fn of(wraps: [bool; 2]) -> Option<PeriodicAxes> {
        match wraps {
            [true, true] => Some(PeriodicAxes::Xy),
            [true, false] => Some(PeriodicAxes::X),
            [false, true] => Some(PeriodicAxes::Y),
            [false, false] => None,
        }
    }
}

crate::named::named!(
    PeriodicAxes,
    "periodic_axes",
    [
        (PeriodicAxes::Xy, "xy", "both axes wrap: a torus"),
        (PeriodicAxes::X, "x", "x wraps: bodies past the left or right edge come back at the other"),
        (PeriodicAxes::Y, "y", "y wraps"),
    ]
);

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(r: Result<Periodic>) -> String {
        match r {
            Err(Error::InvalidSetting { what: "periodic box", detail }) => detail,
            other => panic!("expected a refused periodic box, got {other:?}"),
        }
    }

    #[test]
    fn bad_boxes_are_refused_by_name() {
        assert!(refused(Periodic::new([0.0, 0.0, f64::NAN, 1.0], [true; 2])).contains("NaN"));
        assert!(refused(Periodic::new([0.0, 0.0, f64::INFINITY, 1.0], [true; 2])).contains("inf"));
        assert!(refused(Periodic::new([0.0, 0.0, 2e37, 1.0], [true; 2])).contains("2e37"));
        assert!(refused(Periodic::new([0.0, 0.0, 0.0, 1.0], [true; 2])).contains("along x is 0"));
        assert!(refused(Periodic::new([0.0, 1.0, 1.0, -1.0], [true; 2])).contains("along y is -2"));
        assert!(refused(Periodic::new([-1e37, 0.0, 1e37, 1.0], [true; 2])).contains("along x is 2000"));
        assert!(refused(Periodic::new([0.0, 0.0, 1.0, 1.0], [false; 2])).contains("neither axis"));
        let ok = Periodic::new([-1e37, 0.0, 0.0, 1e-30], [false, true]).unwrap();
        assert_eq!((ok.size(), ok.wraps()), ([1e37, 1e-30], [false, true]));
    }

    #[test]
    fn axes_by_word() {
        assert_eq!("xy".parse::<PeriodicAxes>().map(PeriodicAxes::wraps), Ok([true, true]));
        assert_eq!("y".parse::<PeriodicAxes>().map(PeriodicAxes::wraps), Ok([false, true]));
        assert_eq!(PeriodicAxes::of([true, false]), Some(PeriodicAxes::X));
        assert!("z".parse::<PeriodicAxes>().unwrap_err().contains(r#"periodic_axes must be "xy", "x" or "y""#));
    }

    #[test]
    fn cell_shift_moves_into_the_box() {
        let p = Periodic::new([-1.0, 2.0, 3.0, 4.0], [true, true]).unwrap();
        assert_eq!(p.cell_shift([-1.0, 2.0]), [0.0, 0.0]);
        assert_eq!(p.cell_shift([3.0, 4.0]), [-1.0, -1.0]);
        assert_eq!(p.cell_shift([-1.5, 1.999]), [1.0, 1.0]);
        assert_eq!(p.cell_shift([401.0, -198.0]), [-100.0, 100.0]);
        let x_only = Periodic::new([-1.0, 2.0, 3.0, 4.0], [true, false]).unwrap();
        assert_eq!(x_only.cell_shift([7.0, 100.0]), [-2.0, 0.0]);
        // Far more boxes than an integer holds: still a whole number of them.
        let tiny = Periodic::new([0.0, 0.0, 1e-30, 1e-30], [true, true]).unwrap();
        let n = tiny.cell_shift([1e30, -1e30]);
        assert!(n.iter().all(|n| n.fract() == 0.0 && (n.abs() / 1e60 - 1.0).abs() < 1e-12), "{n:?}");
    }

    #[test]
    fn extents_name_the_body_and_the_shortfall() {
        let p = Periodic::new([0.0, 0.0, 10.0, 4.0], [true, true]).unwrap();
        assert!(p.check_extent(0, [4.9, 1.9], 0.0).is_ok());
        // Exactly twice is not enough: two images could both touch.
        let detail = match p.check_extent(7, [1.0, 2.0], 0.0) {
            Err(Error::InvalidSetting { detail, .. }) => detail,
            other => panic!("{other:?}"),
        };
        assert!(detail.contains("body 7") && detail.contains("along y") && detail.contains("0 short"), "{detail}");
        assert!(p.check_extent(3, [4.0, 1.0], 1.0).is_err());
        let cylinder = Periodic::new([0.0, 0.0, 10.0, 4.0], [true, false]).unwrap();
        assert!(cylinder.check_extent(0, [4.0, 100.0], 0.5).is_ok());
        let boxes = [Aabb { min: [0.0; 2], max: [1.0; 2] }, Aabb { min: [0.0; 2], max: [6.0, 1.0] }];
        assert!(p.check_boxes(boxes, 0.0).is_err_and(|e| e.to_string().contains("body 1")));
    }
}
