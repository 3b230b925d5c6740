//! Single kernels against CPU models on random and adversarial inputs: the scan, the radix
//! sort, dispatches folded into 2D grids, and the GPU tuning on a CPU adapter.

mod common;

use common::{bits, gpu_contacts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::gpu::{self, WorldOptions};
use satgpu::reference;
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;

#[test]
fn scan_kernel_matches_a_cpu_model() {
    let _lock = common::gpu();
    scan_matches_cpu_model(&_lock);
    scan_matches_cpu_model(&common::gpu_tuned_for_gpus());
}

fn scan_matches_cpu_model(gpu: &gpu::Gpu) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let sizes = [0usize, 1, 2, 255, 511, 512, 513, 1024, 4097, 262_144, 262_145, 300_001];
    for &n in &sizes {
        let inputs: Vec<Vec<u32>> = vec![
            (0..n).map(|_| rng.random_range(0..5)).collect(),
            vec![0; n],
            vec![1; n],
            (0..n).map(|i| if i % 511 == 0 { 7 } else { 0 }).collect(),
            vec![u32::MAX / (n.max(1) as u32); n],
        ];
        for data in inputs {
            let mut want = Vec::with_capacity(n);
            let mut sum = 0u32;
            for &x in &data {
                want.push(sum);
                sum += x;
            }
            for fold in [65_535, 2] {
                let (got, total) = gpu::testing::exclusive_scan(gpu, &data, fold).unwrap();
                assert_eq!(total, sum, "n={n} fold={fold}: total");
                assert!(
                    got == want,
                    "n={n} fold={fold}: first difference at {:?}",
                    got.iter().zip(&want).position(|(a, b)| a != b)
                );
            }
        }
    }
}

#[test]
fn radix_sort_kernel_matches_a_stable_cpu_sort() {
    let _lock = common::gpu();
    radix_matches_stable_sort(&_lock);
    radix_matches_stable_sort(&common::gpu_tuned_for_gpus());
}

fn radix_matches_stable_sort(gpu: &gpu::Gpu) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for n in [0usize, 1, 2, 127, 128, 1000, 1023, 1024, 1025, 5000, 70_000] {
        let inputs: Vec<Vec<u32>> = vec![
            (0..n).map(|_| rng.random()).collect(),
            vec![7; n],
            (0..n as u32).collect(),
            (0..n as u32).rev().collect(),
            (0..n).map(|i| if i % 2 == 0 { u32::MAX } else { 0 }).collect(),
            (0..n).map(|_| rng.random_range(0..4) << 28).collect(),
            (0..n).map(|_| rng.random_range(0..16)).collect(),
        ];
        for keys in inputs {
            // Values record the input position, so stability is checked too.
            let data: Vec<(u32, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
            for (bits, fold) in [(32, 65_535), (32, 2), (24, 65_535), (8, 3)] {
                let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
                let mut want = data.clone();
                want.sort_by_key(|p| p.0 & mask); // stable; bits above key_bits do not count
                let got = gpu::testing::radix_sort(gpu, &data, bits, fold).unwrap();
                assert_eq!(got, want, "n={n} bits={bits} fold={fold}");
            }
        }
    }
}

#[test]
fn dispatches_folded_into_2d_grids_give_the_same_pairs() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Mixed, 3000, 5);
    let (want, _) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    for fold in [1, 3, 7] {
        let options = WorldOptions::default().with_max_workgroups_per_dimension(fold);
        let (got, _) = gpu_contacts(&gpu, &polygons, &options);
        assert_eq!(bits(&got), bits(&want), "at most {fold} workgroups per row");
    }
}

#[test]
fn gpu_tuning_gives_bitwise_the_same_pairs() {
    let cpu_tuned = common::gpu();
    let gpu_tuned = common::gpu_tuned_for_gpus();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 6000, 21);
        let (a, _) = gpu_contacts(&cpu_tuned, &polygons, &WorldOptions::default());
        let (b, _) = gpu_contacts(&gpu_tuned, &polygons, &WorldOptions::default());
        assert_eq!(bits(&a), bits(&b), "{kind}");
        assert!(
            validate::compare(
                &polygons,
                &b,
                &reference::detect(&polygons, &DetectOptions::default()).contacts,
                &DetectOptions::default()
            )
            .ok(),
            "{kind}"
        );
    }
}
