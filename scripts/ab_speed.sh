#!/usr/bin/env bash
# Speed of two satgpu binaries alternated in one run (issue 63: within noise on lavapipe):
#   scripts/ab_speed.sh BIN_A BIN_B [N] [ROUNDS]
# On a generated crowd of N bodies (default 100,000): the bench's whole-frame median, the
# simulation's frame median (agents), and the wall time of N region queries, N rays and N casts
# (each command's own figure, device opening included: the same in both). Prints each round and
# the medians per binary.
set -euo pipefail
a=$(realpath "$1")
b=$(realpath "$2")
n=${3:-100000}
rounds=${4:-3}
dir=$(mktemp -d)
cd "$dir"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/xdg}
mkdir -p "$XDG_RUNTIME_DIR"
"$a" gen --kind crowd --n "$n" --seed 7 --out scene.json >/dev/null
python3 - "$n" <<'PY'
import json, random, sys
n = int(sys.argv[1])
nums = [v for p in json.load(open("scene.json"))["polygons"] for xy in p["vertices"] for v in xy]
lo, hi = min(nums), max(nums)
rng = random.Random(11)
r = lambda: rng.uniform(lo, hi)
with open("boxes.csv", "w") as f:
    f.write("min_x,min_y,max_x,max_y\n")
    for _ in range(n):
        x, y, w, h = r(), r(), rng.uniform(0, (hi - lo) / 200), rng.uniform(0, (hi - lo) / 200)
        f.write(f"{x},{y},{x + w},{y + h}\n")
with open("rays.csv", "w") as f:
    f.write("x,y,dx,dy,length\n")
    for _ in range(n):
        f.write(f"{r()},{r()},{rng.uniform(-1, 1)},{rng.uniform(-1, 1)},{rng.uniform(0, (hi - lo) / 20)}\n")
with open("casts.csv", "w") as f:
    f.write("x,y,radius,dx,dy,length\n")
    for _ in range(n):
        f.write(f"{r()},{r()},{rng.uniform(0, 0.5)},{rng.uniform(-1, 1)},{rng.uniform(-1, 1)},{rng.uniform(0, (hi - lo) / 40)}\n")
PY
ms() { sed -E 's/.* in ([0-9.]+) ms.*/\1/'; }
measure() {
    local bin=$1
    "$bin" bench --scene scene.json --frames 5 --json bench.json >/dev/null
    local frame
    frame=$(python3 -c "import json; d=json.load(open('bench.json')); r=d['results'][0] if 'results' in d else d[0]; print(r['frame_ms_median'])")
    "$bin" sim --kind agents --n "$n" --frames 10 --json sim.json >/dev/null
    local sim
    sim=$(python3 -c "import json; print(json.load(open('sim.json'))['frame_ms_median'])")
    local q r c
    q=$("$bin" query scene.json boxes.csv --out q.csv | ms)
    r=$("$bin" raycast scene.json rays.csv --out r.csv | ms)
    c=$("$bin" cast scene.json casts.csv --out c.csv | ms)
    echo "$frame $sim $q $r $c"
}
echo "round bin frame_ms sim_frame_ms queries_ms rays_ms casts_ms"
for round in $(seq "$rounds"); do
    for which in A B; do
        bin=$a
        [ "$which" = B ] && bin=$b
        echo "$round $which $(WGPU_BACKEND=vulkan measure "$bin")"
    done
done | tee rows.txt
python3 - <<'PY'
import statistics
rows = [l.split() for l in open("rows.txt") if l[0].isdigit()]
names = ["frame_ms", "sim_frame_ms", "queries_ms", "rays_ms", "casts_ms"]
for which in "AB":
    got = [[float(x) for x in r[2:]] for r in rows if r[1] == which]
    print(which, " ".join(f"{n} {statistics.median(c[i] for c in got):.1f}" for i, n in enumerate(names)))
PY
rm -rf "$dir"
