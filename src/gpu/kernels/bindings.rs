//! Each kernel's bindings, by file: slot `i` of its list at `@binding(i)`, how the shader uses it
//! (uniform, read, read and written, or a `#paged` array of a kind). The one list the
//! pipelines' layouts and bind groups are built from, and checked against every shader's own
//! declarations by naga (the tests below): a binding added, moved or made writable on either
//! side fails there.

use crate::gpu::kernels::shaders::{Kind, Paging};

/// How a shader uses one binding.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Uniform,
    UniformDynamic,
    Read,
    ReadWrite,
    /// A large array that may be bound in pages (a `#paged` line of the kernel): read.
    Paged(Kind),
    /// The same, read and written.
    PagedWrite(Kind),
}

impl Slot {
    pub(crate) fn is_storage(&self) -> bool {
        !matches!(self, Slot::Uniform | Slot::UniformDynamic)
    }

    pub(crate) fn kind(&self) -> Option<Kind> {
        match self {
            Slot::Paged(kind) | Slot::PagedWrite(kind) => Some(*kind),
            _ => None,
        }
    }
}

/// The storage bindings a kernel of `slots` takes with `paging`: one per slot, and one more per
/// page past the first of each paged slot.
pub(crate) fn storage_bindings(slots: &[Slot], paging: Paging) -> u32 {
    let pages = |slot: &Slot| slot.kind().map_or(1, |kind| paging.of(kind).count);
    slots.iter().filter(|s| s.is_storage()).map(pages).sum()
}

use Kind::{Entries, Instances, Shapes};
use Slot::{Paged, PagedWrite, Read, ReadWrite, Uniform, UniformDynamic};

// The slots of the kernels with paged arrays (the `#paged` lines of their files).
const TRANSFORM: [Slot; 8] = [
    Uniform,
    Paged(Instances),
    Paged(Instances),
    Paged(Shapes),
    PagedWrite(Instances),
    ReadWrite,
    Paged(Instances),
    Paged(Instances),
];
const ENTRIES: [Slot; 7] = [Uniform, Read, Paged(Instances), ReadWrite, ReadWrite, ReadWrite, Read];
const CONTROL_GRID: [Slot; 4] = [Uniform, Read, ReadWrite, Paged(Instances)];
const GATHER: [Slot; 4] = [Read, Read, Paged(Instances), PagedWrite(Entries)];
const RANK_GATHER: [Slot; 7] = [Read, Read, Read, Paged(Instances), ReadWrite, ReadWrite, PagedWrite(Entries)];
const SWEEP: [Slot; 8] = [Uniform, Read, Read, Read, Paged(Entries), ReadWrite, ReadWrite, Paged(Instances)];
const ALLPAIRS: [Slot; 6] = [Uniform, Paged(Instances), ReadWrite, ReadWrite, Paged(Instances), Read];
const SAT: [Slot; 9] =
    [Read, Read, Paged(Instances), Paged(Shapes), Paged(Instances), ReadWrite, ReadWrite, ReadWrite, Uniform];
const IMPACT: [Slot; 8] =
    [Read, Read, Paged(Instances), Paged(Shapes), Paged(Instances), Paged(Instances), ReadWrite, Uniform];
const DEEPEST: [Slot; 6] = [Read, Read, ReadWrite, ReadWrite, Paged(Instances), ReadWrite];
const MANIFOLD: [Slot; 7] = [Read, Read, Paged(Instances), Paged(Shapes), Paged(Instances), ReadWrite, Uniform];
const RAY: [Slot; 9] = [
    Uniform,
    Read,
    Read,
    Paged(Entries),
    Paged(Instances),
    Paged(Shapes),
    Paged(Instances),
    Paged(Instances),
    ReadWrite,
];
/// Region queries read the index as the casts do.
const QUERY: [Slot; 9] = RAY;

/// The most storage bindings any kernel takes with `paging` (8 without pages: the kernels
/// without paged arrays take at most that many).
pub(crate) fn storage_needed(paging: Paging) -> u32 {
    let paged: [&[Slot]; 13] = [
        &TRANSFORM,
        &ENTRIES,
        &CONTROL_GRID,
        &GATHER,
        &RANK_GATHER,
        &SWEEP,
        &ALLPAIRS,
        &SAT,
        &IMPACT,
        &DEEPEST,
        &MANIFOLD,
        &QUERY,
        &RAY,
    ];
    paged.iter().map(|slots| storage_bindings(slots, paging)).max().unwrap_or(0).max(8)
}

/// Every kernel's slots, by file. scan_add.wgsl binds scan_blocks.wgsl's layout (it shares its
/// pipelines' bind group) and declares a part of it.
const SLOTS: [(&str, &[Slot]); 31] = [
    ("transform.wgsl", &TRANSFORM),
    ("control_grid.wgsl", &CONTROL_GRID),
    ("entries.wgsl", &ENTRIES),
    ("control_entries.wgsl", &[Uniform, Read, ReadWrite]),
    ("radix_setup.wgsl", &[ReadWrite]),
    ("radix_hist.wgsl", &[UniformDynamic, Read, Read, ReadWrite]),
    ("radix_scatter.wgsl", &[UniformDynamic, Read, Read, Read, Read, ReadWrite, ReadWrite]),
    ("radix_tile.wgsl", &[Uniform, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite]),
    ("gather.wgsl", &GATHER),
    ("rank_sort.wgsl", &[Read, Read, Read, ReadWrite, ReadWrite]),
    ("rank_gather.wgsl", &RANK_GATHER),
    ("sweep.wgsl", &SWEEP),
    ("allpairs.wgsl", &ALLPAIRS),
    ("control_pairs.wgsl", &[Uniform, Read, ReadWrite, ReadWrite]),
    ("scan_setup.wgsl", &[ReadWrite]),
    ("scan_blocks.wgsl", &[Uniform, Read, ReadWrite, ReadWrite]),
    ("scan_add.wgsl", &[Uniform, Read, ReadWrite, ReadWrite]),
    ("sat.wgsl", &SAT),
    ("impact.wgsl", &IMPACT),
    ("deepest.wgsl", &DEEPEST),
    ("compact.wgsl", &[Read, Read, Read, Read, ReadWrite, ReadWrite]),
    ("order_keys.wgsl", &[Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite]),
    ("order_gather.wgsl", &[Read, Read, Read, ReadWrite, Read, ReadWrite]),
    ("manifold.wgsl", &MANIFOLD),
    ("events_setup.wgsl", &[ReadWrite, Read, Read, ReadWrite]),
    ("events.wgsl", &[Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite]),
    ("query.wgsl", &QUERY),
    ("ray.wgsl", &RAY),
    ("crowd.wgsl", &[Uniform, Read, ReadWrite, Read, ReadWrite, ReadWrite, Read, ReadWrite]),
    ("push.wgsl", &[Uniform, ReadWrite, ReadWrite, ReadWrite, ReadWrite, Read, Read, ReadWrite]),
    ("neighbours.wgsl", &[Uniform, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite]),
];

/// The slots of the kernel `file` (none for an unknown file, which its pipeline's creation
/// then reports).
pub(crate) fn slots(file: &str) -> &'static [Slot] {
    SLOTS.iter().find(|(f, _)| *f == file).map_or(&[], |(_, slots)| slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::kernels::shaders::{self, Kind};

    /// Binding -> (uniform, written, paged kind) as the composed kernel `file` declares them.
    fn declared(file: &str) -> Vec<(u32, bool, bool, Option<Kind>)> {
        let src = shaders::source(file);
        let module =
            naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(&src)));
        let raw = shaders::raw(file);
        let paged = |binding: u32| {
            raw.lines().filter_map(|l| l.trim().strip_prefix("#paged ")).find_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                (words.get(1) == Some(&binding.to_string().as_str())).then(|| match words[0] {
                    "shapes" => Kind::Shapes,
                    "instances" => Kind::Instances,
                    _ => Kind::Entries,
                })
            })
        };
        let mut out: Vec<_> = module
            .global_variables
            .iter()
            .filter_map(|(_, g)| {
                let binding = g.binding.as_ref()?.binding;
                let (uniform, written) = match g.space {
                    naga::AddressSpace::Uniform => (true, false),
                    naga::AddressSpace::Storage { access } => (false, access.contains(naga::StorageAccess::STORE)),
                    _ => return None,
                };
                Some((binding, uniform, written, paged(binding)))
            })
            .collect();
        out.sort_by_key(|d| d.0);
        out
    }

    fn of(slot: &Slot) -> (bool, bool, Option<Kind>) {
        match *slot {
            Slot::Uniform | Slot::UniformDynamic => (true, false, None),
            Slot::Read => (false, false, None),
            Slot::ReadWrite => (false, true, None),
            Slot::Paged(kind) => (false, false, Some(kind)),
            Slot::PagedWrite(kind) => (false, true, Some(kind)),
        }
    }

    /// Every kernel has its slots, and each binding its shader declares is the slot at its index,
    /// used as the slot says; every slot is declared (but for scan_add.wgsl's, which binds
    /// scan_blocks.wgsl's layout).
    #[test]
    fn every_kernel_s_slots_are_its_shader_s_bindings() {
        let files: Vec<&str> = shaders::shader_sources().iter().map(|(f, _)| *f).collect();
        assert_eq!(files.len(), SLOTS.len(), "a kernel without slots, or slots without a kernel");
        for file in files {
            let slots = slots(file);
            assert!(!slots.is_empty(), "{file} has no slots");
            let declared = declared(file);
            for &(binding, uniform, written, kind) in &declared {
                let slot =
                    slots.get(binding as usize).unwrap_or_else(|| panic!("{file}: binding {binding} has no slot"));
                assert_eq!((uniform, written, kind), of(slot), "{file}: binding {binding}");
            }
            if file != "scan_add.wgsl" {
                assert_eq!(declared.len(), slots.len(), "{file}: slots the shader does not declare");
            }
        }
    }

    #[test]
    fn a_slot_out_of_place_is_found() {
        let declared = declared("gather.wgsl");
        let mut swapped = GATHER;
        swapped.swap(0, 3);
        assert!(declared.iter().any(|&(b, u, w, k)| (u, w, k) != of(&swapped[b as usize])));
    }
}
