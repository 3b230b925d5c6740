#!/usr/bin/env bash
# The GPU's own figures (issue 46), run on a lent device machine that has no toolchain.
#
# Here (the CPU machine): `bash scripts/gpu_pack.sh` builds the release binary, the test binaries,
# the compare bench and the Python wheel, strips them and packs them with the Vulkan loader into
# the git-ignored folder .device/. There (through the `device` tool, carry [".device", ".gl"]):
#
#   bash scripts/gpu_figures.sh 1 570     # part 1: benches, parry2d, sim, Python; 570 s at most
#   bash scripts/gpu_figures.sh 2 200     # part 2: tests, `satgpu run`, rays, queries, margins, events
#
# Every step has an estimate; a step that no longer fits in what is left of the budget is skipped
# and says so. Logs and JSON go to /tmp/res, packed into $OUT/resPART.tgz after every step, so a
# run cut short still brings back what it measured.
set -u
part=${1:?part 1 or 2}
budget=${2:?seconds}
t_start=$(date +%s)
root=$PWD
res=/tmp/res$part
mkdir -p "$res"
out=${OUT:-/tmp/out}
mkdir -p "$out"

left() { echo $((budget - ($(date +%s) - t_start))); }
pack() { tar czf "$out/res$part.tgz" -C /tmp "res$part"; }
# step NAME ESTIMATE_S COMMAND: runs COMMAND (a bash string) into $res/NAME.log, bounded by what
# is left; skipped when less than ESTIMATE_S is left.
step() {
    local name=$1 est=$2 cmd=$3 l rc t0
    l=$(left)
    if [ "$l" -lt "$est" ]; then
        echo "SKIP $name: $l s left, needs about $est" | tee -a "$res/summary.txt"
        return
    fi
    t0=$(date +%s)
    timeout --kill-after=5 $((l - 8)) bash -c "$cmd" >"$res/$name.log" 2>&1
    rc=$?
    echo "$name: rc $rc, $(($(date +%s) - t0)) s" | tee -a "$res/summary.txt"
    pack
}

# The Vulkan loader and the packed binaries.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ ! -x /tmp/sg/bin/satgpu ]; then
    mkdir -p /tmp/sg && tar xJf .device/pack.tar.xz -C /tmp/sg
fi
export PATH=/tmp/sg/bin:$PATH
# Tests name the crate's folder and binary by the paths they were built at.
manifest=$(cat /tmp/sg/manifest_dir)
if [ "$manifest" != "$root" ]; then
    mkdir -p "$(dirname "$manifest")"
    ln -sfn "$root" "$manifest"
fi
mkdir -p target/release && cp /tmp/sg/bin/satgpu target/release/satgpu
export CARGO_MANIFEST_DIR=$manifest
export WGPU_BACKEND=vulkan
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
if ! satgpu adapters 2>/dev/null | grep -qi nvidia; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi

kinds="crowd,dense,mixed,clustered,grid,round,pile,scales,outliers,agents,shapes"
if [ "$part" = 1 ]; then
    step info 10 "echo commit \$(cat /tmp/sg/commit); nvidia-smi; lscpu | grep -E 'Model name|^CPU\(s\)'; free -g; satgpu adapters"
    # The headline: crowd 1M whole, simulation and resident frames, host spans, a trace.
    step bench_crowd1m 25 "satgpu bench --kind crowd --n 1000000 --frames 10 --json $res/bench_crowd1m.json --trace $res/trace_crowd1m.json"
    step bench_100k 40 "satgpu bench --kind $kinds --n 100000 --frames 5 --json $res/bench_100k.json"
    # round's f64 reference takes over a minute at 1M (up to 1,024 vertices a body): last.
    step bench_1m 150 "satgpu bench --kind crowd,dense,mixed,clustered,grid,scales,outliers,agents,shapes --n 1000000 --frames 5 --json $res/bench_1m.json"
    step bench_crowd10m 90 "satgpu bench --kind crowd --n 10000000 --frames 3 --json $res/bench_crowd10m.json"
    step sim_1m 20 "satgpu sim --kind agents --n 1000000 --frames 30 --json $res/sim_1m.json"
    step sim_10m 40 "satgpu sim --kind agents --n 10000000 --frames 10 --json $res/sim_10m.json"
    step python 30 "python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target /tmp/site /tmp/sg/*.whl && PYTHONPATH=/tmp/site python3 examples/python/bench.py --n 100000,1000000 --frames 5"
    # parry2d contact on 1 and all cores beside satgpu, one process per row so that a cut keeps
    # the rows already run.
    for k in crowd dense mixed clustered grid outliers agents shapes pile round; do
        step "compare_100k_$k" 15 "CARGO_TARGET_DIR=$res/cmp_100k_$k SATGPU_BENCH_KINDS=$k SATGPU_BENCH_N=100000 SATGPU_BENCH_REPS=1 compare --bench"
    done
    for k in crowd mixed dense clustered; do
        step "compare_1m_$k" 45 "CARGO_TARGET_DIR=$res/cmp_1m_$k SATGPU_BENCH_KINDS=$k SATGPU_BENCH_N=1000000 SATGPU_BENCH_REPS=1 compare --bench"
    done
    step bench_pile1m 90 "satgpu bench --kind pile --n 1000000 --frames 3 --json $res/bench_pile1m.json"
else
    # The whole test suite on the GPU, one binary after another.
    step tests 150 "for t in /tmp/sg/tests/*; do echo \"== \$t\"; timeout 100 \"\$t\" --test-threads 16 2>&1 | tail -25; echo \"rc \${PIPESTATUS[0]}\"; done"
    step run_100k 60 "for k in ${kinds//,/ } rooms; do satgpu run --kind \$k --n 100000 2>&1 | tail -4; echo \"rc \${PIPESTATUS[0]}\"; done"
    step rays_1m 40 "CARGO_TARGET_DIR=$res/rays SATGPU_BENCH_RAYS=0 SATGPU_BENCH_KINDS=crowd SATGPU_BENCH_N=1000000 SATGPU_BENCH_REPS=1 compare --bench"
    step queries_1m 40 "CARGO_TARGET_DIR=$res/queries SATGPU_BENCH_QUERIES=1000000 SATGPU_BENCH_KINDS=crowd SATGPU_BENCH_N=1000000 SATGPU_BENCH_REPS=1 compare --bench"
    step margin_1m 40 "CARGO_TARGET_DIR=$res/margin SATGPU_BENCH_MARGIN=0.5 SATGPU_BENCH_KINDS=crowd SATGPU_BENCH_N=1000000 SATGPU_BENCH_REPS=1 compare --bench"
    step events_1m 40 "CARGO_TARGET_DIR=$res/events SATGPU_BENCH_EVENTS=3 SATGPU_BENCH_KINDS=crowd SATGPU_BENCH_N=1000000 compare --bench"
    for k in grid outliers agents shapes; do
        step "compare_1m_$k" 35 "CARGO_TARGET_DIR=$res/cmp_1m_$k SATGPU_BENCH_KINDS=$k SATGPU_BENCH_N=1000000 SATGPU_BENCH_REPS=1 compare --bench"
    done
    step pytest 30 "python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target /tmp/site /tmp/sg/*.whl; PYTHONPATH=/tmp/site python3 -m pytest -q python/tests"
fi
echo "part $part done in $(($(date +%s) - t_start)) s" | tee -a "$res/summary.txt"
pack
