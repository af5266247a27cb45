#!/usr/bin/env python3
"""e2e_engines.py — issue 8's Proton-pattern apps (tests/apps/dxvk_like, vkd3d_like) through lowlat
at a cap on the virtual display, validation between lowlat and the display.

  e2e_engines.py --app PATH --manifest-dir DIR --lowlat-manifest-dir DIR [--faults-manifest-dir DIR
                 --faults SPEC] [--hz 120] [--fps 60] [--release-max-ms MS] [--photon-max-frames N]
                 [--late-max-ms MS] [--targets] [--resize] [--no-validation] -- APP ARGS...

Asserts, for one run:
- the chain is vdisplay < validation [< faults] < lowlat, the app exited 0, validation said nothing
  (and, for a ThreadSanitizer build, TSan neither), and the display saw no call whose swapchain the
  app must synchronise with its presents (vkGetSwapchainTimingPropertiesEXT,
  vkGetSwapchainTimeDomainPropertiesEXT) from a thread other than the presenting one: the apps make
  theirs there, so such a call is lowlat's, outside any call of the app's on that swapchain;
- lowlat's summaries (one per swapchain the app made) count every present the app made that
  succeeded, and as failed the ones that returned OUT_OF_DATE; with --faults, each injected fault
  happened and the app recreated its swapchain for it;
- the cap held, seen from the game thread: the app's own frame starts (CLOCK_MONOTONIC, its CSV),
  in the steady part of each swapchain (from its 10th frame on), are never more than 3% faster than
  the cap, nor more than 3% slower; a run slower than that after stalls, seen from outside (the app
  starting a frame more than 1.5 intervals after the one before, or the display showing an image
  more than 1.25 frames after the one before), is judged without them: at most 10% of the
  intervals stalled, and the others within 3% of the cap;
- the display's truth log shows the same: new images per second within 3% of the cap (same rule);
- how late the game thread starts a frame, printed three ways (medians over frames 10 on): after
  lowlat's wait for frame N - L's present ends (L: the app's --latency; the counter lets frame N
  start once frame N - L is signalled); before the frame's first pixel on the display (truth log,
  by present id); before lowlat's wait for the frame's own present ends (the measure
  tests/e2e/dxvk_lib.sh prints for real DXVK). --release-max-ms bounds the first (taken from the
  later of lowlat's release and frame N - L's first pixel, or its GPU work done where the app did
  not wait for the present: lowlat may release a frame before it is shown, see late_start),
  --photon-max-frames and --late-max-ms the others;
- with --display-targets: lowlat's summaries count its own display targets on at least 90% of the
  presents (its wait point, wherever it is, paces on the display grid);
- with --refresh-grid (the display withholds VK_EXT_present_timing and present wait; lowlat reads its
  refresh clock through LOWLAT_REFRESH_SOURCE=fixed:HZ, the "drm" level): lowlat says pacing level
  "drm", logs at least 90% of the presents as released on that grid (a planned vblank and a lead),
  the game thread starts each frame within 1 ms (median) of that vblank minus the lead, and at
  least 90% of frames are shown on the refresh planned for them (fewer only after stalls and with
  none that was ready by its refresh, else a failure);
- with --targets (vkd3d_like --target-fps): every present that carried the app's own target reached
  the display with exactly that target (lowlat left it alone), and latched on the refresh the spec
  gives for it (absolute, nearest refresh cycle), unless its GPU work was not ready by then or the
  request before it still held the queue; and lowlat says once that it falls back to "cpu"
  because the app drives VK_EXT_present_timing itself.

Where lowlat says a swapchain is on pacing level "present-wait" (the display withholds
VK_EXT_present_timing), lowlat owns the present ids the display sees: on each swapchain they are
exactly 1, 2, 3, ... in request order whatever ids the app attached (vkd3d_like skips some); the
truth log's ids are then mapped back to the app's by that order for the checks above, and each of
the app's own present waits (translated by lowlat) returned at or after its frame's first pixel,
within 1.5 frames of it at the median (lowlat's wait point holds them until its release).

The test runs once; a miss is a failure (precise timing is judged in virtual time, tests/sim). An app that reports a missing extension (e.g.
"VK_NV_low_latency2 not offered", which lowlat provides) fails. Skipped (exit 77) only where it cannot run, decided before the app
starts: no X display, no validation layer.
"""
import csv
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import SKIP  # noqa: E402
import vdlog  # noqa: E402

SLOWED = 2
BOUND = 0.03
STALLED_MAX = 0.10  # the share of intervals a run slowed by stalls may lose to them
WARMUP = 10  # frames per swapchain: start-up, and the game thread's run-ahead of L frames
WAIT_SEEN_US = 100  # how long a FIFO_RELAXED frame must wait for a refresh to show it (relaxed_tears)


class Fail(Exception):
    pass


# How much less than two intervals two releases may span and still be one late release and its
# catch-up on the grid (min-release-interval check): a clock read of three threads' worth.
CATCH_UP_SLACK_MS = 1.0


def relaxed_tears(rows, max_us, errors):
    """FIFO_RELAXED frames with a target, from the display's record. A frame with no new image
    shown since the refresh before it (each of a cap below the refresh rate) does not wait for a
    refresh: the conformant display shows it once it is ready and its target has come. lowlat's
    target must keep it to the refresh meant for it, torn at most max_us before that refresh's start
    (in the blanking), never mid-screen, unless the frame was not ready by its target. Returns
    (frames checked, frames late for their target, whether the swapchain's phase could be known):
    only a frame that waited for a refresh shows where refreshes start, and where none did before
    the frames checked (the display tore even the swapchain's first frames, and tears at targets)
    lowlat's grid is a guess (the run says so). A wait counts from WAIT_SEEN_US on: a layer cannot
    tell a shorter one from a torn flip's own latency after the GPU's end (lowlat's
    LOWLAT_TEAR_SLACK_NS). A CI run on 2026-12-05 failed that way, most likely: its first frame
    tore 1.9 ms before a refresh, its second (here ready 1.0-1.8 ms after the first) would then
    wait less than that, and lowlat kept the first frame's phase."""
    def on_refresh(r):
        return r["time_ns"] == vdlog.refresh_start_ns(r["rate_mhz"], r["refresh"])

    def waited(r):
        return on_refresh(r) and r["time_ns"] > r["ready_ns"] + WAIT_SEEN_US * 1000

    checked = late = 0
    known = True
    by_chain = {}
    for r in rows:
        if r["event"] == "shown" and r["mode"] == "FIFO_RELAXED":
            by_chain.setdefault(r["swapchain"], []).append(r)
    for shown in by_chain.values():
        first = next((i for i, r in enumerate(shown) if r["target_ns"]), None)
        if first is None:
            continue
        by = next((r for r in shown[:first + WARMUP] if waited(r)), None)
        if by is None:
            known = False
            continue
        torn = len(errors)
        for r in shown[first:][WARMUP:]:
            if not r["target_ns"]:
                continue
            checked += 1
            k = r["refresh"] if on_refresh(r) else r["refresh"] + 1
            before_us = (vdlog.refresh_start_ns(r["rate_mhz"], k) - r["time_ns"]) / 1000
            if before_us <= max_us:
                continue
            if r["ready_ns"] > r["target_ns"]:
                late += 1
                continue
            errors.append(f"FIFO_RELAXED request {r['seq']} of swapchain {r['swapchain']} was ready by its "
                          f"target but shown {before_us:.0f} us before the next refresh: torn mid-screen")
        if len(errors) > torn:
            errors.insert(torn, f"swapchain {by['swapchain']}'s phase was there to see from request {by['seq']}, "
                                f"which waited {(by['time_ns'] - by['ready_ns']) / 1000:.0f} us for a refresh")
    return checked, late, known


def read_lowlat_logs(logdir):
    rows = []
    for path in sorted(glob.glob(os.path.join(logdir, "*.csv"))):
        with open(path) as f:
            rows += list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    for r in rows:
        for k, v in r.items():
            if k.endswith("_ns") or k in ("frame",):
                r[k] = int(v) if v else None
    return sorted(rows, key=lambda r: r["present_ns"])


def summaries(out):
    """lowlat's summary lines: (presents, failed) per swapchain, as lowlat counted them."""
    got = []
    for m in re.finditer(r"^lowlat: swapchain \S+ \S+, \d+ images: (\d+) presents in [\d.]+ s \([\d.]+ fps\), "
                         r"(\d+) failed; limiter ", out, re.M):
        got.append((int(m.group(1)), int(m.group(2))))
    return got


def steady_rate(frames, key):
    """Frames per second of the times in column `key`, over each swapchain's frames from its
    WARMUP-th on (a recreate restarts the count), summed over swapchains."""
    by_chain = {}
    for r in frames:
        by_chain.setdefault(r["swapchain"], []).append(r[key])
    n = span = 0
    for times in by_chain.values():
        times = times[WARMUP:]
        if len(times) > 1:
            n += len(times) - 1
            span += times[-1] - times[0]
    return n / (span / 1e9) if span else 0.0


# The app's own reports (vkd3d_like --timing-queries): at least this share of its presents read
# back, and their first pixels the cap's interval apart at the median, within this.
OWN_REPORTS_MIN = 0.8
OWN_INTERVAL_TOLERANCE = 0.03


def check_own_reports(out, fps, frames, errors):
    """An app that uses present timing itself, without targets: lowlat paces it on "timing", and
    the first pixels it reads back through vkGetPastPresentationTimingEXT, on its own clock, show
    the cap."""
    levels = [ln for ln in out.splitlines() if ln.startswith("lowlat: ") and "pacing level" in ln]
    if not levels or any('pacing level "timing"' not in ln for ln in levels):
        errors.append(f"expected lowlat to say pacing level \"timing\" for each swapchain, got {levels}")
    m = re.search(r"(\d+) own reports read back, first pixels ([\d.]+) ms apart at the median", out)
    if not m:
        errors.append("the app printed no line about its own reports")
        return
    n, interval = int(m.group(1)), float(m.group(2))
    print(f"own reports: {n} read back by the app, first pixels {interval:.3f} ms apart at the median")
    if n < OWN_REPORTS_MIN * frames:
        errors.append(f"the app read back {n} of {frames} reports")
    if abs(interval - 1000 / fps) > OWN_INTERVAL_TOLERANCE * 1000 / fps:
        errors.append(f"the app's own first pixels are {interval:.3f} ms apart, not {1000 / fps:.3f}")


# How far the display's reading of the app's target may lie from the app's, both on CLOCK_MONOTONIC
# through a stage clock's calibration.
TARGET_SLACK_NS = 5000


def nearest_refresh(rate_mhz, t):
    """The refresh an absolute target with NEAREST_REFRESH_CYCLE asks for: the first at or after t,
    or the one before when t lies in the first half of that one's cycle."""
    k = t * rate_mhz // 10**12
    while vdlog.refresh_start_ns(rate_mhz, k) < t:
        k += 1
    prev = k - 1 if vdlog.refresh_start_ns(rate_mhz, k) != t else k
    return prev if 2 * (t - vdlog.refresh_start_ns(rate_mhz, prev)) < 10**12 / rate_mhz else k


def check_targets(frames, truth, out, errors):
    """The app's own targets reached the display untouched and latched where the spec says, before
    and after a late frame: lowlat moves a late frame's successor on to keep its cadence
    (brain/timing.c, cadence_target), but weighs the app's targets against its grid as planned, so
    an app whose own timeline keeps the cap's rate keeps every target it can still make. Only one
    that asked for a refresh already begun when the app presented may reach the display later (at
    the refresh lowlat gives it), and lowlat's summary counts each one it moved."""
    shown = {r["present_id"]: r for r in truth if r["event"] == "shown"}
    by_seq = {(r["swapchain"], r["seq"]): r for r in truth if r["event"] == "shown"}
    targeted = [f for f in frames if f["target_ns"]]
    if len(targeted) < len(frames) // 2:
        errors.append(f"only {len(targeted)} of {len(frames)} presents carried the app's own target")
        return
    counted = re.search(r"the app's present-timing targets: (\d+) moved to the cap's grid", out)
    unchanged = exact = late = moved = changed = 0
    for f in targeted:
        r = shown.get(f["present_id"])
        if not r:
            errors.append(f"targeted present id {f['present_id']} was never shown")
            continue
        rate = r["rate_mhz"]

        def start(k):
            return vdlog.refresh_start_ns(rate, k)
        t = f["target_ns"]
        # On a stage clock the app converts its target itself and the display converts it back:
        # the same time within a few us (lowlat changing or dropping it is refreshes off).
        if abs(r["target_ns"] - t) > TARGET_SLACK_NS:
            ahead = start(nearest_refresh(rate, t)) - f["present_ns"]
            if ahead <= 0 and r["target_ns"] > t:
                moved += 1  # its refresh had begun when the app presented: not one it could make
                continue
            changed += 1
            errors.append(f"present id {f['present_id']}: the app's target {t}, for a refresh {ahead / 1e6:.2f} ms "
                          f"after its present, reached the display as {r['target_ns']}")
            continue
        unchanged += 1
        t = r["target_ns"]
        k = nearest_refresh(rate, t)
        before = by_seq.get((r["swapchain"], r["seq"] - 1))
        if r["refresh"] == k:
            exact += 1
        elif r["refresh"] > k and (r["ready_ns"] > start(k) or (before and before["refresh"] >= k)):
            late += 1  # not ready by its refresh, or the request before it still held it
        else:
            errors.append(f"present id {f['present_id']} (target {t}) shown on refresh {r['refresh']}, the "
                          f"spec says {k}")
    print(f"targets: {len(targeted)} presents carried the app's own target, {unchanged} reached the display "
          f"unchanged, {changed} changed though the app could make them, {moved} moved later (their refresh had "
          f"begun when the app presented); {exact} latched on the refresh the spec gives, {late} later because "
          "their frame was not ready by then")
    if moved and not (counted and int(counted.group(1)) >= moved):
        errors.append(f"{moved} of the app's targets reached the display moved, more than lowlat says it moved "
                      f"({counted.group(1) if counted else 'no summary'})")
    # lowlat uses the app's present timing too ("timing"), and leaves the presents the app places
    # itself alone, saying so.
    levels = [ln for ln in out.splitlines() if ln.startswith("lowlat: ") and "pacing level" in ln]
    if not levels or any('pacing level "timing"' not in ln for ln in levels):
        errors.append(f"expected lowlat to say pacing level \"timing\" for each swapchain, got {levels}")
    if "its own present-timing targets" not in out:
        errors.append("lowlat did not say the app sets its own present-timing targets")


# How far from the release lowlat planned (vblank - lead) the game thread may start its frames at the
# median on the refresh grid: the wait's own wake-up and the app's signal path, tens of µs here; a
# release planned for another frame is a whole interval off.
REFRESH_RELEASE_SLACK_MS = 1.0
# Frames shown on the refresh lowlat planned, at least: lavapipe's GPU work after the present is
# the CPU's on this shared VM and stalls now and then (the level cannot see it, e2e_drm.py).
REFRESH_ON_PLAN_MIN = 0.9


def check_refresh_grid(frames, lowlat_rows, truth, out, errors):
    """--refresh-grid: the "drm" level (the display's refresh clock, no display targets) paces the
    app's wait point away from the present: nearly every present is logged with fallback "drm", a
    planned vblank and a lead; the game thread starts each frame at that vblank minus the lead
    (the release its wait point got); and frames are shown on the refresh planned for them.
    Returns (share on plan, frames ready by their refresh yet shown later) or None on errors."""
    levels = [ln for ln in out.splitlines() if ln.startswith("lowlat: ") and "pacing level" in ln]
    if not levels or any('pacing level "drm"' not in ln for ln in levels):
        errors.append(f"expected lowlat to say pacing level \"drm\" for each swapchain, got {levels}")
        return None
    pairs = list(zip(frames, lowlat_rows))[WARMUP:]
    on_grid = [(f, r) for f, r in pairs if r["fallback"] == "drm" and r["target_ns"] and r["predicted_ready_ns"]]
    if len(on_grid) < 0.9 * len(pairs):
        errors.append(f"{len(on_grid)} of {len(pairs)} presents after the warm-up logged as released on the "
                      "refresh grid (fallback \"drm\" with a planned vblank and lead)")
        return None
    median = statistics.median((f["start_ns"] - (r["target_ns"] - r["predicted_ready_ns"])) / 1e6 for f, r in on_grid)
    print(f"refresh grid: {len(on_grid)} of {len(pairs)} presents released on it; the game thread starts a frame "
          f"{median:+.3f} ms (median) from its planned vblank minus the lead")
    if not -0.05 <= median <= REFRESH_RELEASE_SLACK_MS:
        errors.append(f"the game thread starts frames {median:+.3f} ms (median) from the release lowlat planned "
                      f"for them, not within [0, {REFRESH_RELEASE_SLACK_MS}] ms")
        return None
    shown = {r["present_id"]: r for r in truth if r["event"] == "shown"}
    by_seq = {r["seq"]: r for r in truth if r["event"] == "shown"}
    on_plan = wrong = 0
    for f, r in on_grid:
        q = shown.get(f["present_id"])
        if q is None:
            continue
        planned = round(r["target_ns"] * q["rate_mhz"] / 10**12)
        if q["refresh"] == planned:
            on_plan += 1
            continue
        before = by_seq.get(q["seq"] - 1)
        # Later than planned though ready by then and not held behind the request before it: a
        # wrong phase, not a slow machine.
        if (q["refresh"] > planned and q["ready_ns"] <= vdlog.refresh_start_ns(q["rate_mhz"], planned)
                and not (before and before["refresh"] >= planned)):
            wrong += 1
    share = on_plan / len(on_grid)
    print(f"refresh grid: {on_plan} of {len(on_grid)} frames shown on the refresh lowlat planned ({share * 100:.1f}%), "
          f"{wrong} ready by it but shown later")
    return share, wrong


def translate_owned_ids(frames, truth, out, fps, errors):
    """On the "present-wait" level the display saw lowlat's ids: checks they are 1..n per swapchain
    and rewrites the truth log's ids into the app's (request order = the app's successful presents
    in order), then checks the app's translated waits against the first pixels."""
    if 'pacing level "present-wait"' not in out:
        return
    requests = {}
    for r in truth:
        if r["event"] in ("shown", "skipped", "replaced", "unshown"):
            requests.setdefault(r["swapchain"], {})[r["seq"]] = r
    presents = {}
    for f in frames:
        if not f["result"].startswith("VK_ERROR"):
            presents.setdefault(f["swapchain"], []).append(f)
    if len(requests) != len(presents):
        errors.append(f"{len(requests)} swapchains in the truth log, the app presented to {len(presents)}")
        return
    to_app = {}
    for chain, app_chain in zip(sorted(requests), sorted(presents)):
        reqs = [requests[chain][k] for k in sorted(requests[chain])]
        ids = [r["present_id"] for r in reqs]
        if ids != list(range(1, len(ids) + 1)):
            errors.append(f"the display saw present ids {ids[:12]}... on swapchain {chain}, not lowlat's 1, 2, 3, ...")
            return
        if len(reqs) != len(presents[app_chain]):
            errors.append(f"{len(reqs)} requests on swapchain {chain} for {len(presents[app_chain])} presents")
            return
        for r, f in zip(reqs, presents[app_chain]):
            to_app[(chain, r["present_id"])] = f["present_id"]
    skipped = sum(1 for a, b in zip(frames, frames[1:]) if b["present_id"] > a["present_id"] + 1)
    for r in truth:
        if (r["swapchain"], r["present_id"]) in to_app:
            r["present_id"] = to_app[(r["swapchain"], r["present_id"])]
    shown = {r["present_id"]: r["time_ns"] for r in truth if r["event"] == "shown"}
    after = [(int(f["waited_ns"]) - shown[f["present_id"]]) / 1e6 for f in frames
             if int(f["waited_ns"] or 0) and f["present_id"] in shown]
    early = [a for a in after if a < -0.05]  # clock reads of two processes' threads: a few us
    print(f"present ids: the display saw lowlat's 1..n, the app's skipped {skipped} times; {len(after)} of the "
          f"app's present waits returned {statistics.median(after) if after else float('nan'):.2f} ms (median) "
          f"after their frame's first pixel")
    if early:
        errors.append(f"{len(early)} of the app's present waits returned before their frame's first pixel "
                      f"(by up to {-min(early):.2f} ms): its ids were not translated")
    elif after and statistics.median(after) > 1.5 * 1000 / fps:
        # lowlat's wait point holds each wait until its release, at most a frame after the first
        # pixel; an untranslated id of vkd3d_like's (a quarter above lowlat's) waits frames longer.
        errors.append(f"the app's present waits returned {statistics.median(after):.2f} ms (median) after their "
                      "frame's first pixel, more than 1.5 frames: its ids were not translated")


def late_start(frames, lowlat_rows, truth, latency, across_recreates, errors, interval_ms):
    """How late the game thread starts its frames (medians over frames WARMUP on, ms):
    - release: from the end of lowlat's wait for frame N - L's present to the start of frame N
      (the counter lets frame N start once frame N - L is signalled, so this is how long lowlat's
      release takes to reach the game thread);
    - gate: from the later of that release and of the moment frame N - L could be signalled
      otherwise (its first pixel where the app waited for the present, its GPU work done where it
      did not) to the start of frame N. lowlat's wait is in vkQueuePresentKHR, or at the return of
      the frame thread's present wait (the "present-wait" wait point), so frame N starts at that
      release unless lowlat released the frame before it was shown (a predicted lead over a frame,
      after stalls);
    - photon: from the start of a frame to its first pixel on the display (truth log, by id);
    - late: from the start of a frame to the end of lowlat's wait for that frame's present (the
      measure tests/e2e/dxvk_lib.sh prints for real DXVK)."""
    # Pair each present with lowlat's row: lowlat's entry time lies within the app's call.
    i = 0
    waits = []
    for f in frames:
        while i < len(lowlat_rows) and lowlat_rows[i]["present_ns"] < f["present_ns"]:
            i += 1
        if i == len(lowlat_rows) or lowlat_rows[i]["present_ns"] > f["release_ns"]:
            errors.append(f"no lowlat log row for the present of frame {f['frame']}")
            return None
        waits.append(lowlat_rows[i]["wait_end_ns"])
        i += 1
    shown = {r["present_id"]: r["time_ns"] for r in truth if r["event"] == "shown"}
    first = max(WARMUP, latency)
    ready = {r["present_id"]: r["ready_ns"] for r in truth if r["event"] == "shown"}
    # A release lowlat queued for the app's present wait (present_wait.c) is in the log once that
    # wait claimed it; the last frames' never are (the app stops waiting), and are left out.
    judged = [k for k in range(first, len(frames)) if waits[k - latency] is not None]
    release = [(frames[k]["start_ns"] - waits[k - latency]) / 1e6 for k in judged]
    gate = []
    for k in judged:
        prev = frames[k - latency]
        other = (shown if prev["waited_ns"] else ready).get(prev["present_id"], 0)
        gate.append((frames[k]["start_ns"] - max(waits[k - latency], other)) / 1e6)
    photon = [(shown[f["present_id"]] - f["start_ns"]) / 1e6 for f in frames[first:] if f["present_id"] in shown]
    late = [(w - f["start_ns"]) / 1e6 for f, w in zip(frames[first:], waits[first:]) if w is not None]
    # The shortest time between two of lowlat's releases: on one swapchain, its first two frames
    # left out (lowlat starts each swapchain's pacing afresh) unless across_recreates, and never
    # around a failed present (lowlat does not pace one). Nor right after a release the machine
    # woke late: the next one is then on the grid again, closer to it, and the two together span
    # the two intervals they should (within CATCH_UP_SLACK_MS); a release that skipped its wait
    # spans one interval with the release before it.
    gaps = [((waits[k] - waits[k - 1]) / 1e6, frames[k]["frame"]) for k in range(2, len(frames))
            if waits[k] is not None and waits[k - 1] is not None and (across_recreates or frames[k]["swapchain"] == frames[k - 2]["swapchain"])
            and frames[k]["result"] != "VK_ERROR_OUT_OF_DATE_KHR"
            and frames[k - 1]["result"] != "VK_ERROR_OUT_OF_DATE_KHR"
            and not (waits[k - 2] is not None
                     and (waits[k] - waits[k - 2]) / 1e6 >= 2 * interval_ms - CATCH_UP_SLACK_MS)]
    shortest = min(gaps) if gaps else (float("nan"), 0)
    return (statistics.median(release), statistics.median(gate), statistics.median(photon), statistics.median(late),
            shortest)


def run_once(args):
    tmp = tempfile.mkdtemp(prefix="lowlat-engines-")
    truth = os.path.join(tmp, "truth.csv")
    vlog = os.path.join(tmp, "validation.txt")
    logdir = os.path.join(tmp, "log")
    frames_csv = os.path.join(tmp, "frames.csv")
    env = dict(os.environ)
    for k in ("VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE", "DISABLE_LOWLAT_LAYER", "LOWLAT_CONFIG",
              "LOWLAT_METHOD", "LOWLAT_PRESENT_MODE", "LOWLAT_MAX_LATENCY_FRAMES", "LOWLAT_FAULTS",
              "VKD3D_SWAPCHAIN_LATENCY_FRAMES", "VKD3D_FRAME_RATE", "DXVK_CONFIG", "DXVK_FRAME_RATE"):
        env.pop(k, None)
    below = ("" if args.no_validation else "VK_LAYER_KHRONOS_validation:") + "VK_LAYER_LOWLAT_vdisplay"
    layer_path = args.manifest_dir
    if args.faults:
        below = "VK_LAYER_LOWLAT_faults:" + below
        layer_path += os.pathsep + args.faults_manifest_dir
        env["LOWLAT_FAULTS"] = args.faults
    env.update({
        "VK_ADD_LAYER_PATH": layer_path,
        "VK_ADD_IMPLICIT_LAYER_PATH": args.lowlat_manifest_dir,
        "ENABLE_LOWLAT_LAYER": "1",
        "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
        "LOWLAT_VERBOSE": "1",
        "LOWLAT_FPS": args.fps,
        "LOWLAT_LOG": "1",
        "LOWLAT_LOG_DIR": logdir,
        "VK_INSTANCE_LAYERS": below,
        "VK_KHRONOS_VALIDATION_REPORT_FLAGS": "error,warn",
        "VK_KHRONOS_VALIDATION_VALIDATE_SYNC": "true",
        "VK_KHRONOS_VALIDATION_DEBUG_ACTION": "VK_DBG_LAYER_ACTION_LOG_MSG",
        "VK_KHRONOS_VALIDATION_LOG_FILENAME": vlog,
        "VK_LOADER_DEBUG": "layer",
        "LOWLAT_VDISPLAY_LOG": truth,
        "LOWLAT_VDISPLAY_HZ": args.hz,
    })
    if args.refresh_grid:
        # The "drm" level's refresh clock: the display's own grid (layer/display/refresh.h, "fixed").
        env["LOWLAT_REFRESH_SOURCE"] = f"fixed:{args.hz}"
    cmd = [args.app] + args.app_args + ["--csv", frames_csv]
    print(f"{' '.join(cmd)} at {args.fps} fps on {args.hz} Hz; files in {tmp}")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    lines = [ln for ln in out.splitlines() if not ln.startswith("[Vulkan Loader]")]
    print("\n".join(ln for ln in lines if not ln.startswith("lowlat: config:"))[-4000:])
    if "ThreadSanitizer" in out:
        raise Fail("ThreadSanitizer reported:\n" + out[max(0, out.index("ThreadSanitizer") - 200):][:6000])
    off_thread = [ln for ln in lines if "from a thread other than the one presenting to it" in ln]
    if off_thread:
        raise Fail(f"a call the app must synchronise with its presents, made from another thread: {off_thread[0]}")
    if p.returncode == SKIP:
        reason = next((ln for ln in lines if "not offered" in ln), "the app said an extension is missing")
        raise Fail(f"{reason}: the display and lowlat offer what the app asks for")
    order = re.findall(r'Insert instance layer "([A-Za-z_]+)"', out)
    want = ["VK_LAYER_LOWLAT_vdisplay"] + ([] if args.no_validation else ["VK_LAYER_KHRONOS_validation"]) + \
        (["VK_LAYER_LOWLAT_faults"] if args.faults else []) + ["VK_LAYER_LOWLAT_limiter"]
    if [x for x in order if x in want][:len(want)] != want:
        raise Fail(f"chain (driver upwards) {order}, expected {want}")
    if p.returncode != 0:
        raise Fail(f"{os.path.basename(args.app)} exited with {p.returncode}")
    if not args.no_validation:
        if not os.path.exists(vlog):
            raise Fail("the validation layer wrote no log")
        text = open(vlog).read()
        if text.strip():
            raise Fail("validation messages:\n" + text[:4000])
        print("validation: clean")

    m = re.search(r"^\w+: (\d+) frames in [\d.]+ s, (\d+) presented, (\d+) out of date, (\d+) suboptimal, "
                  r"(\d+) recreates", out, re.M)
    if not m:
        raise Fail("no summary line from the app")
    n_frames, presented, out_of_date, suboptimal, recreates = map(int, m.groups())
    with open(frames_csv) as f:
        frames = list(csv.DictReader(f))
    for r in frames:
        for k in ("frame", "swapchain", "present_id", "start_ns", "present_ns", "release_ns", "signal_ns",
                  "target_ns"):
            r[k] = int(r[k])
    if len(frames) != n_frames:
        raise Fail(f"{len(frames)} rows in the app's CSV for {n_frames} frames")

    errors = []
    sums = summaries(out)
    if len(sums) != recreates + 1:
        errors.append(f"{len(sums)} lowlat summaries for the {recreates + 1} swapchains the app made")
    failed_presents = sum(1 for r in frames if r["result"] == "VK_ERROR_OUT_OF_DATE_KHR")
    if sum(s[0] for s in sums) != presented or sum(s[1] for s in sums) != failed_presents:
        errors.append(f"lowlat counted {sum(s[0] for s in sums)} presents and {sum(s[1] for s in sums)} failed, "
                      f"the app presented {presented} and had {failed_presents} fail")
    if args.faults:
        injected = re.findall(r"^faults: (\w+) call \d+ -> (\w+)", out, re.M)
        want_faults = args.faults.count(",") + 1
        if len(injected) != want_faults:
            errors.append(f"{len(injected)} faults injected of the {want_faults} asked for")
        if (out_of_date + suboptimal) < want_faults or recreates < want_faults:
            errors.append(f"the app saw {out_of_date} OUT_OF_DATE and {suboptimal} SUBOPTIMAL and recreated "
                          f"{recreates} times for {want_faults} faults")
    if args.resize and not re.search(r"^lowlat: swapchain 128x80 ", out, re.M):
        errors.append("no swapchain at the new size (128x80) reached lowlat")

    if args.display_targets:
        # lowlat's own display targets on (nearly) every present: its wait point, away from the
        # present, is on the display grid (the first presents come before the refresh is known).
        targeted = [int(m.group(1)) for m in re.finditer(r"^lowlat: swapchain .*; (\d+) presents with display targets",
                                                          out, re.M)]
        if len(targeted) != len(sums) or sum(targeted) < 0.9 * presented:
            errors.append(f"lowlat's summaries count {sum(targeted)} presents with display targets of {presented}")
    if args.wait_point:
        said = len(re.findall(rf'^lowlat: swapchain \S+: wait point "{re.escape(args.wait_point)}"', out, re.M))
        if said != recreates + 1:
            errors.append(f"lowlat said wait point {args.wait_point!r} for {said} of {recreates + 1} swapchains")
    rows = vdlog.read(truth)
    vdlog.check_invariants(rows, errors.append)
    translate_owned_ids(frames, rows, out, float(args.fps), errors)
    lowlat_rows = read_lowlat_logs(logdir)
    if len(lowlat_rows) != presented + failed_presents:
        errors.append(f"lowlat's present log has {len(lowlat_rows)} rows for {presented + failed_presents} presents")
    if args.targets:
        check_targets(frames, rows, out, errors)
    if args.own_reports:
        check_own_reports(out, float(args.fps), len(frames), errors)
    grid = check_refresh_grid(frames, lowlat_rows, rows, out, errors) if args.refresh_grid and not errors else None
    tears = relaxed_tears(rows, args.relaxed_tear_max_us, errors) if args.relaxed_tear_max_us is not None else None
    late = None if errors else late_start(frames, lowlat_rows, rows, args.latency, args.across_recreates, errors,
                                          1000 / float(args.fps))
    if errors:
        raise Fail("; ".join(errors[:6]))

    fps = float(args.fps)
    game = steady_rate(frames, "start_ns")
    display, _ = vdlog.new_images_per_second(rows)
    # Stalls, seen from outside lowlat: the game thread starting a frame more than 1.5 intervals
    # after the one before, or the display showing a new image more than a frame and a quarter
    # after the one before (at 60 fps on 120 Hz: 3 refreshes instead of 2).
    app_chain = {}
    for f in frames:
        app_chain.setdefault(f["swapchain"], []).append(f["start_ns"])
    app_gaps = [b - a for times in app_chain.values() for a, b in zip(times[WARMUP:], times[WARMUP + 1:])]
    app_late = sum(1 for gap in app_gaps if gap > 1.5 * 1e9 / fps)
    by_chain = {}
    for r in rows:
        if r["event"] == "shown":
            by_chain.setdefault(r["swapchain"], []).append(r["time_ns"])
    shown_gaps = [b - a for times in by_chain.values() for a, b in zip(times, times[1:])]
    misses = sum(1 for gap in shown_gaps if gap > 1.25 * 1e9 / fps)
    stalls = app_late + misses
    print(f"the game thread started frames at {game:.2f} fps for a cap of {args.fps} ({(game / fps - 1) * 100:+.2f}%); "
          f"the display showed {display:.2f} new images/s ({(display / fps - 1) * 100:+.2f}%); {app_late} frames "
          f"started more than 1.5 intervals after the one before, {misses} images came more than 1.25 frames after "
          "the one before")
    release_ms, gate_ms, photon_ms, late_ms, (gap_ms, gap_frame) = late
    frame_ms = 1000 / fps
    print(f"latency {args.latency}: the game thread starts frame N {release_ms:.2f} ms (median) after lowlat's wait for "
          f"frame N - {args.latency} ends ({gate_ms:.2f} ms after that or, if later, frame N - {args.latency}'s "
          f"first pixel or GPU work done), {photon_ms:.2f} ms ({photon_ms / frame_ms:.2f} frames) before its first "
          f"pixel, {late_ms:.2f} ms before lowlat's wait for its own present ends")
    where = "across swapchains" if args.across_recreates else "on one swapchain"
    print(f"the shortest time between two of lowlat's releases {where}: {gap_ms:.2f} ms (before frame "
          f"{gap_frame}, mode {frames[gap_frame - 1]['mode']}, swapchain {frames[gap_frame - 1]['swapchain']})")
    if args.min_release_interval_ms is not None and gap_ms < args.min_release_interval_ms:
        # A stalled machine moves releases too (a late one, then the lead predicted from stalled
        # frames): said as such, and a miss all the same.
        if stalls:
            return SLOWED, (f"two releases {gap_ms:.2f} ms apart (before frame {gap_frame}) in a run with "
                            f"{app_late} late frame starts and {misses} late images"), tmp
        raise Fail(f"lowlat released frame {gap_frame} {gap_ms:.2f} ms after the one before, less than "
                   f"{args.min_release_interval_ms} ms: faster than the cap")
    for name, rate in (("game thread", game), ("display", display)):
        if rate > fps * (1 + BOUND):
            raise Fail(f"the {name} ran faster than the cap")
    # The start follows both; clock reads of three processes' threads: a few us either way.
    if args.release_max_ms is not None and not -0.05 <= gate_ms <= args.release_max_ms:
        raise Fail(f"the game thread starts frame N {gate_ms:.2f} ms after frame N - {args.latency} was released "
                   f"by lowlat (and shown or done), not within [0, {args.release_max_ms}] ms")
    if args.photon_max_frames is not None and photon_ms > args.photon_max_frames * frame_ms:
        # lowlat releases a frame its predicted start-to-ready time before the target: a machine
        # whose GPU work stalled now and then (lavapipe beside the TSan builds, 2026-12-03: present
        # to ready up to 24 ms) puts that prediction, and so this latency, past the bound. Then the
        # run shows the machine, not lowlat, and says so. A latency over the bound with a prediction
        # under it (a queue, a release too early) fails.
        leads = sorted(int(r["predicted_ready_ns"]) for r in lowlat_rows if r["predicted_ready_ns"])
        lead_ms = leads[len(leads) // 2] / 1e6 if leads else 0
        if stalls and lead_ms > args.photon_max_frames * frame_ms:
            return SLOWED, (f"{photon_ms:.2f} ms from start to first pixel, lowlat's predicted start-to-ready "
                            f"time {lead_ms:.2f} ms (median) after {misses} late images"), tmp
        raise Fail(f"the game thread starts {photon_ms:.2f} ms before its frame's first pixel, more than "
                   f"{args.photon_max_frames} frames")
    if args.late_max_ms is not None and late_ms > args.late_max_ms:
        raise Fail(f"the game thread starts {late_ms:.2f} ms before lowlat's wait for its present ends, more "
                   f"than {args.late_max_ms} ms: the late wait does not reach it")
    if tears:
        checked, late_relaxed, known = tears
        print(f"FIFO_RELAXED: {checked} frames with lowlat's targets checked, {checked - late_relaxed} shown on "
              f"their refresh or less than {args.relaxed_tear_max_us:.0f} us before it, {late_relaxed} late")
        if not known:
            # No frame showed where refreshes start (the display tore even the first ones): no
            # layer could know, and lowlat must say that its grid is a guess, not tear in silence.
            if not re.search(r"^lowlat: swapchain \S+: no FIFO_RELAXED frame ",
                             out, re.M):
                raise Fail("no FIFO_RELAXED frame waited for a refresh before the frames checked, and lowlat "
                           "did not say that where refreshes start is a guess")
            print("FIFO_RELAXED: no frame waited for a refresh before the frames checked (the display tore "
                  "the first ones too): the phase was not there to see, and lowlat said its grid is a guess")
        elif not checked:
            raise Fail("no FIFO_RELAXED frame with lowlat's target")
    if grid and grid[0] < REFRESH_ON_PLAN_MIN:
        if stalls and not grid[1]:
            return SLOWED, f"{(1 - grid[0]) * 100:.1f}% of frames not shown on their planned refresh, after stalls", tmp
        raise Fail(f"{(1 - grid[0]) * 100:.1f}% of frames not shown on the refresh lowlat planned for them, "
                   f"{grid[1]} of them ready by it")
    if min(game, display) < fps * (1 - BOUND):
        if not stalls:
            raise Fail("slower than the cap without any stall")
        # Each stall costs its run the time it took, the host's (a frame that missed its refresh at
        # 60 fps on 120 Hz costs one refresh, by design: the next keeps its cadence). Without the
        # stalled intervals the rest must hold the cap, and stalls stay few: pacing that is slow on
        # every frame fails either way.
        game_steady, game_stalled = unstalled_rate(app_gaps, 1.5 * 1e9 / fps)
        shown_steady, shown_stalled = unstalled_rate(shown_gaps, 1.25 * 1e9 / fps)
        print(f"without the stalled intervals ({game_stalled * 100:.1f}% of the game thread's, "
              f"{shown_stalled * 100:.1f}% of the display's): the game thread {game_steady:.2f} fps, "
              f"the display {shown_steady:.2f} new images/s")
        if max(game_stalled, shown_stalled) > STALLED_MAX or min(game_steady, shown_steady) < fps * (1 - BOUND):
            return SLOWED, f"slower than the cap after {app_late} late frame starts and {misses} late images", tmp
    return 0, "", tmp


def unstalled_rate(gaps, stall_ns):
    """Intervals per second over the gaps no longer than stall_ns, and the share that are longer."""
    steady = [gap for gap in gaps if gap <= stall_ns]
    if not steady:
        return 0.0, 1.0
    return len(steady) / (sum(steady) / 1e9), 1 - len(steady) / len(gaps)


def main():
    ap = e2e_lowlat.arg_parser(hz="120")
    ap.add_argument("--app", required=True)
    ap.add_argument("--faults-manifest-dir")
    ap.add_argument("--faults", help="LOWLAT_FAULTS for the faults layer, put between validation and lowlat")
    ap.add_argument("--fps", default="60")
    ap.add_argument("--wait-point", help="the wait point lowlat must say every swapchain of the app gets "
                                         "(e.g. present-wait)")
    ap.add_argument("--release-max-ms", type=float,
                    help="at most this from lowlat's release of frame N - L (or its first pixel or GPU work "
                    "done, if later) to frame N's start")
    ap.add_argument("--photon-max-frames", type=float,
                    help="at most this many frames at the cap from a frame's start to its first pixel")
    ap.add_argument("--min-release-interval-ms", type=float,
                    help="at least this between two of lowlat's releases (a swapchain's first two left out)")
    ap.add_argument("--across-recreates", action="store_true",
                    help="--min-release-interval-ms holds for a new swapchain's first frames too")
    ap.add_argument("--late-max-ms", type=float,
                    help="at most this from a frame's start to the end of lowlat's wait for its present")
    ap.add_argument("--targets", action="store_true", help="check the app's own present-timing targets")
    ap.add_argument("--own-reports", action="store_true",
                    help="vkd3d_like --timing-queries: its own reports read back show the cap, on \"timing\"")
    ap.add_argument("--display-targets", action="store_true",
                    help="lowlat attached display targets to at least 90%% of the presents")
    ap.add_argument("--refresh-grid", action="store_true",
                    help="lowlat reads the display's refresh clock (pacing level \"drm\", with present timing "
                    "and present wait withheld): its wait point releases frames on that grid")
    ap.add_argument("--resize", action="store_true", help="the app resizes mid-run (--resize-at)")
    ap.add_argument("--relaxed-tear-max-us", type=float,
                    help="FIFO_RELAXED frames with lowlat's targets, ready by them, are shown at most this "
                    "long before a refresh start")
    ap.add_argument("--no-validation", action="store_true", help="for the TSan build: validation is not instrumented")
    ap.add_argument("app_args", nargs="*")
    args = ap.parse_args()
    lat = [b for a, b in zip(args.app_args, args.app_args[1:]) if a == "--latency"]
    args.latency = int(lat[0]) if lat else 3  # both apps' default, as DXVK's and vkd3d-proton's
    if args.faults and not args.faults_manifest_dir:
        ap.error("--faults needs --faults-manifest-dir")

    if not args.no_validation and not e2e_lowlat.validation_installed():
        print("skipped: the Khronos validation layer is not installed (Debian: vulkan-validationlayers)")
        return SKIP
    return e2e_lowlat.run_judged(run_once, args, Fail)


if __name__ == "__main__":
    sys.exit(main())
