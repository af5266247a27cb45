#!/usr/bin/env python3
"""Behaviour check of the benchmark probe layer (not a benchmark: nothing here is timed).

Runs `vkcube --c 50` with the probe as its only explicit layer and checks that the probe wrote one
CSV row per present, each with entry <= return. Skips (exit 77) without an X display.

usage: probe_test.py VKCUBE PROBE_MANIFEST_DIR
"""
import csv
import os
import subprocess
import sys
import tempfile

FRAMES = 50
SKIP = 77


def main():
    vkcube, manifest_dir = sys.argv[1], sys.argv[2]
    if not os.environ.get("DISPLAY"):
        print("no DISPLAY: run under tools/testroot (which starts Xvfb)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.csv")
        env = dict(os.environ)
        env.update(
            VK_ADD_LAYER_PATH=manifest_dir,
            VK_INSTANCE_LAYERS="VK_LAYER_LOWLAT_bench_probe",
            LOWLAT_PROBE_CSV=path,
        )
        run = subprocess.run([vkcube, "--c", str(FRAMES)], env=env, capture_output=True, text=True,
                             timeout=50)
        if run.returncode != 0:
            print(run.stdout, run.stderr, sep="\n")
            print(f"vkcube exited with {run.returncode}")
            return 1
        if not os.path.exists(path):
            print(run.stderr)
            print("the probe wrote no CSV: was it loaded?")
            return 1
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    if len(rows) != FRAMES:
        print(f"expected {FRAMES} rows, got {len(rows)}")
        return 1
    for row in rows:
        if not 0 < int(row["entry_ns"]) <= int(row["return_ns"]):
            print(f"bad timestamps in row {row}")
            return 1
    print(f"{len(rows)} presents recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
