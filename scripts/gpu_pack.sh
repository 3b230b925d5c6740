#!/usr/bin/env bash
# Packs what scripts/gpu_figures.sh runs on a lent device machine (which has no toolchain and no
# network) into the git-ignored .device/pack.tar.xz: the release binary, every test binary, the
# compare and periodic benches and the Python wheel (abi3, any CPython from 3.9), stripped. The Vulkan loader
# goes into .gl/ (see /work/.library/device/README.md). Run from the repository root.
# BASE_BIN=path packs that satgpu binary too, as bin/satgpu_base: the A/B steps of
# gpu_figures.sh run it and this commit's binary one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=.device/stage
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/tests"

# The executables cargo reports building (of the target named $1, where given).
executables() { jq -r --arg name "${1:-}" 'select(.reason == "compiler-artifact" and .executable != null and ($name == "" or .target.name == $name)) | .executable'; }
cargo build --release --bin satgpu
cp target/release/satgpu "$stage/bin/"
if [ -n "${BASE_BIN:-}" ]; then cp "$BASE_BIN" "$stage/bin/satgpu_base"; fi
cargo build --release --bench compare --message-format=json | executables compare | while read -r f; do
    cp "$f" "$stage/bin/compare"
done
cargo build --release --bench periodic --message-format=json | executables periodic | while read -r f; do
    cp "$f" "$stage/bin/periodic"
done
cargo test --release --no-run --message-format=json |
    jq -r 'select(.reason == "compiler-artifact" and .executable != null and .profile.test) | "\(.target.kind[0])-\(.target.name) \(.executable)"' |
    while read -r name f; do
        cp "$f" "$stage/tests/$name"
    done
python3 -m pip wheel -q --no-deps ./python -w "$stage"
strip "$stage"/bin/* "$stage"/tests/*
pwd >"$stage/manifest_dir"
git rev-parse --short HEAD >"$stage/commit"
XZ_OPT=-9 tar cJf .device/pack.tar.xz -C "$stage" .
ls -l .device/pack.tar.xz
