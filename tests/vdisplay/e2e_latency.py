#!/usr/bin/env python3
"""e2e_latency.py — lowlat's latency-frames cap (`max_latency_frames`) on the virtual display: vkcube
capped at the refresh rate of a 540 Hz screen, where lavapipe's frame time is longer than a refresh,
so a frame is released before the one before it is on screen unless lowlat holds it back.

  e2e_latency.py --manifest-dir DIR --lowlat-manifest-dir DIR --scenario cap1|off|uncapped

- cap1: the default (1 while capping): no present is queued before the previous request's first
  pixel (the truth log's queued_ns against the previous shown row's time_ns), except for releases
  lowlat reports it gave up waiting for, or let go past a frame that had missed its refresh in
  FIFO_LATEST_READY (where the next frame takes its place); lowlat's summary says it held
  releases. (A run in which the machine stalled vkcube so long that lowlat turned the cap off
  fails, said as such.)
- off: max_latency_frames 0: lowlat leaves the app's own queue (its summary says nothing held);
  prints how many presents queued behind an unshown one, which shows cap1 can fail.
- uncapped: LOWLAT_FPS=0 with the default: not capping, so the app is left alone too.
- stall: the display stops reporting after request 100 (LOWLAT_VDISPLAY_TIMING_STALL_AFTER): each
  wait gives up after its timeout, lowlat says so once, and after 8 in a row says the cap is off for
  the swapchain; vkcube presents every frame and exits (no hang).
- wait-cap1, wait-off, wait-60: the display withholds VK_EXT_present_timing
  (LOWLAT_VDISPLAY_WITHHOLD), so lowlat says once that the swapchain is on pacing level
  "present-wait" and waits for its own present ids with vkWaitForPresentKHR; its present log says
  fallback "wait" for every paced present ("cpu" with max_latency_frames 0: the CPU grid alone). wait-cap1 asserts what cap1 does, wait-off prints what
  cap1 prevents, wait-60 (run with --hz 120) that a 60 fps cap holds on the display (new images
  per second within 3%, measured by the display, a frame never shown before the one before was, see
  cap1; a run slower than that fails). wait-stall: the
  display's present waits stop succeeding after request 100 (LOWLAT_VDISPLAY_WAIT_STALL_AFTER):
  as stall, lowlat's waits give up after their timeout (100 ms), said once, and after 8 in a row
  the cap is off; vkcube presents every frame and exits.
Validation stays silent and the chain is checked in each (e2e_lowlat.check_run).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import Fail  # noqa: E402
import e2e_modes  # noqa: E402



class Spoilt(Exception):
    """A run that missed a bound the shared machine's stalls can make it miss, said as such."""

HELD = re.compile(r"lowlat: swapchain \d+x\d+: max_latency_frames (\d+) held (\d+) releases until an earlier frame "
                  r"was shown, (\d+) more gave up waiting; (\d+) released past a late frame")


def queued_early(rows):
    """(pairs, early): successive requests where the first was shown, and those of them where the
    second was queued before the first's first pixel."""
    req = {r["seq"]: r for r in rows if r["event"] in ("shown", "skipped", "replaced", "unshown")}
    seqs = sorted(req)
    pairs = early = 0
    for a, b in zip(seqs, seqs[1:]):
        if req[a]["event"] != "shown":
            continue
        pairs += 1
        early += req[b]["queued_ns"] < req[a]["time_ns"]
    return pairs, early


def scenario(args, tmp):
    fps = 0 if args.scenario == "uncapped" else 60 if args.scenario == "wait-60" else args.hz
    extra = {"off": {"LOWLAT_MAX_LATENCY_FRAMES": "0"},
             "wait-off": {"LOWLAT_MAX_LATENCY_FRAMES": "0"},
             "stall": {"LOWLAT_VDISPLAY_TIMING_STALL_AFTER": "100"},
             "wait-stall": {"LOWLAT_VDISPLAY_WAIT_STALL_AFTER": "100"}}.get(args.scenario, {})
    wait_level = args.scenario.startswith("wait-")
    if wait_level:
        extra["LOWLAT_VDISPLAY_WITHHOLD"] = "VK_EXT_present_timing"
    out_lines = []

    rows, _ = e2e_modes.run(args, tmp, fps, extra, args.frames, lines_out=out_lines)
    held = [m for m in map(HELD.search, out_lines) if m]
    pairs, early = queued_early(rows)
    print(f"{args.scenario}: {early} of {pairs} presents queued before the previous frame's first pixel; "
          f"{held[0].group(0) if held else 'lowlat held nothing'}")
    if wait_level and args.scenario != "wait-stall":
        check_wait_level(args, tmp, out_lines, rows, fps)
        if args.scenario == "wait-off":
            if held:
                raise Fail("lowlat held releases with max_latency_frames 0")
            return
    if args.scenario in ("stall", "wait-stall"):
        within = "100 ms" if args.scenario == "wait-stall" else "4 refreshes"
        timeouts = [ln for ln in out_lines if f"was not reported shown within {within}" in ln]
        off = [ln for ln in out_lines if "max_latency_frames is off" in ln]
        presented = sum(r["event"] in ("shown", "skipped", "replaced", "unshown") for r in rows)
        print("\n".join(timeouts + off))
        if len(timeouts) != 1 or len(off) != 1:
            raise Fail(f"expected one timeout line and one 'off' line, got {timeouts + off}")
        # 8 in a row after the stall, and any the busy machine caused before it.
        if not held or int(held[0].group(3)) < 8:
            raise Fail("lowlat's summary does not count at least 8 waits that gave up")
        if presented != args.frames:
            raise Fail(f"{presented} of {args.frames} frames presented")
        return
    if args.scenario not in ("cap1", "wait-cap1", "wait-60"):
        if held:
            raise Fail("lowlat held releases although it should leave the app alone")
        return
    if len(held) != 1 or held[0].group(1) != "1" or int(held[0].group(2)) < 1:
        raise Fail("lowlat's summary does not say max_latency_frames 1 held releases")
    timeouts = int(held[0].group(3))
    if any("max_latency_frames is off" in ln for ln in out_lines):
        # 8 frames in a row more than 4 refreshes (7 ms) late for their targets: the shared machine
        # stalled vkcube.
        raise Spoilt("lowlat turned max_latency_frames off: 8 frames in a row missed their targets by 4 refreshes")
    if pairs < args.frames // 2:
        raise Fail(f"only {pairs} shown frames of {args.frames}")
    superseded = int(held[0].group(4))
    if early > timeouts + superseded:
        raise Fail(f"{early} presents queued before the previous frame's first pixel, {timeouts} explained by "
                   f"a wait that gave up and {superseded} by a late frame in FIFO_LATEST_READY")


def check_wait_level(args, tmp, lines, rows, fps):
    """The "present-wait" level: said once, every paced present logged as such, the cap held."""
    want = 'pacing level "present-wait"'
    said = [ln for ln in lines if want in ln]
    if len(said) != 1 or any('pacing level "' in ln and want not in ln for ln in lines):
        raise Fail(f"expected one line saying {want!r}..., got {[ln for ln in lines if 'pacing level' in ln]}")
    print(said[0])
    logged = e2e_modes.log_rows(tmp)
    # With max_latency_frames 0 nothing of the level paces the presents: the CPU grid alone.
    want_kind = "cpu" if args.scenario == "wait-off" else "wait"
    kinds = {r["fallback"] for r in logged[1:]}
    if kinds != {want_kind}:
        raise Fail(f"lowlat's present log says fallback {kinds} after the first present, expected {want_kind!r} only")
    fps = float(fps)
    display, n = e2e_lowlat.vdlog.new_images_per_second(rows)
    print(f"the display showed {display:.2f} new images/s for a cap of {fps} ({n} images after start-up)")
    if display > fps * 1.03:
        raise Fail(f"the display showed {display:.2f} new images/s, faster than the cap of {fps}")
    if args.scenario == "wait-60" and display < fps * 0.97:
        # A stall of the shared machine longer than an interval re-anchors lowlat's grid (no
        # catch-up burst): its time is lost to the rate.
        raise Spoilt(f"the display showed {display:.2f} new images/s, slower than the cap of {fps} by more than 3%")


def main():
    ap = e2e_lowlat.arg_parser(hz="540")
    ap.add_argument("--scenario", required=True, choices=["cap1", "off", "uncapped", "stall", "wait-cap1", "wait-off", "wait-60",
                                                        "wait-stall"])
    ap.add_argument("--frames", type=int, default=400)
    return e2e_lowlat.run_main(ap, run_once)


def run_once(args):
    """The run of the scenario, for e2e_lowlat.run_judged."""
    tmp = tempfile.mkdtemp(prefix="lowlat-latency-")
    print(f"logs in {tmp}")
    try:
        scenario(args, tmp)
    except Spoilt as e:
        return 2, str(e), tmp
    return 0, "", tmp


if __name__ == "__main__":
    sys.exit(main())
