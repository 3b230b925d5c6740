//! WGSL composition. WGSL has no includes, so each kernel in `shaders/*.wgsl` names the shared
//! definitions it needs with `#import name` lines: `shaders/shared/name.wgsl`, or `constants`,
//! which is generated here from the Rust side so that control-buffer offsets, workgroup sizes
//! and key bits have one source. A `#paged KIND BINDING ACCESS NAME TYPE` line declares a large
//! array that may be bound in pages ([`Paging`]), read as `NAME_at(i)` (and written as
//! `NAME_set(i, v)`), generated here for the world's pages. Each module is pasted once, where it is first imported
//! (imports inside a module are resolved the same way). tests/shaders.rs validates every
//! composed kernel with naga and checks that no definition appears in two files.

use crate::gpu::kernels::control;
use crate::gpu::kernels::shared::WG;
use crate::gpu::kernels::shared::{
    COST_BINS, KEY_BITS, LARGE_LIST, MAX_STRIPS, ORDER_SHIFT, PART_BITS, SMALL, STRIP_HEIGHT_FACTOR,
};

/// The kernels, by file name: one file per pass of the frame (entry point `main`), then the
/// programs of several entry points that run beside it ([`Program`](super::pipelines::Program)):
/// the collision-free speed model's step, the push simulation's passes, the neighbours' gather.
const KERNELS: [(&str, &str); 31] = [
    ("transform.wgsl", include_str!("../../../shaders/transform.wgsl")),
    ("control_grid.wgsl", include_str!("../../../shaders/control_grid.wgsl")),
    ("entries.wgsl", include_str!("../../../shaders/entries.wgsl")),
    ("control_entries.wgsl", include_str!("../../../shaders/control_entries.wgsl")),
    ("radix_setup.wgsl", include_str!("../../../shaders/radix_setup.wgsl")),
    ("radix_hist.wgsl", include_str!("../../../shaders/radix_hist.wgsl")),
    ("radix_scatter.wgsl", include_str!("../../../shaders/radix_scatter.wgsl")),
    ("radix_tile.wgsl", include_str!("../../../shaders/radix_tile.wgsl")),
    ("gather.wgsl", include_str!("../../../shaders/gather.wgsl")),
    ("rank_sort.wgsl", include_str!("../../../shaders/rank_sort.wgsl")),
    ("rank_gather.wgsl", include_str!("../../../shaders/rank_gather.wgsl")),
    ("sweep.wgsl", include_str!("../../../shaders/sweep.wgsl")),
    ("allpairs.wgsl", include_str!("../../../shaders/allpairs.wgsl")),
    ("control_pairs.wgsl", include_str!("../../../shaders/control_pairs.wgsl")),
    ("scan_setup.wgsl", include_str!("../../../shaders/scan_setup.wgsl")),
    ("scan_blocks.wgsl", include_str!("../../../shaders/scan_blocks.wgsl")),
    ("scan_add.wgsl", include_str!("../../../shaders/scan_add.wgsl")),
    ("sat.wgsl", include_str!("../../../shaders/sat.wgsl")),
    ("impact.wgsl", include_str!("../../../shaders/impact.wgsl")),
    ("deepest.wgsl", include_str!("../../../shaders/deepest.wgsl")),
    ("compact.wgsl", include_str!("../../../shaders/compact.wgsl")),
    ("order_keys.wgsl", include_str!("../../../shaders/order_keys.wgsl")),
    ("order_gather.wgsl", include_str!("../../../shaders/order_gather.wgsl")),
    ("manifold.wgsl", include_str!("../../../shaders/manifold.wgsl")),
    ("events_setup.wgsl", include_str!("../../../shaders/events_setup.wgsl")),
    ("events.wgsl", include_str!("../../../shaders/events.wgsl")),
    ("query.wgsl", include_str!("../../../shaders/query.wgsl")),
    ("ray.wgsl", include_str!("../../../shaders/ray.wgsl")),
    ("crowd.wgsl", include_str!("../../../shaders/crowd.wgsl")),
    ("push.wgsl", include_str!("../../../shaders/push.wgsl")),
    ("neighbours.wgsl", include_str!("../../../shaders/neighbours.wgsl")),
];

/// The shared modules, by import name.
const SHARED: [(&str, &str); 26] = [
    ("params", include_str!("../../../shaders/shared/params.wgsl")),
    ("instance", include_str!("../../../shaders/shared/instance.wgsl")),
    ("index", include_str!("../../../shaders/shared/index.wgsl")),
    ("sortable", include_str!("../../../shaders/shared/sortable.wgsl")),
    ("strips", include_str!("../../../shaders/shared/strips.wgsl")),
    ("grid", include_str!("../../../shaders/shared/grid.wgsl")),
    ("strip_index", include_str!("../../../shaders/shared/strip_index.wgsl")),
    ("segment", include_str!("../../../shaders/shared/segment.wgsl")),
    ("local_shape", include_str!("../../../shaders/shared/local_shape.wgsl")),
    ("cast", include_str!("../../../shaders/shared/cast.wgsl")),
    ("filter", include_str!("../../../shaders/shared/filter.wgsl")),
    ("digits", include_str!("../../../shaders/shared/digits.wgsl")),
    ("chunk", include_str!("../../../shaders/shared/chunk.wgsl")),
    ("scan", include_str!("../../../shaders/shared/scan.wgsl")),
    ("workgroup_scan", include_str!("../../../shaders/shared/workgroup_scan.wgsl")),
    ("scan_plan", include_str!("../../../shaders/shared/scan_plan.wgsl")),
    ("count_or_write", include_str!("../../../shaders/shared/count_or_write.wgsl")),
    ("side", include_str!("../../../shaders/shared/side.wgsl")),
    ("near", include_str!("../../../shaders/shared/near.wgsl")),
    ("contact", include_str!("../../../shaders/shared/contact.wgsl")),
    ("records", include_str!("../../../shaders/shared/records.wgsl")),
    ("exact", include_str!("../../../shaders/shared/exact.wgsl")),
    ("loops", include_str!("../../../shaders/shared/loops.wgsl")),
    ("candidate", include_str!("../../../shaders/shared/candidate.wgsl")),
    ("image", include_str!("../../../shaders/shared/image.wgsl")),
    ("crowd_ground", include_str!("../../../shaders/shared/crowd_ground.wgsl")),
];

/// Invocations per workgroup of the radix kernels.
pub(crate) const RADIX_WG: u32 = 128;
/// Invocations per workgroup of the scan kernels.
pub(crate) const SCAN_WG: u32 = 256;
/// Invocations of the one-workgroup radix sort (radix_tile.wgsl).
pub(crate) const TILE_WG: u32 = 32;
/// Digit values per radix pass (4-bit digits).
pub(crate) const RADIX_BINS: u32 = 16;

/// The `constants` module: every value Rust and WGSL must agree on.
fn constants() -> String {
    let values: [(&str, u64, &str); 33] = [
        ("WG", WG.into(), "invocations per workgroup of per-body, per-entry and per-pair kernels"),
        ("RADIX_WG", RADIX_WG.into(), "invocations per workgroup of the radix kernels"),
        ("TILE_WG", TILE_WG.into(), "invocations of the one-workgroup radix sort"),
        ("SCAN_WG", SCAN_WG.into(), "invocations per workgroup of the scan kernels"),
        ("RADIX_BINS", RADIX_BINS.into(), "digit values per radix pass"),
        ("KEY_BITS", KEY_BITS.into(), "bits of a strip entry key"),
        ("MAX_STRIPS", MAX_STRIPS.into(), "most strips of the strip grid"),
        ("GRID", control::GRID, "control: the strip grid (8 words)"),
        ("STRIP_FACTOR", STRIP_HEIGHT_FACTOR as u64, "typical heights per strip (STRIP_HEIGHT_FACTOR)"),
        ("GRID_MAP", control::GRID_MAP, "control: the grid's map (which axes, then their knots)"),
        ("MAP_KNOTS", control::MAP_KNOTS, "knots of the grid's map along one axis"),
        ("MAP_WORDS", control::MAP_WORDS, "words of the grid's map"),
        ("PAIRS", control::PAIRS, "control: candidate pairs to test"),
        ("PAIR_ARGS", control::PAIR_ARGS, "control: (x, y, z) for per-pair passes"),
        ("ENTRY_ARGS", control::ENTRY_ARGS, "control: (x, y, z) for per-entry passes"),
        ("ENTRIES", control::ENTRIES, "control: entries to sort and sweep"),
        ("SMALL", SMALL.into(), "vertices of a polygon the narrow phase's small path takes"),
        ("COST_BINS", COST_BINS.into(), "cost bins of the narrow phase's large pairs"),
        ("LARGE_LIST", LARGE_LIST.into(), "word where the narrow phase's list of large pairs starts"),
        ("ENTRY_SCAN", control::ENTRY_SCAN, "control: region of the scan over per-body counts"),
        ("RADIX", control::RADIX, "control: radix region: [0] length, [1] tiles, [4..7) tile dispatch"),
        ("HIST_SCAN", control::HIST_SCAN, "control: region of the histogram scan"),
        ("CAND_SCAN", control::CAND_SCAN, "control: region of the candidate scan"),
        ("PAIR_SCAN", control::PAIR_SCAN, "control: region of the compaction scan"),
        ("FOLD", control::FOLD, "word of a scan or radix region holding the fold width"),
        ("SCAN_ARGS", control::SCAN_ARGS, "word of a scan region where level 0's dispatch arguments start"),
        ("SCAN_LEVELS", control::SCAN_LEVELS, "levels a scan region has room for"),
        ("REGION", control::REGION, "words per control region"),
        ("PART_BITS", PART_BITS.into(), "bits of a part's index within its body in the deepest pair's key"),
        ("EVENT_ARGS", control::EVENT_ARGS, "events control: (x, y, z) for per-pair passes"),
        ("EVENT_LENGTH", control::EVENT_LENGTH, "events control: pairs of both frames"),
        ("EVENT_CURRENT", control::EVENT_CURRENT, "events control: this frame's pairs"),
        ("ORDER_SHIFT", ORDER_SHIFT, "ordering control: shift of a in the sort key (32: two sorts)"),
    ];
    let mut out = String::from("// Generated by src/gpu/kernels/shaders.rs from the Rust side.\n");
    for (name, value, doc) in values {
        out.push_str(&format!("const {name}: u32 = {value}u; // {doc}\n"));
    }
    out
}

/// Which large array a paged binding holds: each kind has its own page count in a [`Paging`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The packed shapes: vertices and normals, 16 bytes per record.
    Shapes,
    /// The 16-byte per-instance arrays (an instance: one shape of one body): `Instance` records,
    /// transforms, local boxes, AABBs, filters.
    Instances,
    /// The strip entries' gathered boxes, 16 bytes each.
    Entries,
}

/// How a world's large arrays are bound: per [`Kind`], in one storage binding, or, past what one
/// binding may hold, in `count` windows of `1 << shift` records each (the last one shorter), one
/// storage binding each, so that memory, not one binding, bounds a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pages {
    pub count: u32,
    pub shift: u32,
}

impl Pages {
    /// Every record in one binding.
    pub const ONE: Pages = Pages { count: 1, shift: 32 };

    /// The pages of `records` 16-byte records: one binding if they fit `binding_records`, else
    /// pages of `1 << shift` records (`shift`: the device's, [`Pages::shift_for`]).
    pub fn of(records: u64, binding_records: u64, shift: u32) -> Pages {
        if records <= binding_records {
            return Pages::ONE;
        }
        Pages { count: records.div_ceil(1 << shift).min(u64::from(u32::MAX)) as u32, shift }
    }

    /// The records of a page: the largest power of two of 16-byte records one binding of
    /// `binding_bytes` holds, as its log2.
    pub fn shift_for(binding_bytes: u64) -> u32 {
        (binding_bytes / 16).max(1).ilog2()
    }

    /// Bytes of a page.
    pub fn bytes(&self) -> u64 {
        16 << self.shift
    }
}

/// The pages of each [`Kind`] of a world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paging {
    pub shapes: Pages,
    pub instances: Pages,
    pub entries: Pages,
}

impl Paging {
    /// Every array in one binding.
    pub const ONE: Paging = Paging { shapes: Pages::ONE, instances: Pages::ONE, entries: Pages::ONE };

    pub fn of(&self, kind: Kind) -> Pages {
        match kind {
            Kind::Shapes => self.shapes,
            Kind::Instances => self.instances,
            Kind::Entries => self.entries,
        }
    }
}

/// Binding of page `p` (from 1) of the paged array whose first page binds at `binding`.
pub(crate) fn page_binding(binding: u32, p: u32) -> u32 {
    100 * (binding + 1) + p
}

/// The WGSL of a `#paged KIND BINDING ACCESS NAME TYPE` line: the binding of `NAME` (an
/// `array<TYPE>` of KIND `shapes`, `instances` or `entries`) in its pages, and `NAME_at(i)`, its
/// record `i` (and, for `read_write`, `NAME_set(i, v)`). In one page, the plain binding.
fn paged(line: &str, paging: Paging) -> Result<String, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [kind, binding, access, name, ty] = words[..] else {
        return Err(format!("expected `#paged KIND BINDING ACCESS NAME TYPE`, got {line:?}"));
    };
    let kind = match kind {
        "shapes" => Kind::Shapes,
        "instances" => Kind::Instances,
        "entries" => Kind::Entries,
        _ => return Err(format!("unknown paged kind {kind:?}")),
    };
    let binding: u32 = binding.parse().map_err(|_| format!("bad binding in {line:?}"))?;
    let pages = paging.of(kind);
    let array = |b: u32, n: &str| format!("@group(0) @binding({b}) var<storage, {access}> {n}: array<{ty}>;\n");
    let mut out = array(binding, name);
    let (index, cases) = if pages.count <= 1 {
        ("i".to_string(), vec![])
    } else {
        for p in 1..pages.count {
            out.push_str(&array(page_binding(binding, p), &format!("{name}_{p}")));
        }
        (format!("i & {}u", (1u64 << pages.shift) - 1), (1..pages.count).collect())
    };
    let body = |one: &dyn Fn(&str) -> String| {
        if cases.is_empty() {
            return format!("    {}\n", one(name));
        }
        let mut s = format!("    let k = {index};\n    switch i >> {}u {{\n", pages.shift);
        for p in &cases {
            s.push_str(&format!("        case {p}u: {{ {} }}\n", one(&format!("{name}_{p}"))));
        }
        s.push_str(&format!("        default: {{ {} }}\n    }}\n", one(name)));
        s
    };
    let k = if cases.is_empty() { "i" } else { "k" };
    out.push_str(&format!("fn {name}_at(i: u32) -> {ty} {{\n{}}}\n", body(&|n| format!("return {n}[{k}];"))));
    if access == "read_write" {
        out.push_str(&format!("fn {name}_set(i: u32, v: {ty}) {{\n{}}}\n", body(&|n| format!("{n}[{k}] = v;"))));
    }
    Ok(out)
}

/// `source` with every `#import` resolved, or the name of an unknown module.
fn compose(source: &str, paging: Paging, done: &mut Vec<String>, out: &mut String) -> Result<(), String> {
    for line in source.lines() {
        if let Some(declaration) = line.trim().strip_prefix("#paged ") {
            out.push_str(&paged(declaration.split("//").next().unwrap_or_default(), paging)?);
            continue;
        }
        match line.trim().strip_prefix("#import ") {
            Some(name) => {
                let name = name.trim();
                if done.iter().any(|d| d == name) {
                    continue;
                }
                done.push(name.to_string());
                if name == "constants" {
                    out.push_str(&constants());
                } else {
                    let module = SHARED
                        .iter()
                        .find(|(n, _)| *n == name)
                        .ok_or_else(|| format!("unknown WGSL module {name:?}"))?;
                    compose(module.1, paging, done, out)?;
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// The WGSL of the records a [`World`](crate::gpu::World) leaves on the GPU for a caller's own
/// passes: `struct Contact` ([`GpuContact`](crate::gpu::GpuContact), in
/// [`contacts_buffer`](crate::gpu::World::contacts_buffer)), `struct Manifold`
/// ([`GpuManifold`](crate::gpu::GpuManifold), in
/// [`manifolds_buffer`](crate::gpu::World::manifolds_buffer)) and the word indices of
/// [`totals_buffer`](crate::gpu::World::totals_buffer) (`TOTAL_COLLIDING`, `TOTAL_PAIR_ARGS`, ...).
/// satgpu's own kernels are composed from the same text; paste it before your shader's code
/// (`format!("{RECORDS_WGSL}\n{my_shader}")`) instead of copying the structs.
pub const RECORDS_WGSL: &str = include_str!("../../../shaders/shared/records.wgsl");

/// Every kernel, composed, by file name: what the pipelines are built from.
pub fn shader_sources() -> Vec<(&'static str, String)> {
    KERNELS.iter().map(|(name, _)| (*name, source(name))).collect()
}

/// The kernel `file` as written, before composition.
#[cfg(test)]
pub(crate) fn raw(file: &str) -> &'static str {
    KERNELS.iter().find(|(n, _)| *n == file).map_or("", |(_, text)| text)
}

/// The composed kernel `file` (empty if there is none, which pipeline creation then reports),
/// every array in one binding.
pub(crate) fn source(file: &str) -> String {
    source_paged(file, Paging::ONE)
}

/// [`source`], binding its large arrays as `paging` says.
pub(crate) fn source_paged(file: &str, paging: Paging) -> String {
    let Some((name, text)) = KERNELS.iter().find(|(n, _)| *n == file) else {
        return String::new();
    };
    let mut out = String::new();
    if let Err(e) = compose(text, paging, &mut vec![], &mut out) {
        // Every import is resolved in tests/shaders.rs; an unknown one fails there.
        out = format!("// {name}: {e}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_resolve_once_and_in_place() {
        let mut out = String::new();
        compose("a\n#import chunk\n#import scan\nb\n", Paging::ONE, &mut vec![], &mut out).unwrap();
        assert!(out.starts_with("a\n"));
        assert!(out.ends_with("b\n"));
        assert_eq!(out.matches("override CHUNK").count(), 1, "chunk is imported twice but pasted once");
        let mut out = String::new();
        assert!(compose("#import nowhere\n", Paging::ONE, &mut vec![], &mut out).unwrap_err().contains("nowhere"));
    }

    /// Every kernel composed with each kind in three pages (the last of 2^4 records) parses and
    /// validates, and declares each paged array's pages and accessors.
    #[test]
    fn paged_kernels_validate() {
        let pages = Pages { count: 3, shift: 4 };
        let paging = Paging { shapes: pages, instances: pages, entries: pages };
        for (name, _) in KERNELS {
            let src = source_paged(name, paging);
            let module =
                naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
                .validate(&module)
                .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        }
        let sat = source_paged("sat.wgsl", paging);
        for wanted in [
            "shapes_2: array<vec4<f32>>",
            "transforms_1",
            "fn instances_at(i: u32) -> Instance",
            "i & 15u",
            "switch i >> 4u",
        ] {
            assert!(sat.contains(wanted), "sat.wgsl in pages lacks {wanted:?}");
        }
        assert!(source_paged("gather.wgsl", paging).contains("fn boxes_set(i: u32, v: vec4<f32>)"));
        assert!(!source("sat.wgsl").contains("shapes_1"), "one page declares no more bindings");
    }

    #[test]
    fn every_kernel_composes() {
        for (name, source) in shader_sources() {
            assert!(!source.contains("#import"), "{name} has an unresolved import");
            assert!(source.contains("@compute"), "{name} lost its entry points");
        }
    }
}
