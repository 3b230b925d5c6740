#!/usr/bin/env bash
# Output bytes of one satgpu binary, for an A/B of a change that must not change them (issue 63):
#   scripts/ab_outputs.sh BIN DIR [N]
# writes into DIR the outputs of detect (basic, full, margins; plain and compound scenes), query (boxes,
# points), raycast, cast, neighbours (radius, k nearest) and sim (push with fresh and reused contacts, cfsm)
# on Vulkan and GL, timings taken out, and DIR/sha256 listing them. Compare two binaries' DIR/sha256 with diff.
set -euo pipefail
bin=$(realpath "$1")
out=$2
n=${3:-20000}
mkdir -p "$out"
cd "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/xdg}
mkdir -p "$XDG_RUNTIME_DIR"

for kind in crowd mixed shapes agents rooms; do
    "$bin" gen --kind "$kind" --n "$n" --seed 7 --out "scene_$kind.json" >/dev/null
done

# Queries, rays and casts over each scene's box, from a fixed seed.
python3 - "$n" <<'EOF'
import json, random, sys
for kind in ["crowd", "mixed", "shapes", "agents", "rooms"]:
    text = open(f"scene_{kind}.json").read()
    nums = []
    for tok in text.replace("[", " ").replace("]", " ").replace(",", " ").split():
        try:
            nums.append(float(tok))
        except ValueError:
            pass
    lo, hi = min(nums), max(nums)
    rng = random.Random(11)
    r = lambda: rng.uniform(lo, hi)
    with open(f"boxes_{kind}.csv", "w") as f:
        f.write("min_x,min_y,max_x,max_y\n")
        for _ in range(2000):
            x, y, w, h = r(), r(), rng.uniform(0, (hi - lo) / 50), rng.uniform(0, (hi - lo) / 50)
            f.write(f"{x},{y},{x + w},{y + h}\n")
    with open(f"points_{kind}.csv", "w") as f:
        f.write("x,y\n")
        for _ in range(2000):
            f.write(f"{r()},{r()}\n")
    with open(f"rays_{kind}.csv", "w") as f:
        f.write("x,y,dx,dy,length\n")
        for _ in range(2000):
            f.write(f"{r()},{r()},{rng.uniform(-1, 1)},{rng.uniform(-1, 1)},{rng.uniform(0, (hi - lo) / 4)}\n")
    with open(f"casts_{kind}.csv", "w") as f:
        f.write("x,y,radius,dx,dy,length,shape,angle\n")
        for i in range(2000):
            shape = str(rng.randrange(50)) if i % 3 == 0 else ""
            f.write(f"{r()},{r()},{rng.uniform(0, 0.5)},{rng.uniform(-1, 1)},{rng.uniform(-1, 1)},"
                    f"{rng.uniform(0, (hi - lo) / 8)},{shape},{rng.uniform(-3, 3)}\n")
with open("cfsm_agents.csv", "w") as f:
    f.write("x,y,desired_speed\n")
    rng = random.Random(5)
    for i in range(60):
        f.write(f"{0.5 + (i % 10) * 0.9},{0.5 + (i // 10) * 1.5},{rng.uniform(1.0, 1.4)}\n")
EOF
echo "POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))" >cfsm_area.wkt

untime() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('frame_ms_median', None); print(json.dumps(d, sort_keys=True))" "$1" >"$1.t" && mv "$1.t" "$1"; }

for backend in vulkan gl; do
    export WGPU_BACKEND=$backend
    for kind in crowd mixed shapes agents rooms; do
        s=scene_$kind.json
        "$bin" detect "$s" --out "$backend.detect.$kind.basic.csv" >/dev/null
        "$bin" detect "$s" --contacts full --out "$backend.detect.$kind.full.csv" >/dev/null
        "$bin" detect "$s" --margin 0.3 --out "$backend.detect.$kind.margin.csv" >/dev/null
        "$bin" query "$s" "boxes_$kind.csv" --out "$backend.query.$kind.boxes.csv" >/dev/null
        "$bin" query "$s" "points_$kind.csv" --out "$backend.query.$kind.points.csv" >/dev/null
        "$bin" raycast "$s" "rays_$kind.csv" --out "$backend.raycast.$kind.csv" >/dev/null
        "$bin" cast "$s" "casts_$kind.csv" --out "$backend.cast.$kind.csv" >/dev/null
        "$bin" neighbours "$s" --radius 0.5 --out "$backend.neighbours.$kind.csv" >/dev/null
        "$bin" neighbours "$s" --radius 2 --k 4 --out "$backend.knn.$kind.csv" >/dev/null
    done
    "$bin" detect scene_crowd.json --out "$backend.detect.crowd.json" >/dev/null
    for kind in agents shapes; do
        for resolve in fresh reuse; do
            f=$backend.sim.$kind.$resolve.json
            "$bin" sim --kind "$kind" --n 5000 --frames 20 --resolve "$resolve" --json "$f" >/dev/null
            untime "$f"
        done
    done
    "$bin" sim --scenario doorway --n 3000 --frames 20 --json "$backend.sim.doorway.json" >/dev/null
    untime "$backend.sim.doorway.json"
    "$bin" sim --model cfsm --geometry cfsm_area.wkt --exit 11.5,4,12,6 --agents cfsm_agents.csv \
        --json "$backend.sim.cfsm.json" >/dev/null
    untime "$backend.sim.cfsm.json"
done
sha256sum scene_*.json vulkan.* gl.* >sha256
wc -l <sha256
