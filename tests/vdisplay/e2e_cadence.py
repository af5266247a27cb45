#!/usr/bin/env python3
"""e2e_cadence.py — the release margin at a refresh/n cap follows the frames that miss their refresh.

  e2e_cadence.py --manifest-dir DIR --lowlat-manifest-dir DIR --frame-cost PATH [--hz 240]

frame_cost (2 ms frames) runs through lowlat > validation > the virtual display, with a stall
(+6 ms of work) every 100th frame, which makes that frame's present come after its target:
- at cap = refresh/2 (n = 2) every stall counts as a miss in lowlat's summary (the machine may add
  misses of its own, never fewer), and the margin went up to its top, half a refresh
  (pace_display.h: a refresh/8 a miss from refresh/8, 3 stalls reach it);
- at cap = refresh (n = 1) the margin stays fixed: no cadence line, stalls or not.
Both runs pace on the "timing" level, and the validation layer stays silent.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402

SKIP = 77
Fail = e2e_lowlat.Fail
FRAMES = 600
STALL_EVERY = 100
STALL_US = 6000
CADENCE = re.compile(r"(\d+) frames missed the refresh their cadence planned; release margin (\d+) us "
                     r"at the end \(at most (\d+) us\)")


def run(args, fps, tmp):
    os.makedirs(tmp)
    env = e2e_lowlat.lowlat_env(args, tmp, fps)
    cmd = [args.frame_cost, "--frames", str(FRAMES), "--cost-us", "2000", "--stall-every", str(STALL_EVERY),
           "--stall-us", str(STALL_US), "--csv", os.path.join(tmp, "app.csv")]
    print(f"{' '.join(cmd)} at {fps} fps on {args.hz} Hz; logs in {tmp}")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    lines = e2e_lowlat.check_run(p.stdout, p.returncode, tmp)
    levels = [ln for ln in lines if "pacing level" in ln]
    if len(levels) != 1 or 'pacing level "timing"' not in levels[0]:
        raise Fail(f"expected one 'pacing level \"timing\"' line, got {levels}")
    return [m for m in map(CADENCE.search, lines) if m]


def main():
    ap = e2e_lowlat.arg_parser(hz="240")
    ap.add_argument("--frame-cost", required=True, help="the frame_cost test app")
    args = ap.parse_args()
    if e2e_lowlat.cannot_run(vkcube=False):
        return SKIP

    hz = float(args.hz)
    refresh_ns = round(1e9 / hz)
    top_us = (refresh_ns // 8 + 24 * (refresh_ns // 64)) / 1000
    stalls = (FRAMES - 1) // STALL_EVERY
    tmp = tempfile.mkdtemp(prefix="lowlat-cadence-")
    try:
        found = run(args, hz / 2, os.path.join(tmp, "half"))
        if len(found) != 1:
            raise Fail(f"at cap {hz / 2:g} on {hz:g} Hz: expected one cadence line in the summary, got {len(found)}")
        misses, end_us, max_us = (int(x) for x in found[0].groups())
        print(f"cap {hz / 2:g}: {misses} misses for {stalls} stalls, margin at most {max_us} us (top "
              f"{top_us:.0f} us), {end_us} us at the end")
        if misses < stalls:
            raise Fail(f"{misses} frames counted as missed, but {stalls} were stalled past their target")
        if abs(max_us - top_us) > 2:
            raise Fail(f"the margin went up to {max_us} us, not to its top {top_us:.0f} us")
        if end_us > max_us:
            raise Fail(f"the margin at the end, {end_us} us, is above its top {max_us} us")
        found = run(args, hz, os.path.join(tmp, "full"))
        if found:
            raise Fail(f"at cap = refresh the margin is fixed, yet the summary says: {found[0].group(0)}")
        print(f"cap {hz:g}: no cadence margin, as at every cap of the refresh rate")
    except e2e_lowlat.Skip as e:
        print("skipped:", e)
        return SKIP
    except Fail as e:
        print("FAIL:", e, f"(logs in {tmp})")
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
