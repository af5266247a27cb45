#!/usr/bin/env python3
"""e2e_probe.py — runs a vd_probe scenario through the virtual display (validation above it, a
headless surface below) and checks what the probe saw against the truth log.

  e2e_probe.py --probe PATH --manifest-dir DIR --scenario present-wait|present-wait2|modes|acquire
               [--lowlat-manifest-dir DIR --lowlat-fps FPS]

With --lowlat-manifest-dir, lowlat runs on top (implicit, capping at --lowlat-fps): the probe
drives present ids, present wait and VK_EXT_present_timing itself, so every check must hold as
without it: lowlat adds no ids, never touches a present that carries the app's own target, answers
the app's stage queries from the display's own reports, and keeps the app's results queue at the
size the app set (QUEUE_FULL when it is full). lowlat must say once that the swapchain is on
pacing level "timing" (the app's presents without targets are lowlat's to pace), and (timing
scenario, whose presents carry targets) once that it adds no cap over those targets.

With --withhold-timing too, the display offers no VK_EXT_present_timing: lowlat then says once that
the swapchain is on pacing level "present-wait", gives the display its own present ids (replacing
the probe's VkPresentIdKHR or VkPresentId2KHR in a copy of the present's chain) and translates the
probe's vkWaitForPresentKHR / vkWaitForPresent2KHR; the probe's checks must hold as without lowlat
(each wait returns after its id's first pixel, a wait for an id never presented times out), and
validation must stay silent about the ids lowlat attaches. present_mode is fifo there: the probe's
checks assume FIFO.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdlog  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


STAGE_QUEUE_OPS_END, STAGE_DEQUEUED, STAGE_PIXEL_OUT, STAGE_PIXEL_VISIBLE = 1, 2, 4, 8


def check_timing(out, rows):
    m = re.search(r"probe: refreshDuration=(\d+) refreshInterval=(\d+) domain=(\d+)", out)
    rate = rows[0]["rate_mhz"] if rows else 60000
    period = 10**12 / rate
    if not m or abs(int(m.group(1)) - period) > 1 or m.group(1) != m.group(2):
        fail(f"swapchain timing properties wrong for {rate} mHz: {m and m.groups()}")
    # CLOCK_MONOTONIC (the monotonic profile) or PRESENT_STAGE_LOCAL (every other): the probe
    # converts stage-local times with its calibrations, to the ns but for rounding.
    monotonic = bool(m) and m.group(3) == "1"
    if m and m.group(3) not in ("1", "1000208000"):
        fail(f"time domain {m.group(3)} is neither CLOCK_MONOTONIC nor PRESENT_STAGE_LOCAL")
    tolerance = 0 if monotonic else 2000
    if "refused 1 of 5" not in out:
        fail("the fifth present asking for stage times was not refused with QUEUE_FULL")
    shown = {r["present_id"]: r for r in rows if r["event"] == "shown"}
    stages = {}
    for pid, stage, t in re.findall(r"probe: timing id=(\d+) stage=(\d+) time=(\d+) raw=\d+ complete=1", out):
        stages.setdefault(int(pid), {})[int(stage)] = int(t)
    for pid, st in sorted(stages.items()):
        r = shown.get(pid)
        if not r:
            fail(f"timing result for id {pid}, which the display never showed")
            continue
        want = {STAGE_QUEUE_OPS_END: r["ready_ns"], STAGE_DEQUEUED: r["time_ns"], STAGE_PIXEL_OUT: r["time_ns"],
                STAGE_PIXEL_VISIBLE: r["time_ns"]}
        if st.keys() != want.keys() or any(abs(st[k] - want[k]) > tolerance for k in want):
            fail(f"id {pid}: stage times {st}, truth log says {want} (tolerance {tolerance} ns)")
    print(f"timing results for ids {sorted(stages)} match the truth log (tolerance {tolerance} ns)")
    # Targets: the refresh each must latch on, from the spec's rules.
    def start(k):
        return k * 10**12 // rate
    last = None
    for pid, t, flags in re.findall(r"probe: target id=(\d+) time=(\d+) flags=(\d+)", out):
        pid, t, flags = int(pid), int(t), int(flags)
        r = shown.get(pid)
        if not r:
            fail(f"targeted present {pid} never shown")
            continue
        if flags & 1:  # relative to the previous first pixel
            t = last["time_ns"] + t
        k = (t * rate) // 10**12
        while start(k) < t:
            k += 1
        if flags & 2:  # nearest: the vblank before, when the target is in the first half of its cycle
            prev = k - 1 if start(k) != t else k
            if 2 * (t - start(prev)) < period:
                k = prev
        # A request not ready by that refresh (the probe's GPU work stalled on a busy machine)
        # latches on the first refresh after it was ready instead.
        if r["ready_ns"] > start(k):
            k = (r["ready_ns"] * rate) // 10**12
            while start(k) < r["ready_ns"]:
                k += 1
            print(f"targeted present {pid} was ready only at {r['ready_ns']}: its refresh is {k}")
        if r["refresh"] != k:
            fail(f"targeted present {pid} (flags {flags}) shown on refresh {r['refresh']}, spec says {k}")
        else:
            print(f"targeted present {pid} (flags {flags}) shown on refresh {k} as the spec says")
        if not (flags & 1) and abs(r["target_ns"] - t) > tolerance:
            fail(f"truth log target {r['target_ns']} != {t} (tolerance {tolerance} ns)")
        last = r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--manifest-dir", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--frames", default="60")
    ap.add_argument("--hz", default="60")
    ap.add_argument("--no-validation", action="store_true", help="for the TSan build: validation is not instrumented")
    ap.add_argument("--lowlat-manifest-dir", help="run lowlat on top, from this implicit manifest directory")
    ap.add_argument("--lowlat-fps", default="240")
    ap.add_argument("--withhold-timing", action="store_true",
                    help="the display withholds VK_EXT_present_timing (lowlat's present-wait level)")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="vdprobe-")
    log = os.path.join(tmp, "truth.csv")
    vlog = os.path.join(tmp, "validation.txt")
    env = dict(os.environ)
    env.update({
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_INSTANCE_LAYERS": ("" if args.no_validation else "VK_LAYER_KHRONOS_validation:")
        + "VK_LAYER_LOWLAT_vdisplay",
        "VK_KHRONOS_VALIDATION_DEBUG_ACTION": "VK_DBG_LAYER_ACTION_LOG_MSG",
        "VK_KHRONOS_VALIDATION_LOG_FILENAME": vlog,
        "LOWLAT_VDISPLAY_LOG": log,
        "LOWLAT_VDISPLAY_HZ": args.hz,
    })
    if args.lowlat_manifest_dir:
        env.update({
            "VK_ADD_IMPLICIT_LAYER_PATH": args.lowlat_manifest_dir,
            "ENABLE_LOWLAT_LAYER": "1",
            "LOWLAT_FPS": args.lowlat_fps,
            "LOWLAT_VERBOSE": "1",
            "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
        })
    if args.withhold_timing:
        env["LOWLAT_VDISPLAY_WITHHOLD"] = "VK_EXT_present_timing"
        env["VD_PROBE_NO_TIMING"] = "1"
        # FIFO, as the probe's checks assume (every waited id shown): lowlat's auto mode would
        # present in FIFO_LATEST_READY while it caps, where a request may be dropped.
        env["LOWLAT_PRESENT_MODE"] = "fifo"
    p = subprocess.run([args.probe, args.scenario, args.frames], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    print("\n".join(l for l in out.splitlines() if "present id=" not in l and "waited id=" not in l)[-3000:])
    if p.returncode != 0:
        fail(f"vd_probe {args.scenario} exited with {p.returncode}")
    if "ThreadSanitizer" in out:
        fail("ThreadSanitizer reported:\n" + out[out.index("ThreadSanitizer") - 200:][:4000])
    rows = vdlog.read(log) if os.path.exists(log) else []
    vdlog.check_invariants(rows, fail)
    shown_at = {r["present_id"]: r["time_ns"] for r in rows if r["event"] == "shown"}

    if args.scenario.startswith("present-wait"):  # noqa: SIM102
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

    if args.scenario == "timing":
        check_timing(out, rows)
    if args.lowlat_manifest_dir:
        levels = [ln for ln in out.splitlines() if ln.startswith("lowlat: ") and "pacing level" in ln]
        want = 'pacing level "present-wait"' if args.withhold_timing else 'pacing level "timing"'
        if len(levels) != 1 or want not in levels[0] or "VK_EXT_present_timing" not in levels[0]:
            fail(f"expected one line from lowlat saying {want!r}, got {levels}")
        else:
            print(levels[0])
        # Its own targets at or under the cap stand (the probe's checks see them honoured), and
        # lowlat says once what it does with them.
        own = [ln for ln in out.splitlines() if "sets its own present-timing targets" in ln]
        if args.scenario == "timing" and (len(own) != 1 or "the cap holds" not in own[0]):
            fail(f"expected one line from lowlat saying the cap holds over the app's targets, got {own}")
        elif own:
            print(own[0])
    if args.scenario == "concurrent":
        shown = [r for r in rows if r["event"] == "shown"]
        if len(shown) < int(args.frames) - 3 or any(r["event"] in ("replaced", "skipped") for r in rows):
            fail(f"FIFO showed {len(shown)} of {args.frames} presents")

    text = open(vlog).read() if os.path.exists(vlog) else ""
    if text.strip():
        fail("validation messages:\n" + text[:4000])
    else:
        print("validation: clean")
    return vdlog.finish(failures, tmp)


if __name__ == "__main__":
    sys.exit(main())
