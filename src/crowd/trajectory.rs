//! Trajectories in JuPedSim's SQLite format (version 2, as JuPedSim 1.4 writes it and PedPy
//! 1.5's `load_trajectory_from_jupedsim_sqlite` reads it): the `trajectory_data`, `metadata`,
//! `geometry` and `frame_data` tables, one frame every `every` steps from frame 0, the state
//! before the first step.
//!
//! A frame holds every agent present: those walking and those that left in the frame's own step
//! (JuPedSim moves an agent into its exit, writes it there, and removes it at the start of the
//! next step). An agent's id is its index plus 1 (JuPedSim's ids start at 1).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

use crate::error::{Error, Result};
use crate::scene::Area;

/// The version of JuPedSim's format written (its `metadata` key `version`).
pub const TRAJECTORY_VERSION: u32 = 2;

/// The state of a crowd a frame records: per agent, its position, its orientation (its last
/// direction; (0, 0) before its first step) and the step after which it left (0 while it walks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// Steps run.
    pub step: u64,
    /// Per agent, where it is.
    pub positions: Vec<[f64; 2]>,
    /// Per agent, the way it faces.
    pub orientations: Vec<[f64; 2]>,
    /// Per agent, the step after which it left, 0 while it walks.
    pub exit_steps: Vec<u64>,
}

/// A crowd a [`Trajectory`] can step and record: the GPU's [`Crowd`](super::Crowd) and the
/// reference's [`reference::cfsm::Crowd`](crate::reference::cfsm::Crowd).
pub trait Recorded {
    /// Runs `steps` steps; returns the agents still walking.
    fn advance(&mut self, steps: u64) -> Result<usize>;
    /// Where every agent is now.
    fn snapshot(&self) -> Result<Snapshot>;
}

impl Recorded for super::Crowd {
    fn advance(&mut self, steps: u64) -> Result<usize> {
        self.iterate(steps)
    }

    fn snapshot(&self) -> Result<Snapshot> {
        let state = self.state()?;
        Ok(Snapshot {
            step: self.steps(),
            positions: state.iter().map(|s| [f64::from(s[0]), f64::from(s[1])]).collect(),
            orientations: state.iter().map(|s| [f64::from(s[2]), f64::from(s[3])]).collect(),
            exit_steps: self.exit_steps()?.into_iter().map(u64::from).collect(),
        })
    }
}

impl Recorded for crate::reference::cfsm::Crowd {
    fn advance(&mut self, steps: u64) -> Result<usize> {
        Ok(self.iterate(steps))
    }

    fn snapshot(&self) -> Result<Snapshot> {
        Ok(Snapshot {
            step: self.steps(),
            positions: self.positions().to_vec(),
            orientations: self.orientations().to_vec(),
            exit_steps: self.exit_steps().to_vec(),
        })
    }
}

/// A trajectory file being written (see the module docs).
pub struct Trajectory {
    connection: Connection,
    path: PathBuf,
    every: u64,
    /// The next step a frame is due at.
    due: u64,
    /// The area's WKT and its hash (`geometry` and `frame_data`).
    wkt: String,
    hash: i64,
}

/// The FNV-1a hash of `text`, as the signed 64-bit integer SQLite stores.
fn hash(text: &str) -> i64 {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    h as i64
}

impl Trajectory {
    /// Creates the tables in the SQLite file at `path` (made if absent; JuPedSim's four tables
    /// replaced if present, anything else in it kept), for a crowd on `area` stepped by `dt`
    /// seconds, a frame every `every` steps. `every` 0, or `dt` not finite and above 0, is
    /// [`Error::InvalidSetting`]; a file that cannot be written is [`Error::Io`] naming it.
    pub fn create(path: &Path, area: &Area, dt: f64, every: u64) -> Result<Trajectory> {
        if every == 0 {
            return Err(Error::InvalidSetting {
                what: "trajectory's every",
                detail: "0 steps: a frame comes every 1 or more steps".into(),
            });
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::InvalidSetting {
                what: "trajectory's dt",
                detail: format!("{dt}: must be finite seconds above 0"),
            });
        }
        let io = |e: rusqlite::Error| Error::Io { path: path.to_path_buf(), source: std::io::Error::other(e) };
        let connection = Connection::open(path).map_err(io)?;
        let wkt = area.wkt();
        let points = area.exterior.iter().chain(area.holes.iter().flatten());
        let lo = points.clone().fold([f64::INFINITY; 2], |m, p| [m[0].min(p[0]), m[1].min(p[1])]);
        let hi = points.fold([f64::NEG_INFINITY; 2], |m, p| [m[0].max(p[0]), m[1].max(p[1])]);
        let fps = 1.0 / dt / every as f64;
        let tables = "PRAGMA synchronous=OFF;
            PRAGMA journal_mode=OFF;
            BEGIN;
            DROP TABLE IF EXISTS trajectory_data;
            CREATE TABLE trajectory_data (frame INTEGER NOT NULL, id INTEGER NOT NULL, pos_x REAL NOT NULL,
                pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y REAL NOT NULL);
            DROP TABLE IF EXISTS metadata;
            CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
            DROP TABLE IF EXISTS geometry;
            CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);
            CREATE UNIQUE INDEX geometry_hash on geometry(hash);
            DROP TABLE IF EXISTS frame_data;
            CREATE TABLE frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);
            CREATE INDEX frame_id_idx ON trajectory_data(frame, id);";
        connection.execute_batch(tables).map_err(io)?;
        let hash = hash(&wkt);
        let metadata = [
            ("version", TRAJECTORY_VERSION.to_string()),
            ("fps", format!("{fps:?}")),
            ("xmin", format!("{:?}", lo[0])),
            ("xmax", format!("{:?}", hi[0])),
            ("ymin", format!("{:?}", lo[1])),
            ("ymax", format!("{:?}", hi[1])),
        ];
        for (key, value) in metadata {
            connection.execute("INSERT INTO metadata VALUES(?1, ?2)", params![key, value]).map_err(io)?;
        }
        connection.execute("INSERT INTO geometry VALUES(?1, ?2)", params![hash, wkt]).map_err(io)?;
        connection.execute_batch("COMMIT").map_err(io)?;
        Ok(Trajectory { connection, path: path.to_path_buf(), every, due: 0, wkt, hash })
    }

    /// Steps between frames.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The geometry written, as WKT.
    pub fn wkt(&self) -> &str {
        &self.wkt
    }

    fn io(&self, e: rusqlite::Error) -> Error {
        Error::Io { path: self.path.clone(), source: std::io::Error::other(e) }
    }

    /// Writes `snapshot` as frame `snapshot.step / every` when a frame is due then (a multiple
    /// of `every`, not yet written); otherwise writes nothing. Returns whether it wrote.
    pub fn record(&mut self, snapshot: &Snapshot) -> Result<bool> {
        let step = snapshot.step;
        if !step.is_multiple_of(self.every) || step < self.due {
            return Ok(false);
        }
        let n = snapshot.positions.len();
        if snapshot.orientations.len() != n || snapshot.exit_steps.len() != n {
            let detail = format!(
                "has {n} positions, {} orientations and {} exit steps",
                snapshot.orientations.len(),
                snapshot.exit_steps.len()
            );
            return Err(Error::Crowd { what: format!("the snapshot of step {step}"), detail });
        }
        let frame = (step / self.every) as i64;
        let transaction = self.connection.unchecked_transaction().map_err(|e| self.io(e))?;
        {
            let mut insert = transaction
                .prepare_cached("INSERT INTO trajectory_data VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
                .map_err(|e| self.io(e))?;
            for i in 0..n {
                let left = snapshot.exit_steps[i];
                if left != 0 && left != step {
                    continue;
                }
                let ([x, y], [ox, oy]) = (snapshot.positions[i], snapshot.orientations[i]);
                insert.execute(params![frame, i as i64 + 1, x, y, ox, oy]).map_err(|e| self.io(e))?;
            }
            transaction
                .execute("INSERT INTO frame_data VALUES(?1, ?2)", params![frame, self.hash])
                .map_err(|e| self.io(e))?;
        }
        transaction.commit().map_err(|e| self.io(e))?;
        self.due = step + self.every;
        Ok(true)
    }

    /// Runs `crowd` `steps` steps, writing every frame due on the
    /// way, the frame at its current step first if it is due and not yet written. Returns the
    /// agents still walking.
    pub fn advance(&mut self, crowd: &mut impl Recorded, steps: u64) -> Result<usize> {
        let mut snapshot = crowd.snapshot()?;
        self.record(&snapshot)?;
        let end = snapshot.step + steps;
        let mut walking = snapshot.exit_steps.iter().filter(|&&e| e == 0).count();
        while snapshot.step < end {
            let next = ((snapshot.step / self.every + 1) * self.every).min(end);
            walking = crowd.advance(next - snapshot.step)?;
            snapshot = crowd.snapshot()?;
            self.record(&snapshot)?;
        }
        Ok(walking)
    }

    /// Closes the file ([`Error::Io`] if SQLite cannot).
    pub fn close(self) -> Result<()> {
        let path = self.path;
        self.connection.close().map_err(|(_, e)| Error::Io { path, source: std::io::Error::other(e) })
    }
}
