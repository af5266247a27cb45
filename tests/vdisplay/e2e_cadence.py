#!/usr/bin/env python3
"""e2e_cadence.py — the release margin follows the frames that miss their refresh.

  e2e_cadence.py --manifest-dir DIR --lowlat-manifest-dir DIR --frame-cost PATH [--hz 240]

frame_cost (2 ms frames) runs through lowlat > validation > the virtual display, with a stall
(+6 ms of work) every 100th frame, which makes that frame's present come after its target:
- at cap = refresh/2 (n = 2) every stall counts as a miss in lowlat's summary (the machine may add
  misses of its own, never fewer), and the margin went up to its top, half a refresh
  (pace_display.h: a refresh/8 a miss from refresh/8, 3 stalls reach it);
- at cap = refresh (n = 1) every stall counts as a miss too, and the margin rose from its floor,
  a refresh/64, by at least a refresh/16 (four of its raises), and stayed at most half a refresh;
- at a cap on the time grid (234 fps on 240 Hz, as 117 on 120) the margin stays at its floor: no
  miss is counted, so the summary has no "frames missed" line.
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
MISSED = re.compile(r"(\d+) frames missed the refresh they were planned for; release margin (\d+) us "
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
    return [m for m in map(MISSED.search, lines) if m]


def main():
    ap = e2e_lowlat.arg_parser(hz="240")
    ap.add_argument("--frame-cost", required=True, help="the frame_cost test app")
    args = ap.parse_args()
    if e2e_lowlat.cannot_run(vkcube=False):
        return SKIP

    hz = float(args.hz)
    refresh_ns = round(1e9 / hz)
    step_us = refresh_ns // 64 / 1000
    stalls = (FRAMES - 1) // STALL_EVERY
    tmp = tempfile.mkdtemp(prefix="lowlat-cadence-")
    try:
        for cap, floor, raise_, reach_top in ((hz / 2, 8, 8, True), (hz, 1, 4, False)):
            found = run(args, cap, os.path.join(tmp, f"cap{cap:g}"))
            if len(found) != 1:
                raise Fail(f"at cap {cap:g} on {hz:g} Hz: expected one 'frames missed' line in the summary, "
                           f"got {len(found)}")
            misses, end_us, max_us = (int(x) for x in found[0].groups())
            top_us = 32 * step_us
            print(f"cap {cap:g}: {misses} misses for {stalls} stalls, margin at most {max_us} us (floor "
                  f"{floor * step_us:.0f} us, top {top_us:.0f} us), {end_us} us at the end")
            if misses < stalls:
                raise Fail(f"{misses} frames counted as missed, but {stalls} were stalled past their target")
            if max_us > top_us + 2 or end_us > max_us:
                raise Fail(f"the margin went to {max_us} us and ended at {end_us} us: above its top "
                           f"{top_us:.0f} us, or above where it went")
            if reach_top and abs(max_us - top_us) > 2:
                raise Fail(f"the margin went up to {max_us} us, not to its top {top_us:.0f} us")
            if max_us < (floor + raise_) * step_us - 2:
                raise Fail(f"the margin went up to {max_us} us only: less than its floor and one raise, "
                           f"{(floor + raise_) * step_us:.0f} us")
        time_grid = hz * 0.975
        found = run(args, time_grid, os.path.join(tmp, f"cap{time_grid:g}"))
        print(f"cap {time_grid:g} (the time grid): {len(found)} 'frames missed' lines")
        if found:
            raise Fail(f"at cap {time_grid:g} on {hz:g} Hz, the time grid, lowlat counted misses and moved the "
                       f"margin: {found[0].group(0)}")
    except Fail as e:
        print("FAIL:", e, f"(logs in {tmp})")
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
