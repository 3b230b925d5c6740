//! The library API a user writes in the first hour (issue 29): `?` on `Polygon::new` in a
//! function returning `satgpu::Result`, wgpu re-exported as `satgpu::wgpu`, the types of public
//! signatures where users look for them, and files written whole or not at all. No GPU needed.

use satgpu::gpu::{GpuContact, GpuManifold};
use satgpu::scene::write_atomically;
use satgpu::{Error, Polygon, PolygonError};

fn square(side: f64) -> satgpu::Result<Polygon> {
    Ok(Polygon::new(vec![[0.0, 0.0], [side, 0.0], [side, side], [0.0, side]])?)
}

fn bow_tie() -> satgpu::Result<Polygon> {
    Ok(Polygon::new(vec![[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]])?)
}

#[test]
fn question_mark_on_polygon_new_converts_and_at_names_the_index() {
    assert!(square(1.0).is_ok());
    let e = bow_tie().unwrap_err();
    assert!(matches!(e, Error::Polygon(PolygonError::SelfIntersecting { first: 0, second: 2 })), "{e:?}");
    assert_eq!(e.to_string(), "polygon intersects itself: edges 0 and 2 cross (edge k runs from vertex k to the next)");
    let named = PolygonError::ZeroArea.at(7);
    assert_eq!(named.to_string(), "polygon 7 has zero area (all vertices are collinear)");
}

/// `satgpu::wgpu` is the wgpu of satgpu's signatures: this compiles only if the types match.
#[test]
fn wgpu_is_re_exported_and_gpu_types_are_at_satgpu_gpu() {
    fn takes(_: Option<satgpu::wgpu::Device>, _: Option<satgpu::wgpu::Buffer>) {}
    let from_device: fn(
        satgpu::wgpu::Device,
        satgpu::wgpu::Queue,
        satgpu::wgpu::AdapterInfo,
        std::time::Duration,
    ) -> satgpu::Result<satgpu::gpu::Gpu> = satgpu::gpu::Gpu::from_device;
    takes(None, None);
    let _ = from_device;
    assert_eq!(std::mem::size_of::<GpuContact>(), 24);
    assert_eq!(std::mem::size_of::<GpuManifold>(), 32);
}

#[test]
fn a_failed_write_leaves_no_file_and_an_old_file_as_it_was() {
    let dir = std::env::temp_dir().join(format!("satgpu-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.csv");
    let fail = |w: &mut dyn std::io::Write| {
        w.write_all(b"half a file").unwrap();
        Err(Error::InvalidSetting { what: "test", detail: "fails midway".into() })
    };
    assert!(write_atomically(&path, fail).is_err());
    assert!(!path.exists(), "no partial file");
    write_atomically(&path, |w| w.write_all(b"old").map_err(|source| Error::Io { path: path.clone(), source }))
        .unwrap();
    assert!(write_atomically(&path, fail).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["out.csv"], "no temporary file left beside it");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README stays a page: what a newcomer needs, with the rest in docs/ (every docs/ file it
/// links exists).
#[test]
fn the_readme_is_a_page_and_its_links_resolve() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    assert!(readme.lines().count() <= 250, "README.md has {} lines", readme.lines().count());
    let mut linked = 0;
    for part in readme.split("](").skip(1) {
        let target = part.split([')', '#']).next().unwrap();
        if target.starts_with("docs/") || target.ends_with(".md") {
            assert!(std::path::Path::new(&format!("{root}/{target}")).exists(), "README links {target}");
            linked += 1;
        }
    }
    assert!(linked >= 5, "README links its docs");
}
