"""The tables of BENCHMARKS.md's GPU section from what scripts/gpu_figures.sh brought back.

    python3 scripts/gpu_tables.py RES_DIR    # RES_DIR: the unpacked res/ of res.tgz

Prints Markdown: satgpu bench per kind and size, satgpu beside parry2d (compare bench), the
simulation and the Python crossing, with the goals of issue 46 beside the figures.
"""

import json
import re
import sys
from pathlib import Path


def f(x, digits=1):
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def bench_rows(res):
    rows = []
    seen = set()
    for name in ["bench_100k", "bench_1m", "bench_crowd1m", "bench_crowd10m", "bench_scales1m", "bench_pile1m"]:
        path = res / f"{name}.json"
        if path.exists():
            for r in json.loads(path.read_text()):
                # bench_1m and bench_crowd1m both hold crowd 1M: the first one read is shown.
                if (r["scene"], r["n"]) not in seen:
                    seen.add((r["scene"], r["n"]))
                    rows.append(r)
    rows.sort(key=lambda r: (r["n"], r["scene"]))
    return rows


def gpu_passes_ms(r):
    return sum(v for k, v in r["passes"].items() if k not in ("upload", "readback"))


def print_bench(rows):
    print("| scene | n | colliding | frame | sim frame | sim f32 | sim view | resident | GPU passes | "
          "pack | staging_write | sim wait | 1 / 2 in flight | CPU reference | agrees |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        h, s = r["host_spans"], r["sim_host_spans"]
        print(f"| {r['scene']} | {r['n']:,} | {r['colliding']:,} | {f(r['frame_ms_median'])} | "
              f"{f(r['sim_frame_ms_median'], 2)} | {f(r['sim_frame_f32_ms_median'], 2)} | "
              f"{f(r['sim_frame_view_ms_median'], 2)} | **{f(r['resident_frame_ms_median'], 2)}** | "
              f"{f(gpu_passes_ms(r), 2)} | {f(h.get('pack'))} | {f(h.get('staging_write'))} | "
              f"{f(s.get('wait'), 2)} | {f(r['batch_frame_ms'])} / {f(r['batch_two_in_flight_ms'])} | "
              f"{f(r['reference_ms'], 0)} | {'yes' if r['agrees'] else '**no**'} |")


def print_passes(rows):
    names = ["transform", "entries", "sort", "sweep_count", "scan_candidates", "sweep_write", "sat",
             "compact", "order"]
    print("| scene | n | " + " | ".join(names) + " | sum |")
    print("|---|---:|" + "---:|" * (len(names) + 1))
    for r in rows:
        p = r["passes"]
        print(f"| {r['scene']} | {r['n']:,} | " + " | ".join(f(p.get(k), 2) for k in names)
              + f" | {f(gpu_passes_ms(r), 2)} |")


def compare_rows(res):
    rows = []
    for path in sorted(res.glob("compare_*/bench-compare.json")):
        rows += json.loads(path.read_text())["rows"]
    rows.sort(key=lambda r: (r["n"], r["kind"]))
    return rows


def print_compare(rows):
    print("| kind | n | colliding | satgpu frame | satgpu step | parry2d contact, 1 core | "
          "parry2d contact, 16 cores | 16 cores / satgpu frame | 16 cores / satgpu step | "
          "CPU reference | satgpu agrees | parry2d off |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        off = len(r["parry_contact"]["out_of_band"])
        print(f"| {r['kind']} | {r['n']:,} | {r['pairs_reference']:,} | {f(r['gpu_frame_ms'])} | "
              f"{f(r['gpu_step_ms'], 2)} | {f(r['parry_contact_ms'], 0)} | "
              f"{f(r['parry_contact_all_cores_ms'], 0)} | "
              f"{f(r['parry_contact_all_cores_ms'] / r['gpu_frame_ms'])}x | "
              f"{f(r['parry_contact_all_cores_ms'] / r['gpu_step_ms'], 0)}x | {f(r['reference_ms'], 0)} | "
              f"{'yes' if r['gpu_ok'] else '**no**'} | {off} |")


def print_sim(res):
    print("| agents | contacts | frames | frame median, ms | colliding first -> last | largest penetration last |")
    print("|---:|---|---:|---:|---|---:|")
    for name in ["sim_1m", "sim_1m_reuse", "sim_10m", "sim_10m_reuse"]:
        path = res / f"{name}.json"
        if path.exists():
            d = json.loads(path.read_text())
            resolve = "reused" if name.endswith("reuse") else "fresh"
            print(f"| {d['n']:,} | {resolve} | {d['frames']} | {f(d['frame_ms_median'], 2)} | "
                  f"{d['colliding'][0]:,} -> {d['colliding'][-1]:,} | "
                  f"{d['max_depth'][-1] / d['body_radius']:.2%} of a radius |")


def print_ab(res):
    """The A/B step's runs in the order they ran: frame and host spans per binary and round."""
    print("| binary, round | scene | frame | pack | staging_write | wait | sim frame | resident |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for i in (1, 2):
        for b in ("satgpu_base", "satgpu"):
            path = res / f"ab_{b}_{i}.json"
            if not path.exists():
                continue
            for r in json.loads(path.read_text()):
                h = r["host_spans"]
                print(f"| {b} {i} | {r['scene']} | {f(r['frame_ms_median'], 2)} | {f(h.get('pack'), 2)} | "
                      f"{f(h.get('staging_write'), 2)} | {f(h.get('wait'), 2)} | {f(r['sim_frame_ms_median'], 2)} | "
                      f"{f(r['resident_frame_ms_median'], 2)} |")


def main():
    res = Path(sys.argv[1])
    rows = bench_rows(res)
    print("### satgpu bench\n")
    print_bench(rows)
    print("\n### GPU passes (timestamp queries, ms)\n")
    print_passes(rows)
    print("\n### Beside parry2d\n")
    print_compare(compare_rows(res))
    if list(res.glob("ab_*.json")):
        print("\n### A/B\n")
        print_ab(res)
    print("\n### satgpu sim\n")
    print_sim(res)
    python = res / "python.log"
    if python.exists():
        print("\n### Python (examples/python/bench.py)\n\n```")
        print(python.read_text().strip())
        print("```")
    summary = res / "summary.txt"
    if summary.exists():
        print("\n### Steps\n\n```")
        print(re.sub(r"\n+", "\n", summary.read_text()).strip())
        print("```")


if __name__ == "__main__":
    main()
