//! `satgpu bench --trace FILE.json`: the host spans and GPU passes of every timed frame as a
//! Chrome trace (the Trace Event Format that Perfetto, `chrome://tracing`, wgpu-profiler and
//! puffin read): one process per scene, a track for frames, one for host spans and one for GPU
//! passes.

use std::time::Instant;

use satgpu::gpu::{FrameStats, HostSpan};

/// Track (thread id) of whole frames, host spans and GPU passes.
const FRAMES: u32 = 0;
const HOST: u32 = 1;
const GPU: u32 = 2;

/// One event: a complete span (`ph: "X"`) or a name for a process or a track (`ph: "M"`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub name: String,
    pub ph: String,
    /// Microseconds from the start of the run.
    pub ts: f64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dur: Option<f64>,
    pub pid: u32,
    pub tid: u32,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cat: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub args: Option<serde_json::Value>,
}

/// The trace being written: events in the order they were recorded.
#[derive(Debug)]
pub struct Trace {
    origin: Instant,
    events: Vec<Event>,
    pid: u32,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { origin: Instant::now(), events: vec![], pid: 0 }
    }
}

impl Trace {
    /// Starts the events of a new scene, as a process of its own named `name`.
    pub fn scene(&mut self, name: &str) {
        self.pid += 1;
        let meta = |what: &str, tid: u32, label: &str| Event {
            name: what.into(),
            ph: "M".into(),
            ts: 0.0,
            dur: None,
            pid: self.pid,
            tid,
            cat: None,
            args: Some(serde_json::json!({ "name": label })),
        };
        let events = [
            meta("process_name", 0, name),
            meta("thread_name", FRAMES, "frames"),
            meta("thread_name", HOST, "host"),
            meta("thread_name", GPU, "GPU passes (back to back after submit)"),
        ];
        self.events.extend(events);
    }

    fn span(&mut self, name: &str, cat: &str, tid: u32, start_us: f64, dur_us: f64) {
        self.events.push(Event {
            name: name.into(),
            ph: "X".into(),
            ts: start_us,
            dur: Some(dur_us.max(0.0)),
            pid: self.pid,
            tid,
            cat: Some(cat.into()),
            args: None,
        });
    }

    /// One frame of kind `what` that started at `start` and took `ms`: the frame, its host spans,
    /// and its GPU passes when they were timed (laid back to back from the end of `submit`: the
    /// timestamps give each pass's length, not where it sits on the host's clock).
    pub fn frame(&mut self, what: &str, start: Instant, ms: f64, stats: Option<&FrameStats>) {
        let at = (start - self.origin).as_secs_f64() * 1e6;
        self.span(what, "frame", FRAMES, at, ms * 1e3);
        let Some(stats) = stats else { return };
        let mut gpu_at = None;
        for HostSpan { name, start_ms, ms, .. } in &stats.host {
            self.span(name, "host", HOST, at + start_ms * 1e3, ms * 1e3);
            if *name == "submit" {
                gpu_at = Some(at + (start_ms + ms) * 1e3);
            }
        }
        let Some(mut gpu_at) = gpu_at else { return };
        for pass in stats.passes.iter().filter(|p| p.clock == "gpu") {
            self.span(pass.name, "gpu", GPU, gpu_at, pass.ms * 1e3);
            gpu_at += pass.ms * 1e3;
        }
    }

    /// Spans recorded, metadata left out.
    pub fn spans(&self) -> usize {
        self.events.iter().filter(|e| e.ph == "X").count()
    }

    /// The trace as JSON: `{"traceEvents": [...], "displayTimeUnit": "ms"}`.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(&serde_json::json!({ "traceEvents": self.events, "displayTimeUnit": "ms" }))
    }
}
