#!/usr/bin/env python3
"""armwsi-lowlat-*: lowlat's "timing" level above Arm's WSI layer, a present-timing implementation
written outside this project (tests/armwsi/build.sh), over lavapipe with a headless surface.

  lowlat.py --app PATH --layer-dir DIR --lowlat-dir DIR --fps N [--refresh-ns NS] [--frames N]
            [--missing WHY] -- APP ARGS...

With --refresh-ns (Arm's layer with the test-only WSI_HEADLESS_REFRESH_NS refresh cycle), the app
is vkd3d_like --timing-queries: it enables VK_EXT_present_timing itself without targets (as
vkd3d-proton does for its statistics), so lowlat owns the targets and hands the app Arm's reports.
Asserted:
- lowlat says pacing level "timing" for the swapchain;
- the first pixels Arm reported, read back by the app itself, are n refreshes apart at the median,
  n = round(refresh rate / fps), within 1%, and at least 85% of the spacings lie within 0.5 ms of
  that median (frames land on the grid, not between it);
- the app's own present calls (its CSV, CLOCK_MONOTONIC) come at the cap: never ahead of it, the
  mean interval from the tenth call to the last at most 1% under 1/fps (lowlat takes back a stall
  on the time grid at the cap's own repeats, so a stretch after one runs faster, never the whole
  run); and not behind it, the mean over the second half (the slope of a least-squares line
  through their times) at most 3% over, or, a half slowed by stalls (intervals over 1.25 of the
  cap's, at most 10% of them), the mean of its other intervals.
Without --refresh-ns (stock: Arm reports a refresh of 1 ns, no cycle), the app is frame_cost:
- lowlat says, in its one line for the swapchain, that it falls back from "timing" because the
  display reports no refresh cycle;
- the app's own present calls come at the cap (same bound).
The test runs once: a miss is a failure. Skipped (77) only
where Arm's layer could not be built, before anything runs.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

SKIP = 77
NEAR_SHARE_MIN = 0.85
MEDIAN_TOLERANCE = 0.01
RATE_FAST, RATE_SLOW = 0.01, 0.03
WARMUP = 10
STALL, STALLED_MAX = 1.25, 0.10  # an interval over 1.25 of the cap's is a stall; at most 10% such


def run_once(a, app_args, tmp):
    csv_path = os.path.join(tmp, "app.csv")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LOWLAT_", "VK_")) and k not in ("ENABLE_LOWLAT_LAYER", "DISABLE_LOWLAT_LAYER",
                                                                  "WSI_HEADLESS_REFRESH_NS")}
    env.update(VK_ADD_LAYER_PATH=a.layer_dir, VK_INSTANCE_LAYERS="VK_LAYER_window_system_integration",
               VK_ADD_IMPLICIT_LAYER_PATH=a.lowlat_dir, ENABLE_LOWLAT_LAYER="1", LOWLAT_FPS=str(a.fps),
               LOWLAT_VERBOSE="1")
    if a.refresh_ns:
        env["WSI_HEADLESS_REFRESH_NS"] = str(a.refresh_ns)
    p = subprocess.run([a.app] + app_args + ["--frames", str(a.frames), "--csv", csv_path], env=env,
                       capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        sys.exit(f"FAIL: {os.path.basename(a.app)} exited {p.returncode} above lowlat and Arm's layer:\n"
                 f"{out[-3000:]}")
    with open(csv_path) as f:
        presents = [int(r["present_ns"]) for r in csv.DictReader(f) if int(r["present_ns"])]
    return out, presents


def judge(a, out, presents):
    """The reasons this run misses its bounds; empty when it meets them."""
    errors = []
    levels = [ln for ln in out.splitlines() if ln.startswith("lowlat: ") and "pacing level" in ln]
    if a.refresh_ns:
        if len(levels) != 1 or 'pacing level "timing"' not in levels[0]:
            errors.append(f'expected one line saying pacing level "timing", got {levels}')
        m = re.search(r"(\d+) own reports read back, first pixels ([\d.]+) ms apart at the median, "
                      r"(\d+) of (\d+) spacings within", out)
        if not m:
            errors.append("the app printed no line about the reports it read back")
        else:
            n, median_ms, near, gaps = int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))
            refresh_ms = a.refresh_ns / 1e6
            want_ms = refresh_ms * max(1, round(1000 / refresh_ms / a.fps))
            print(f"Arm's first pixels, read back by the app: {n} reports, {median_ms:.3f} ms apart at the "
                  f"median (want {want_ms:.3f}), {near} of {gaps} spacings within 0.5 ms of it")
            if n < 0.9 * a.frames:
                errors.append(f"the app read back {n} of {a.frames} reports")
            if abs(median_ms - want_ms) > MEDIAN_TOLERANCE * want_ms:
                errors.append(f"first pixels {median_ms:.3f} ms apart at the median, not {want_ms:.3f}")
            if not gaps or near < NEAR_SHARE_MIN * gaps:
                errors.append(f"only {near} of {gaps} spacings on the median: frames off the grid")
    else:
        if len(levels) != 1 or "fallback from \"timing\"" not in levels[0] or "refresh" not in levels[0]:
            errors.append(f"expected one line saying lowlat falls back from \"timing\" for want of a "
                          f"refresh cycle, got {levels}")
    half = presents[len(presents) // 2:]
    if len(half) < 2 or len(presents) < WARMUP + 2:
        errors.append(f"the app's CSV holds {len(presents)} presents")
        return errors
    # From the tenth call on: the first ones include the app's start-up, which would hide a fast run.
    steady = presents[WARMUP:]
    whole_ns = (steady[-1] - steady[0]) / (len(steady) - 1)
    mean_ns = fitted_interval(half)
    want_ns = 1e9 / a.fps
    print(f"the app's present calls: {whole_ns / 1e6:.3f} ms apart on average over the run, {mean_ns / 1e6:.3f} "
          f"over the second half (cap {want_ns / 1e6:.3f} ms)")
    if whole_ns < want_ns * (1 - RATE_FAST):
        errors.append(f"the app presented every {whole_ns / 1e6:.3f} ms over the run, faster than the cap's "
                      f"{want_ns / 1e6:.3f}")
    if mean_ns > want_ns * (1 + RATE_SLOW):
        # A frame that misses its refresh at refresh/n costs a refresh by design (the next keeps
        # its cadence): a half slowed by stalls is judged on its other intervals, as
        # tests/vdisplay/e2e_engines.py judges its runs.
        gaps = [b - t for t, b in zip(half, half[1:])]
        kept = [g for g in gaps if g <= STALL * want_ns]
        stalled = 1 - len(kept) / len(gaps)
        kept_ns = sum(kept) / len(kept) if kept else 0.0
        print(f"without the {stalled * 100:.1f}% of the second half's intervals over {STALL} of the cap's: "
              f"{kept_ns / 1e6:.3f} ms apart on average")
        if stalled > STALLED_MAX or not kept or kept_ns > want_ns * (1 + RATE_SLOW):
            errors.append(f"the app presented every {mean_ns / 1e6:.3f} ms over the second half, slower than "
                          f"the cap's {want_ns / 1e6:.3f}")
    return errors


def fitted_interval(times):
    """The slope of the least-squares line through times (ns) against their index."""
    n = len(times)
    mid = (n - 1) / 2
    t_mean = sum(times) / n
    return sum((i - mid) * (t - t_mean) for i, t in enumerate(times)) / sum((i - mid) ** 2 for i in range(n))


def main():
    argv = sys.argv[1:]
    app_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--layer-dir", required=True)
    ap.add_argument("--lowlat-dir", required=True)
    ap.add_argument("--fps", type=int, required=True)
    ap.add_argument("--refresh-ns", type=int, default=0)
    ap.add_argument("--frames", type=int, default=360)
    ap.add_argument("--missing", default="")
    a = ap.parse_args(argv)
    if a.missing:
        print(f"SKIP: {a.missing}")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        out, presents = run_once(a, app_args, tmp)
        errors = judge(a, out, presents)
        if not errors:
            print("PASS")
            return 0
        print("\n".join(ln for ln in out.splitlines() if ln.startswith("lowlat: ")))
        print("FAIL: missed:\n  " + "\n  ".join(errors))
    return 1


if __name__ == "__main__":
    sys.exit(main())
