#!/usr/bin/env python3
"""e2e_timegrid.py — lowlat's display-aware pacing for caps that are not refresh/n: vkcube through
lowlat > validation > the virtual display, as in e2e_lowlat.py (whose checks of the chain, the
silent validation layer, the pacing-level and present-mode lines it reuses).

  e2e_timegrid.py --manifest-dir DIR --lowlat-manifest-dir DIR --hz 120 --fps 117 [--vrr-min-hz 48]

- fixed rate (117 fps on 120 Hz, the cap players pick just under refresh): the cap stays on the
  time grid, but every target lowlat sets is a refresh start of the display (within 20 us), not a
  time drifting against the refreshes; successive targets are 1 or 2 refreshes apart; the long-run
  rate of the targets is the cap's (within 0.5%: 2.5% of the steps take two refreshes at 117 on
  120); and each frame is shown on its target's refresh unless it was not ready by then.
- VRR (--vrr-min-hz: the display reports no fixed refresh, refreshInterval UINT64_MAX): targets
  are absolute times on the cap's time grid, 1/fps apart (within 2 us), and a frame ready by its
  target is shown at it (within 50 us, the display's shortest period aside). A step longer by a
  whole number of the display's shortest periods is a drain of frames queued behind a late one,
  which lowlat counts in its summary line: there may be no more of them than it counted. A present
  made after its planned target is given its own time as the target (the grid goes on after it):
  the steps to and from it are not judged, nor those to and from the next target where the
  display's shortest refresh after the late one holds it (layer/brain/pace_grid.c).
Steps after a present the app made later than its planned target are not judged (lowlat restarts
its grid there; a stalled frame on this shared machine does that), nor steps to a frame that
lowlat, by its present log, released so late that it predicted it ready more than an interval
after its deadline (the release time and lead in the log; a busy machine lengthens the lead). The
targets' long-run step is the cap's within 0.5%, and slower by at most a refresh for each present
the app made late (each restarts the grid). A run with more than 5% of its steps restarted or late
fails (a lead that does not cover the frame would make most of them late), more than 5% plus the
share of refreshes the cap leaves empty on a fixed-rate display (2.5% at 117 on 120 Hz): there
lowlat's release margin lets up to one frame per empty refresh come late, the late one taking the
refresh the cap would have left empty (layer/brain/pace_display.h). The test runs once: a miss is
a failure (precise timing is judged in virtual time, tests/sim).
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import Fail  # noqa: E402
import e2e_modes  # noqa: E402
import vdlog  # noqa: E402

WARMUP = 30
VRR_STEP_NS = 2_000
VRR_LATCH_NS = 50_000
MAX_UNJUDGED = 0.05  # docs/rationale.md
# The pacer's deadlines are exact to the nanosecond; this covers the rounding of the fractional
# interval, not a restart.
RESTART_SLACK_NS = 1_000
# VRR steps off 1/fps that neither a late present nor a drain explains. Each was a bug so far (a
# shrinking lead restarted the grid before the last target: 2-4 a run); the share allows one or two
# a run for what a stall of this machine may yet do that the rules above do not know.
MAX_OFF_GRID_VRR = 0.005
DRAINS = re.compile(r"(\d+) display queue drains")


def run_once(args):
    tmp = tempfile.mkdtemp(prefix="lowlat-timegrid-")
    extra = {"LOWLAT_VDISPLAY_VRR_MIN_HZ": args.vrr_min_hz} if args.vrr_min_hz else {}
    env = e2e_lowlat.lowlat_env(args, tmp, args.fps, extra)
    cmd = ["vkcube", "--wsi", "xcb", "--c", str(args.frames)]
    vrr = f" (VRR from {args.vrr_min_hz} Hz)" if args.vrr_min_hz else ""
    print(f"{' '.join(cmd)} at {args.fps} fps on {args.hz} Hz{vrr}; logs in {tmp}")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    lines = e2e_lowlat.check_run(p.stdout, p.returncode, tmp)
    levels = [ln for ln in lines if "pacing level" in ln]
    if len(levels) != 1 or 'pacing level "timing"' not in levels[0]:
        raise Fail(f"expected one 'pacing level \"timing\"' line, got {levels}")

    rows = vdlog.read(os.path.join(tmp, "truth.csv"))
    # Each target as the refresh it asks for; on a fixed rate, lowlat's targets must sit half a
    # refresh before a refresh start (on VRR a target is the flip itself).
    off_targets = {r["seq"] for r in vdlog.aim_targets(rows)}
    errors = []
    vdlog.check_invariants(rows, errors.append)
    if errors:
        raise Fail("truth log invariants: " + "; ".join(errors[:5]))
    targeted = [r for r in rows if r["event"] in ("shown", "skipped", "replaced") and r["target_ns"]]
    paced = targeted[WARMUP:]
    off_grid = [r["seq"] for r in paced if r["seq"] in off_targets]
    if len(paced) < args.frames // 2:
        raise Fail(f"only {len(paced)} targeted requests after the first {WARMUP} of {args.frames}")
    interval = 1e9 / float(args.fps)

    # lowlat's own plan, from its present log: it set each frame's target when it released the frame
    # (the previous present's wait_begin_ns, "now" to its pacer), predicting it ready a lead later
    # (the frame's predicted_ready_ns). A prediction more than an interval after the frame's
    # deadline restarts the grid there. The deadline is the previous target plus an interval on VRR
    # (targets are deadlines), and may be up to a refresh earlier on a fixed rate (targets are the
    # deadlines' next refresh starts).
    plan_rows = sorted((int(r["target_ns"]), r) for r in e2e_modes.log_rows(tmp) if r["target_ns"])
    plan_keys = [t for t, _ in plan_rows]

    def planned(target_ns):
        """lowlat's log row for the target the display read (within the calibration's slack)."""
        i = bisect.bisect_left(plan_keys, target_ns - vdlog.AIM_SLACK_NS)
        if i < len(plan_keys) and abs(plan_keys[i] - target_ns) <= vdlog.AIM_SLACK_NS:
            return plan_rows[i][1]
        return None

    restart_after = 2 * interval - (0 if args.vrr_min_hz else 10**12 / paced[0]["rate_mhz"])

    def restarted(a, b):
        la, lb = planned(a["target_ns"]), planned(b["target_ns"])
        if not la or not lb or not la["wait_begin_ns"] or not lb["predicted_ready_ns"]:
            return False
        predicted = int(la["wait_begin_ns"]) + int(lb["predicted_ready_ns"])
        return predicted > a["target_ns"] + restart_after - RESTART_SLACK_NS

    judged, unjudged = [], 0
    for a, b in zip(paced, paced[1:]):
        # A present after the target planned for it (the previous target plus about an interval),
        # or a frame released so late that lowlat predicted it ready an interval after its
        # deadline: lowlat restarts the grid from it. Not judged.
        if b["queued_ns"] > a["target_ns"] + 1.5 * interval or restarted(a, b):
            unjudged += 1
            continue
        judged.append((a, b))
    if not judged:
        raise Fail("no step between two targets could be judged")

    if args.vrr_min_hz:
        # A frame held by the display's shortest period, or not ready by its target, latches later.
        shortest = 10**12 // paced[0]["rate_mhz"]
        late = {b["seq"] for a, b in zip(paced, paced[1:])
                if b["queued_ns"] >= a["target_ns"] + interval - VRR_STEP_NS}
        # A grid point sooner than the display's shortest refresh after the target before (the
        # grid going on after a late present) is moved to that refresh (layer/brain/pace_grid.c):
        # the steps to and from such a target are not 1/fps.
        held = {b["seq"] for a, b in zip(paced, paced[1:])
                if a["seq"] in late and abs(b["target_ns"] - a["target_ns"] - shortest) <= VRR_STEP_NS}
        on_time = [(a, b) for a, b in judged
                   if a["seq"] not in late | held and b["seq"] not in late | held]
        unjudged += len(judged) - len(on_time)
        judged = on_time
        steps = [b["target_ns"] - a["target_ns"] for a, b in judged]
        drains = [s for s in steps if s > interval + shortest - VRR_STEP_NS
                  and abs((s - interval) - round((s - interval) / shortest) * shortest) <= VRR_STEP_NS]
        counted = sum(int(m.group(1)) for m in map(DRAINS.search, lines) if m)
        off_grid = [s for s in steps if abs(s - interval) > VRR_STEP_NS and s not in drains]
        if len(drains) > counted:
            errors.append(f"{len(drains)} steps of a whole display period more than 1/fps, but lowlat "
                          f"counted {counted} display queue drains")
        prev = {r["seq"]: r for r in rows if r["event"] == "shown"}
        late_latch = [b["seq"] for a, b in judged
                      if b["event"] == "shown" and b["ready_ns"] <= b["target_ns"]
                      and b["time_ns"] - b["target_ns"] > VRR_LATCH_NS
                      and (a["seq"] not in prev or b["time_ns"] > prev[a["seq"]]["time_ns"] + shortest + VRR_LATCH_NS)]
        print(f"{len(judged)} steps judged ({unjudged} after or next to a late present, {len(held)} targets held "
              f"to the shortest refresh after one): {len(off_grid)} not "
              f"{interval / 1e6:.3f} ms apart, {len(drains)} drains ({counted} counted by lowlat); "
              f"{len(late_latch)} frames ready by their target shown later")
        if len(off_grid) > len(judged) * MAX_OFF_GRID_VRR:
            errors.append(f"{len(off_grid)} of {len(judged)} successive VRR targets are not 1/fps apart "
                          f"(e.g. {sorted(off_grid)[len(off_grid) // 2]} ns)")
        if late_latch:
            errors.append(f"requests ready by their target but shown later: {late_latch[:10]}")
    else:
        rate = paced[0]["rate_mhz"]
        period = 10**12 / rate

        def refresh_of(t):
            return round(t * rate / 10**12)

        steps = {}
        for a, b in judged:
            s = refresh_of(b["target_ns"]) - refresh_of(a["target_ns"])
            steps[s] = steps.get(s, 0) + 1
        # Over every targeted frame, late ones too: after a present later than its target the pacer's
        # grid stays where it was (unless it re-anchors), so the steps after it are short again.
        mean_ns = (paced[-1]["target_ns"] - paced[0]["target_ns"]) / (len(paced) - 1)
        missed = [b["seq"] for a, b in judged if b["event"] == "shown" and b["refresh"] != refresh_of(b["target_ns"])
                  and b["ready_ns"] <= vdlog.refresh_start_ns(rate, refresh_of(b["target_ns"]))
                  and a["refresh"] < refresh_of(b["target_ns"])]
        print(f"{len(judged)} steps judged ({unjudged} after a late present): steps in refreshes "
              f"{dict(sorted(steps.items()))}; mean step {mean_ns / 1e6:.4f} ms for a cap interval of "
              f"{interval / 1e6:.4f} ms ({(mean_ns / interval - 1) * 100:+.3f}%); {len(off_grid)} targets off the "
              f"refresh grid; refresh {period / 1e6:.4f} ms")
        if off_grid:
            errors.append(f"targets not half a refresh before a refresh start: requests {off_grid[:10]}")
        # Presents the app made after their target (the display saw them late: a stalled machine)
        # restart the grid, each losing up to a refresh to the long run: the long-run step may be
        # slower than the cap by that much more, never faster.
        slow = 0.005 + unjudged * period / (len(paced) - 1) / interval
        if set(steps) - {1, 2} and not unjudged:
            errors.append(f"targets further apart than two refreshes: {steps}")
        if not -0.005 <= mean_ns / interval - 1 <= slow:
            errors.append(f"the targets' long-run step {mean_ns:.0f} ns is not the cap's {interval:.0f} ns "
                          f"(-0.5%..+{slow * 100:.2f}% after {unjudged} late presents)")
        if missed:
            errors.append(f"requests ready by their target's refresh but shown on another: {missed[:10]}")
    if errors:
        raise Fail("; ".join(errors[:5]))
    empty = 0 if args.vrr_min_hz else max(0.0, 1 - float(args.fps) / float(args.hz))
    if unjudged > len(paced) * (MAX_UNJUDGED + empty):
        return 2, f"{unjudged} of {len(paced)} steps followed a present later than its target", tmp
    return 0, "", tmp


def main():
    ap = e2e_lowlat.arg_parser(hz="120")
    ap.add_argument("--fps", default="117")
    ap.add_argument("--vrr-min-hz", default="")
    ap.add_argument("--frames", type=int, default=600)
    return e2e_lowlat.run_main(ap, run_once)


if __name__ == "__main__":
    sys.exit(main())
