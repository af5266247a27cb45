#!/usr/bin/env python3
"""e2e_probe.py — runs a vd_probe scenario through the virtual display (validation above it, a
headless surface below) and checks what the probe saw against the truth log.

  e2e_probe.py --probe PATH --manifest-dir DIR --scenario present-wait|present-wait2|modes|acquire
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdlog  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--manifest-dir", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--frames", default="60")
    ap.add_argument("--hz", default="60")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="vdprobe-")
    log = os.path.join(tmp, "truth.csv")
    vlog = os.path.join(tmp, "validation.txt")
    env = dict(os.environ)
    env.update({
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_INSTANCE_LAYERS": "VK_LAYER_KHRONOS_validation:VK_LAYER_LOWLAT_vdisplay",
        "VK_KHRONOS_VALIDATION_DEBUG_ACTION": "VK_DBG_LAYER_ACTION_LOG_MSG",
        "VK_KHRONOS_VALIDATION_LOG_FILENAME": vlog,
        "LOWLAT_VDISPLAY_LOG": log,
        "LOWLAT_VDISPLAY_HZ": args.hz,
    })
    p = subprocess.run([args.probe, args.scenario, args.frames], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    print("\n".join(l for l in out.splitlines() if "present id=" not in l and "waited id=" not in l)[-3000:])
    if p.returncode != 0:
        fail(f"vd_probe {args.scenario} exited with {p.returncode}")
    rows = vdlog.read(log) if os.path.exists(log) else []
    vdlog.check_invariants(rows, fail)
    shown_at = {r["present_id"]: r["time_ns"] for r in rows if r["event"] == "shown"}

    if args.scenario.startswith("present-wait"):
        waits = [(int(i), int(t)) for i, t in re.findall(r"probe: waited id=(\d+) at=(-?\d+)", out)]
        if not waits:
            fail("no present waits recorded")
        late = []
        for pid, t in waits:
            if pid not in shown_at:
                fail(f"present wait for id {pid} returned but the id was never shown")
            elif t < shown_at[pid]:
                fail(f"present wait for id {pid} returned at {t}, before its first pixel at {shown_at[pid]}")
            else:
                late.append((t - shown_at[pid]) / 1e6)
        if late:
            late.sort()
            print(f"present wait returned {late[len(late) // 2]:.3f} ms (median), {late[-1]:.3f} ms (max) "
                  f"after first pixel, {len(late)} waits")
    if args.scenario == "modes":
        by_mode = {}
        for r in rows:
            by_mode.setdefault(r["mode"], {}).setdefault(r["event"], 0)
            by_mode[r["mode"]][r["event"]] += 1
        print("events by mode:", by_mode)
        if not by_mode.get("FIFO_LATEST_READY", {}).get("skipped"):
            fail("FIFO_LATEST_READY never dropped a request of a burst")
        if not by_mode.get("MAILBOX", {}).get("replaced"):
            fail("MAILBOX (switched to per present) never replaced a request")
        fifo = by_mode.get("FIFO", {})
        if not fifo.get("shown") or fifo.get("skipped") or fifo.get("replaced"):
            fail("FIFO (switched to per present) dropped requests or showed none")
        # FIFO_LATEST_READY: a dropped request was outrun by a later one shown on the same vblank.
        shown_seq = {(r["swapchain"], r["seq"]): r for r in rows if r["event"] == "shown"}
        for r in rows:
            if r["event"] == "skipped":
                by = shown_seq.get((r["swapchain"], r["by"]))
                if not by or by["refresh"] != r["refresh"]:
                    fail(f"request {r['seq']} skipped at refresh {r['refresh']} but {r['by']} not shown then")

    text = open(vlog).read() if os.path.exists(vlog) else ""
    if text.strip():
        fail("validation messages:\n" + text[:4000])
    else:
        print("validation: clean")
    if failures:
        print(f"{len(failures)} failure(s); files kept in {tmp}")
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
