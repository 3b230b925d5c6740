//! Choosing the adapter: by PCI bus id (`GpuOptions::with_pci_bus_id`), as a cluster's scheduler
//! hands out one GPU of several alike; ids in other forms, and ids no adapter has, are refused by
//! name.

use satgpu::gpu::{list_adapters, Gpu, GpuOptions};
use satgpu::Error;

#[test]
fn an_adapter_is_chosen_by_its_pci_bus_id_and_a_bad_id_is_refused_by_name() {
    match Gpu::new(&GpuOptions::default().with_pci_bus_id("gpu0")) {
        Err(Error::InvalidSetting { what: "pci_bus_id", detail }) => {
            assert_eq!(detail, "\"gpu0\" is no PCI bus id ([domain:]bus:device.function, hexadecimal)")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    match Gpu::new(&GpuOptions::default().with_pci_bus_id("ffff:ff:1f.7")) {
        Err(e @ Error::NoAdapter { .. }) => assert!(e.to_string().contains("PCI bus id \"ffff:ff:1f.7\""), "{e}"),
        other => panic!("expected no adapter, got {other:?}"),
    }
    // Every usable adapter that has a PCI bus id opens by it, in nvidia-smi's form too (a software
    // adapter has none).
    for report in list_adapters().into_iter().filter(|r| r.unsuitable.is_none()) {
        let id = &report.info.device_pci_bus_id;
        if id.is_empty() {
            continue;
        }
        let gpu = Gpu::new(&GpuOptions::default().with_pci_bus_id(format!("0000{id}"))).unwrap();
        assert_eq!(&gpu.adapter_info().device_pci_bus_id, id);
    }
}
