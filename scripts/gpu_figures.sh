#!/usr/bin/env bash
# The GPU's own figures (issue 46), run on a lent device machine that has no toolchain.
#
# Here (the CPU machine): `bash scripts/gpu_pack.sh` builds the release binary, the test binaries,
# the compare bench and the Python wheel, strips them and packs them with the commit's name into
# the git-ignored .device/pack.tar.xz; the Vulkan loader goes into .gl/. There (through the
# `device` tool, carry [".device/pack.tar.xz", ".gl", ".whl"]; .whl holds the wheels pytest needs
# that the machine lacks, shapely, jupedsim 1.4.2 and Deprecated, from `pip download`):
#
#   bash scripts/gpu_figures.sh 570     # every step, most wanted first, within 570 s
#
# A step that no longer fits in what is left of the budget is skipped and says so; a second call
# on the same (still warm) machine runs the steps the first did not. ONLY="name name ..." runs
# just those steps (a call on a fresh machine after a first one that ran the rest);
# AB_KINDS the kinds of the A/B step (default crowd,mixed); QUERIES sets how many box and point queries queries_1m runs (default 250,000: at 1,000,000
# parry2d on one core alone takes 93 s). Logs and JSON go to
# /tmp/res, packed into $OUT/res.tgz after every step, so a run cut short still brings back what
# it measured.
set -u
budget=${1:?seconds}
t_start=$(date +%s)
root=$PWD
res=/tmp/res
mkdir -p "$res"
out=${OUT:-/tmp/out}
mkdir -p "$out"

left() { echo $((budget - ($(date +%s) - t_start))); }
pack() { tar czf "$out/res.tgz" -C /tmp res; }
# step NAME ESTIMATE_S COMMAND: runs COMMAND (a bash string) into $res/NAME.log, bounded by what
# is left; skipped when less than ESTIMATE_S is left, or when an earlier call ran it.
step() {
    local name=$1 est=$2 cmd=$3 l rc t0
    [ -e "$res/$name.done" ] && return
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
    l=$(left)
    if [ "$l" -lt "$est" ]; then
        echo "SKIP $name: $l s left, needs about $est" | tee -a "$res/summary.txt"
        return
    fi
    t0=$(date +%s)
    timeout --kill-after=5 $((l - 8)) bash -c "$cmd" >"$res/$name.log" 2>&1
    rc=$?
    echo "$name: rc $rc, $(($(date +%s) - t0)) s" | tee -a "$res/summary.txt"
    touch "$res/$name.done"
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
# NVIDIA's Vulkan driver lives in libGLX_nvidia, which needs libglvnd (the .gl packages).
if ! satgpu adapters 2>/dev/null | grep -qi nvidia; then
    icd=$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -name 'nvidia_icd*.json' 2>/dev/null | head -1)
    [ -n "$icd" ] && export VK_DRIVER_FILES=$icd
fi

kinds="crowd,dense,mixed,clustered,grid,round,pile,scales,outliers,agents,shapes"
compare() { # compare NAME KIND N [ENV...]: parry2d on 1 and all cores beside satgpu, a row a process
    local name=$1 k=$2 n=$3
    shift 3
    echo "CARGO_TARGET_DIR=$res/$name SATGPU_BENCH_KINDS=$k SATGPU_BENCH_N=$n SATGPU_BENCH_REPS=1 $* compare --bench"
}
step info 10 "echo commit \$(cat /tmp/sg/commit); nvidia-smi; lscpu | grep -E 'Model name|^CPU\(s\)'; free -g; echo VK_DRIVER_FILES=\${VK_DRIVER_FILES:-}; find / -xdev -name 'nvidia_icd*.json' 2>/dev/null; ldconfig -p | grep -E 'vulkan|GLX_nvidia|GLdispatch'; satgpu adapters"
if ! satgpu adapters 2>/dev/null | grep -qi nvidia; then
    VK_LOADER_DEBUG=error,warn satgpu adapters >"$res/loader.log" 2>&1
    echo "no NVIDIA adapter: stopping" | tee -a "$res/summary.txt"
    pack
    exit 1
fi
# The GPU's clocks ramp up under load: on 2026-11-26 the first run on an idle H200 gave crowd 1M
# a simulation frame of 7.5 ms and the same scene 40 s later 3.6 ms. A short run first.
step warmup 15 "satgpu bench --kind crowd --n 1000000 --frames 20"
# A/B: where the pack holds a base binary (gpu_pack.sh's BASE_BIN), it and this commit's run
# crowd 1M one after the other, twice, in one step.
if [ -x /tmp/sg/bin/satgpu_base ]; then
    ab="for i in 1 2; do for b in satgpu_base satgpu; do \$b bench --kind ${AB_KINDS:-crowd,mixed} --n 1000000 --frames 10 --json $res/ab_\${b}_\$i.json; done; done"
    step ab_1m 80 "$ab"
fi
# The headline: crowd 1M whole, simulation and resident frames, host spans, a trace.
step bench_crowd1m 25 "satgpu bench --kind crowd --n 1000000 --frames 10 --json $res/bench_crowd1m.json --trace $res/trace_crowd1m.json"
# The whole test suite on the GPU, six binaries at a time (the f64 reference's, the longest,
# first), each into its own log.
tests="mkdir -p $res/tests; { echo test-reference; ls /tmp/sg/tests | grep -vx test-reference; } | xargs -P 6 -I{} bash -c 'timeout 150 /tmp/sg/tests/{} --test-threads 8 >$res/tests/{}.log 2>&1; echo \"{} rc \$?\"'; grep -h '^test result' $res/tests/*.log | sort | uniq -c"
step tests 150 "$tests"
# The crowd simulation: every iteration a fresh detection, and one detection reused.
step sim_1m 15 "satgpu sim --kind agents --n 1000000 --frames 30 --json $res/sim_1m.json"
step sim_10m 25 "satgpu sim --kind agents --n 10000000 --frames 10 --json $res/sim_10m.json"
step sim_1m_reuse 15 "satgpu sim --kind agents --n 1000000 --frames 30 --resolve reuse --json $res/sim_1m_reuse.json"
step sim_10m_reuse 25 "satgpu sim --kind agents --n 10000000 --frames 10 --resolve reuse --json $res/sim_10m_reuse.json"
# The Python wheel, and the wheels of .whl/ where the call carries them (shapely, jupedsim: pytest).
wheel="python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target /tmp/site /tmp/sg/*.whl \$(ls $root/.whl/*.whl 2>/dev/null)"
step python 20 "$wheel && PYTHONPATH=/tmp/site python3 examples/python/bench.py --n 100000,1000000 --frames 5"
step rays_1m 25 "$(compare rays_1m crowd 1000000 SATGPU_BENCH_RAYS=0)"
step queries_1m 60 "$(compare queries_1m crowd 1000000 SATGPU_BENCH_QUERIES=${QUERIES:-250000})"
for k in crowd mixed agents shapes outliers grid clustered dense; do
    step "compare_1m_$k" 40 "$(compare compare_1m_$k $k 1000000)"
done
step margin_1m 40 "$(compare margin_1m crowd 1000000 SATGPU_BENCH_MARGIN=0.5)"
step events_1m 30 "$(compare events_1m crowd 1000000 SATGPU_BENCH_EVENTS=3)"
# round's f64 reference takes over a minute at 1M (up to 1,024 vertices a body), pile's 14M pairs
# about as long: not here.
step bench_1m 100 "satgpu bench --kind crowd,dense,mixed,clustered,grid,outliers,agents,shapes --n 1000000 --frames 5 --json $res/bench_1m.json"
step bench_crowd10m 110 "satgpu bench --kind crowd --n 10000000 --frames 3 --json $res/bench_crowd10m.json"
step bench_100k 40 "satgpu bench --kind $kinds --n 100000 --frames 5 --json $res/bench_100k.json"
for k in crowd dense mixed clustered grid outliers agents shapes pile; do
    step "compare_100k_$k" 15 "$(compare compare_100k_$k $k 100000)"
done
step run_100k 60 "for k in ${kinds//,/ } rooms; do satgpu run --kind \$k --n 100000 2>&1 | tail -4; echo \"rc \${PIPESTATUS[0]}\"; done"
step pytest 30 "$wheel; SATGPU_TEST_ADAPTER=auto PYTHONPATH=/tmp/site python3 -m pytest -q python/tests"
# Many worlds in one World against as many Worlds (issue 45).
step worlds_1m 40 "$wheel && PYTHONPATH=/tmp/site python3 examples/python/worlds.py --worlds 1000 --n 1000 --frames 5"
# Shape casts, continuous collision and the crowd model (issues 43 and 44).
step casts_1m 40 "$(compare casts_1m crowd 1000000 SATGPU_BENCH_CASTS=0)"
step sweeps_1m 60 "$(compare sweeps_1m crowd 1000000 SATGPU_BENCH_SWEEPS=1)"
# JuPedSim's collision-free speed model (issue 43): time per step of the room, 1k to 10M agents.
step cfsm 90 "$wheel && PYTHONPATH=/tmp/site python3 scripts/jupedsim_compare.py timing --satgpu-only --sizes 1000,10000,100000,1000000,10000000 --steps 20 --json $res/cfsm.json"
step compare_100k_round 45 "$(compare compare_100k_round round 100000)"
# scales: on its own (its sweep took over a second a frame before the grid's map, issue 64).
step bench_scales1m 60 "satgpu bench --kind scales --n 1000000 --frames 3 --json $res/bench_scales1m.json"
step bench_pile1m 90 "satgpu bench --kind pile --n 1000000 --frames 3 --json $res/bench_pile1m.json"
# A periodic box's frame against the same frame without one (issue 65; goal 1.2x at most).
step periodic 40 "SATGPU_BENCH_N=100000,1000000,10000000 SATGPU_BENCH_FRAMES=9 periodic --bench"
echo "done in $(($(date +%s) - t_start)) s" | tee -a "$res/summary.txt"
pack
