//! The simulation's window: frames run on the GPU without a wait for their figures, which the
//! host reads every [`SimOptions::window`](super::SimOptions::window) frames; a window whose
//! detections outgrew the world (buffers, or the sweep's windows on software adapters) runs
//! again from its saved state.

use crate::error::{Error, Result};
use crate::gpu::Fit;
use crate::sim::{FrameReport, Simulation};

/// Bytes of the stats buffer for `window` frames: two words of totals, four per frame (largest
/// and total depth, colliding, the most sweep windows a detection needed), then two
/// per frame for the contact events (began, ended).
pub(super) fn stats_size(window: usize) -> u64 {
    4 * (2 + 6 * window as u64)
}

/// The byte where frame `frame`'s event counts start in the stats buffer of `window` frames.
pub(super) fn events_at(window: usize, frame: u32) -> u64 {
    4 * (2 + 4 * window as u64 + 2 * u64::from(frame))
}

impl Simulation {
    /// Zeroes the window's figures on the GPU and saves the state to return to.
    pub(super) fn start_window(&mut self) {
        self.copy_state(false);
        self.window_ms.clear();
    }

    /// Puts the state back where the window started (and zeroes the window's figures).
    fn restore_window(&mut self) {
        self.copy_state(true);
    }

    /// Zeroes the window's figures and copies the transforms and agents (and the contact events'
    /// previous pairs) to the saved copy, or `back` from it.
    fn copy_state(&mut self, back: bool) {
        let queue = self.world.gpu().queue().clone();
        queue.write_buffer(&self.stats, 0, &vec![0u8; stats_size(self.options.window) as usize]);
        let mut encoder = self.world.gpu().device().create_command_encoder(&Default::default());
        self.world.save_events(&mut encoder, back);
        let size = 16 * self.world.len() as u64;
        let pairs = [(self.world.transforms_buffer(), &self.saved.0, size), (&self.agents, &self.saved.1, 2 * size)];
        for (live, saved, bytes) in pairs {
            let (from, to) = if back { (saved, live) } else { (live, saved) };
            encoder.copy_buffer_to_buffer(from, 0, to, 0, bytes);
        }
        queue.submit([encoder.finish()]);
    }

    /// Checks the frames run since the last check: reads the window's figures (a few bytes);
    /// if some detection outgrew the world's buffers, grows them and runs the window again from
    /// its saved state. Then the window's [`reports`](Simulation::reports) are final.
    pub fn sync(&mut self) -> Result<()> {
        loop {
            let frames = self.window_ms.len();
            if frames == 0 {
                return Ok(());
            }
            let words = self.read_stats()?;
            let (entries, candidates) = (u64::from(words[0]), u64::from(words[1]));
            // A sweep walk longer than the windows run (software adapters) runs the window again.
            let need = (0..frames).map(|f| words[5 + 4 * f]).max().unwrap_or(0);
            match self.world.fit(entries, candidates, need)? {
                Fit::Fits => {
                    let window = self.options.window;
                    let events = self.world.events().is_some();
                    for (f, &ms) in self.window_ms.iter().enumerate() {
                        let w = &words[2 + 4 * f..6 + 4 * f];
                        let e = &words[2 + 4 * window + 2 * f..][..2];
                        self.reports.push(FrameReport {
                            max_depth: f64::from(f32::from_bits(w[0])),
                            total_depth: f64::from(f32::from_bits(w[1])),
                            colliding: u64::from(w[2]),
                            events: events.then(|| (u64::from(e[0]), u64::from(e[1]))),
                            ms,
                        });
                    }
                    self.start_window();
                    return Ok(());
                }
                Fit::Batches => {
                    return Err(Error::TooLarge {
                        what: "simulation candidate pairs (one binding)",
                        needed: candidates * 8,
                        limit: u64::from(self.world.candidate_capacity()) * 8,
                    })
                }
                Fit::Rerun => {}
            }
            self.reruns += 1;
            self.restore_window();
            let frames_to_run = frames;
            self.window_ms.clear();
            for _ in 0..frames_to_run {
                self.run_frame()?;
            }
        }
    }

    fn read_stats(&self) -> Result<Vec<u32>> {
        let gpu = self.world.gpu();
        let size = stats_size(self.options.window);
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.stats, 0, &self.stats_read, 0, size);
        let submission = gpu.queue().submit([encoder.finish()]);
        crate::gpu::read_as(gpu, &self.stats_read, size, submission, "the simulation's figures")
    }
}
