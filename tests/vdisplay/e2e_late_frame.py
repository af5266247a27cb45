#!/usr/bin/env python3
"""e2e_late_frame.py — one late frame costs one refresh, not two: at cap = refresh in
FIFO_LATEST_READY, the frame after a frame that missed its refresh is released on its grid and
shown on its own refresh in the late one's place (present.c, latency_late_frame_superseded). At a
cap of refresh/2 (--half) it costs one frame its cadence, not two: the frame after it moves a
refresh on with it (present.c, cadence_follow_late). Just under refresh (--near) it is shown a
refresh late rather than replaced by the next frame, which moves on after it.

  e2e_late_frame.py --manifest-dir DIR --lowlat-manifest-dir DIR --frame-cost PATH [--hz 120]
                    [--half | --near | --fifo]

frame_cost (2 ms frames) runs at cap = refresh through lowlat > validation > the virtual display,
which makes every 150th frame ready half a refresh after its GPU work finished
(LOWLAT_VDISPLAY_LATE_READY): a frame handed down before its target that misses it anyway, at
frames the test knows. (Every 150th keeps at most two late samples in lowlat's window of 256, under
its 99th percentile, so its lead stays that of the 2 ms frames and each late frame misses.) Judged are
the late frames N that were presented before their target and not shown on it. For at least half
of them (a stall of the shared machine can delay a release, or the next frame's own work, past its
refresh; in CI under load 4 of 6 passed), and without the exception for none:
- frame N+1 is released (N's present returns) before the refresh after N's target: lowlat did not
  wait for N to be shown first, as max_latency_frames 1 would otherwise (N reaches the screen a
  refresh late, and N+1 would then miss its refresh too);
- frame N+1 is shown exactly one refresh after N's target, its own;
and lowlat's summary counts at least as many releases "past a late frame" as there were such
releases. Fewer than 5 judged frames (the machine made the late frames present after their
targets) fail the run. The test runs once; a miss is a failure (precise timing is judged in virtual time, tests/sim).

With --near the cap is just under refresh (117 on 120 Hz, the time grid): frame N+1 is mostly
planned for the refresh after N's, the one N now takes, and would replace it there. For at least
half of the judged late frames N, N is shown one refresh after its target and N+1 after it: lowlat
read N's GPU work's end from the display's incomplete report before releasing N+1, and moved N+1 a
refresh on (present.c, cadence_follow_late); without that, N is dropped. lowlat's summary counts a
move for at least half of them.

With --half the cap is refresh/2, the late frames are ready three quarters of a refresh late, and
the release margin is fixed at 1 ms (LOWLAT_BENCH_LEAD_MARGIN_US): lowlat's own margin rises with
each miss at refresh/n, up to half a refresh, and with the frames' time under validation the next
frame would then often be presented before the late one was shown, with nothing to move it by.
For at least half of the judged late frames N, frame N+1 is shown exactly 2 refreshes after N,
which was shown a refresh after its target (without the move: 1), and lowlat's summary counts at
least as many frames moved.

With --fifo the cap is refresh again, on the mesa-x11 profile: plain FIFO, as every Mesa WSI has it
(no FIFO_LATEST_READY), the late frames ready three quarters of a refresh late. A late frame N then
takes the next frame's refresh, and max_latency_frames 1 holds N+1 until N is shown; N+1 goes to
the refresh after. For at least half of the judged late frames N, N+1 is shown exactly a refresh
after N (held no longer than that). And one late frame is one miss, not two (it raises the margin
twice, pace_display.h, but counts once): lowlat's summary counts at most as many misses as the
display showed frames more than a refresh and a half after the one before, plus 2 (the held frame
came after its planned target, but the lead had no say in that).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import Fail  # noqa: E402
import e2e_modes  # noqa: E402
import vdlog  # noqa: E402

# A late frame is judged only if it was presented before its target, which under validation on the
# shared VM 2-7 of the 7 in 1200 frames were at 60 and 117 fps (2026-12-03 and 2026-12-05): 11 in
# 1800 frames keep a run from missing the 5 it needs as often (docs/rationale.md).
FRAMES = 1800
FRAMES_HALF = 1800
LATE_EVERY = 150
MIN_JUDGED = 5
NEAR = 0.975  # --near: the cap as a share of the refresh rate, 117 at 120 Hz
MISSED = re.compile(r"(\d+) frames missed the refresh they were planned for")
MOVED = re.compile(r"(\d+) frames moved on after the frame before them missed its refresh")
SUPERSEDED = re.compile(r"max_latency_frames 1 held \d+ releases until an earlier frame was shown, \d+ more gave up "
                        r"waiting; (\d+) released past a late frame")


def run_once(args):
    """The run, for e2e_lowlat.run_judged: (0, "", tmp) passed, (2, why, tmp) missed."""
    return judge(args, tempfile.mkdtemp(prefix="lowlat-late-frame-"))


def presented_in_time(logged):
    """(row, seq, target) of each frame the display made late that lowlat presented before its target,
    with a target on the next frame too. row: its row in lowlat's log (one swapchain: its presents,
    from 0); seq: its request in the display's."""
    for seq in range(LATE_EVERY, len(logged), LATE_EVERY):
        n = seq - 1
        if n + 1 >= len(logged) or not logged[n]["target_ns"] or not logged[n + 1]["target_ns"]:
            continue
        target = int(logged[n]["target_ns"])
        if int(logged[n]["driver_ns"]) < target:
            yield n, seq, target


def judge(args, tmp):
    refresh_ns = round(1e9 / float(args.hz))
    n = 2 if args.half else 1
    cap = f"{float(args.hz) * NEAR:g}" if args.near else f"{float(args.hz) / n:g}"
    # Three quarters of a refresh where the margin may reach its top, half a refresh, and take the
    # late frames back into their refreshes: at refresh/2, and in plain FIFO, where a miss raises it
    # twice.
    late_us = refresh_ns * 3 // 4000 if args.half or args.fifo else refresh_ns // 2000
    extra = {"LOWLAT_VDISPLAY_LATE_READY": f"{LATE_EVERY}:{late_us}"}
    if args.fifo:
        extra["LOWLAT_VDISPLAY_PROFILE"] = "mesa-x11"
    if args.half:
        extra["LOWLAT_BENCH_LEAD_MARGIN_US"] = "1000"
    lines, levels = e2e_lowlat.run_frame_cost(args, tmp, cap, FRAMES_HALF if args.half else FRAMES, extra,
                                              what=f", every {LATE_EVERY}th frame ready {late_us} us late")
    if not any('pacing level "timing"' in ln for ln in levels):
        raise Fail("lowlat did not pace on the \"timing\" level")
    counted = [int(m.group(1)) for m in map(SUPERSEDED.search, lines) if m]
    if len(counted) != 1 and not args.half and not args.near:
        raise Fail("lowlat's summary does not say how many releases it let go past a late frame")
    moved = sum(int(m.group(1)) for m in map(MOVED.search, lines) if m)

    logged = e2e_modes.log_rows(tmp)
    shown = {r["seq"]: r for r in vdlog.read(os.path.join(tmp, "truth.csv")) if r["event"] == "shown"}
    if args.half:
        return judge_half(args, tmp, logged, shown, refresh_ns, moved)
    if args.near:
        return judge_near(args, tmp, logged, shown, refresh_ns, moved)
    if args.fifo:
        misses = sum(int(m.group(1)) for m in map(MISSED.search, lines) if m)
        return judge_fifo(args, tmp, logged, shown, refresh_ns, misses)
    judged = released = on_time = 0
    for n, seq, target in presented_in_time(logged):
        if seq in shown and shown[seq]["time_ns"] <= target:
            continue  # not late after all: nothing to judge
        judged += 1
        # N+1 starts when N's present returns: the frame_start of its row.
        release = int(logged[n + 1]["frame_start_ns"]) - target
        nxt = shown.get(seq + 1)
        step = (nxt["time_ns"] - target) / refresh_ns if nxt else None
        went = release < refresh_ns
        ok = step is not None and abs(nxt["time_ns"] - target - refresh_ns) <= 20000
        released += went
        on_time += ok
        print(f"  frame {n} missed its refresh; frame {n + 1} released {release / 1000:+.0f} us after its target"
              f"{'' if went else ' (held)'}, shown {'never' if step is None else f'{step:+.2f} refreshes after it'}"
              f"{'' if ok else '  <- late'}")
    print(f"of {judged} judged late frames, {released} had the next frame released before their next refresh, "
          f"{on_time} had it shown on its own refresh; lowlat counted {counted[0]} releases past a late frame")
    if judged < MIN_JUDGED:
        return 2, f"only {judged} late frames were presented before their targets", tmp
    # A stall of the shared machine can delay a release, or the next frame's own work, past its
    # refresh; held behind the late frame, none is released in time and none is shown on time.
    if released * 2 < judged:
        raise Fail(f"after {judged - released} of {judged} late frames the next frame was held until the late one's "
                   f"next refresh")
    if on_time * 2 < judged:
        raise Fail(f"after {judged - on_time} of {judged} late frames the next frame missed its own refresh too")
    if counted[0] < released:
        raise Fail(f"lowlat counted {counted[0]} releases past a late frame, but {released} were")
    return 0, "", tmp


def judge_half(args, tmp, logged, shown, refresh_ns, moved):
    """At refresh/2: whether the frame after each late one kept the late one's cadence."""
    judged = kept = 0
    for n, seq, target in presented_in_time(logged):
        if seq not in shown or seq + 1 not in shown or shown[seq]["time_ns"] <= target + refresh_ns // 2:
            continue  # not late after all (or not shown): nothing to judge
        judged += 1
        shown_late = (shown[seq]["time_ns"] - target) / refresh_ns
        step = (shown[seq + 1]["time_ns"] - shown[seq]["time_ns"]) / refresh_ns
        ok = abs(step - 2) < 0.01
        kept += ok
        print(f"  frame {n} shown {shown_late:+.2f} refreshes after its target; frame {n + 1} {step:.2f} refreshes "
              f"after it{'' if ok else '  <- off its cadence'}")
    print(f"of {judged} judged late frames, {kept} had the next frame shown 2 refreshes after them; lowlat moved "
          f"{moved} frames")
    if judged < MIN_JUDGED:
        return 2, f"only {judged} late frames were presented before their targets", tmp
    if kept * 2 < judged:
        raise Fail(f"after {judged - kept} of {judged} late frames the next frame kept its own target, 1 refresh "
                   "after the late one")
    if moved < kept:
        raise Fail(f"lowlat counted {moved} frames moved after a late one, but {kept} were")
    return 0, "", tmp


def judge_near(args, tmp, logged, shown, refresh_ns, moved):
    """Just under refresh: whether each late frame was shown, a refresh after its target, rather than
    replaced by the next one."""
    judged = kept = 0
    for n, seq, target in presented_in_time(logged):
        if seq in shown and shown[seq]["time_ns"] <= target + refresh_ns // 2:
            continue  # not late after all: nothing to judge
        judged += 1
        late = shown.get(seq)
        step = (late["time_ns"] - target) / refresh_ns if late else None
        ok = step is not None and abs(step - 1) < 0.01 and seq + 1 in shown and \
            shown[seq + 1]["time_ns"] > late["time_ns"]
        kept += ok
        print(f"  frame {n} missed its refresh; shown {'never' if step is None else f'{step:+.2f} refreshes after it'}"
              f"{'' if ok else '  <- replaced or late'}")
    print(f"of {judged} judged late frames, {kept} were shown a refresh after their target; lowlat moved {moved} "
          "frames on after one")
    if judged < MIN_JUDGED:
        return 2, f"only {judged} late frames were presented before their targets", tmp
    if kept * 2 < judged:
        raise Fail(f"{judged - kept} of {judged} late frames were not shown on the refresh after their target")
    if moved * 2 < judged:
        raise Fail(f"lowlat counted {moved} frames moved on after a late one, of {judged} late frames")
    return 0, "", tmp


def judge_fifo(args, tmp, logged, shown, refresh_ns, misses):
    """Plain FIFO at cap = refresh: the frame after each late one held no longer than the late one's
    refresh, and each late frame one miss."""
    judged = kept = 0
    for n, seq, target in presented_in_time(logged):
        if seq not in shown or shown[seq]["time_ns"] <= target + refresh_ns // 2:
            continue  # not late after all: nothing to judge
        judged += 1
        nxt = shown.get(seq + 1)
        step = (nxt["time_ns"] - shown[seq]["time_ns"]) / refresh_ns if nxt else None
        ok = step is not None and abs(step - 1) < 0.01
        kept += ok
        print(f"  frame {n} shown {(shown[seq]['time_ns'] - target) / refresh_ns:+.2f} refreshes after its target; "
              f"frame {n + 1} {'never' if step is None else f'{step:.2f} refreshes after it'}"
              f"{'' if ok else '  <- held'}")
    seqs = sorted(shown)
    off = sum(1 for a, b in zip(seqs, seqs[1:]) if shown[b]["time_ns"] - shown[a]["time_ns"] > 1.5 * refresh_ns)
    print(f"of {judged} judged late frames, {kept} had the next frame shown a refresh after them; lowlat counted "
          f"{misses} misses, the display showed {off} frames off the cadence")
    # Judged on every frame, whichever were late: a count gone double also raises the margin until
    # the late frames make their refresh, and too few are left to judge the hold by.
    if misses > off + 2:
        raise Fail(f"lowlat counted {misses} misses for {off} frames off the cadence: a frame held behind a late "
                   "one was counted as a miss of its own")
    if judged < MIN_JUDGED:
        return 2, f"only {judged} late frames were presented before their targets", tmp
    if kept * 2 < judged:
        raise Fail(f"after {judged - kept} of {judged} late frames the next frame was shown more than a refresh "
                   "after the late one")
    return 0, "", tmp


def main():
    ap = e2e_lowlat.arg_parser(hz="120")
    ap.add_argument("--frame-cost", required=True, help="the frame_cost test app")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--half", action="store_true", help="cap at refresh/2 (the cadence of 2 refreshes)")
    mode.add_argument("--near", action="store_true", help=f"cap at {NEAR} x refresh (the time grid)")
    mode.add_argument("--fifo", action="store_true", help="cap at refresh in plain FIFO (the mesa-x11 profile)")
    return e2e_lowlat.run_main(ap, run_once, vkcube=False)


if __name__ == "__main__":
    sys.exit(main())
