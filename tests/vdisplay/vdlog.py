"""vdlog.py — reading the virtual display's truth log (see vd_log.h for the columns) and the checks
every run must pass whatever its present mode."""
import csv
import shutil

INT_COLUMNS = ("swapchain", "seq", "present_id", "image", "queued_ns", "ready_ns", "target_ns", "refresh",
               "time_ns", "by", "rate_mhz", "vrr_min_mhz")


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for c in INT_COLUMNS:
            r[c] = int(r[c])
    return rows


def refresh_start_ns(rate_mhz, k):
    return k * 10**12 // rate_mhz


# How far a target converted through a stage clock's calibration may lie from lowlat's own.
AIM_SLACK_NS = 5000


def aimed_refresh(rate_mhz, target_ns):
    """The refresh a target without NEAREST_REFRESH_CYCLE asks for: the first to start at or after it
    (the spec: not shown before the target)."""
    return -(-(target_ns - AIM_SLACK_NS) * rate_mhz // 10**12)


def aim_targets(rows):
    """lowlat asks for the refresh starting at R by asking the display not to show the frame before
    R - refresh/2 (layer/present/present_timing.c, set_target). On a fixed-rate display each row's target_ns
    becomes the start of the refresh its target asks for, the time lowlat planned; the display's
    own reading stays in asked_ns. Returns the rows whose target was not half a refresh (within
    AIM_SLACK_NS) before that refresh start."""
    off = []
    for r in rows:
        if r["target_ns"] and not r["vrr_min_mhz"]:
            r["asked_ns"] = r["target_ns"]
            r["target_ns"] = refresh_start_ns(r["rate_mhz"], aimed_refresh(r["rate_mhz"], r["target_ns"]))
            if abs(r["target_ns"] - 10**12 // (2 * r["rate_mhz"]) - r["asked_ns"]) > AIM_SLACK_NS:
                off.append(r)
    return off


def check_invariants(rows, fail):
    """What holds in every mode: a request is never shown before it was ready, a vblank latch is on
    the grid, a refresh latches at most one image, requests leave the queue in order."""
    shown = [r for r in rows if r["event"] == "shown"]
    for r in shown:
        if r["time_ns"] < r["ready_ns"]:
            fail(f"request {r['seq']} shown at {r['time_ns']} before it was ready at {r['ready_ns']}")
        if r["ready_ns"] < r["queued_ns"]:
            fail(f"request {r['seq']} ready before it was queued")
        on_grid = r["vrr_min_mhz"] or r["time_ns"] == refresh_start_ns(r["rate_mhz"], r["refresh"])
        if r["mode"] not in ("IMMEDIATE", "FIFO_RELAXED") and not on_grid:
            fail(f"request {r['seq']} ({r['mode']}) latched off the refresh grid")
    check_vrr(rows, fail)
    vblank_latches = {}
    for r in shown:
        if not r["vrr_min_mhz"] and r["time_ns"] == refresh_start_ns(r["rate_mhz"], r["refresh"]):
            key = (r["swapchain"], r["refresh"])
            vblank_latches[key] = vblank_latches.get(key, 0) + 1
    for key, n in vblank_latches.items():
        if n > 1:
            fail(f"refresh {key[1]} latched {n} images")
    last = {}
    for r in rows:
        if r["event"] in ("shown", "replaced", "skipped"):
            if r["seq"] <= last.get(r["swapchain"], 0):
                fail(f"request {r['seq']} left the queue after request {last[r['swapchain']]}")
            last[r["swapchain"]] = r["seq"]


def check_vrr(rows, fail):
    """With VRR, successive refreshes (latches and repeats at a vblank) are between one shortest
    and one longest period apart, and a latch waits for nothing but its request (ready time,
    target) and the shortest period."""
    starts = {}
    for r in rows:
        if r["vrr_min_mhz"] and r["event"] in ("shown", "repeat") and r["mode"] != "IMMEDIATE":
            starts.setdefault(r["swapchain"], {})[r["refresh"]] = r
    for by_refresh in starts.values():
        ks = sorted(by_refresh)
        for a, b in zip(ks, ks[1:]):
            if b != a + 1:
                continue
            ra, rb = by_refresh[a], by_refresh[b]
            gap = rb["time_ns"] - ra["time_ns"]
            lo = 10**12 // rb["rate_mhz"]
            hi = 10**12 // rb["vrr_min_mhz"]
            if not lo <= gap <= hi + 1:
                fail(f"VRR refreshes {a} and {b} are {gap} ns apart, outside [{lo}, {hi}]")
            if rb["event"] == "shown" and rb["time_ns"] > max(rb["ready_ns"], rb["target_ns"], ra["time_ns"] + lo) + 1:
                fail(f"VRR refresh {b} waited past its request's ready time")


def late_and_paced(times_ns, fps, late_factor):
    """Of successive times (ns) meant 1/fps apart: how many intervals came late (longer than
    late_factor intervals: a frame this shared machine held up), the time they took beyond one
    interval each (ns), and the rate with that time taken out. The matrix of layers
    (tests/neighbours) and vkd3d-proton's runs (tests/vkd3d) judge a slow run by it."""
    interval = 1e9 / fps
    late = [b - a - interval for a, b in zip(times_ns, times_ns[1:]) if b - a > late_factor * interval]
    span = times_ns[-1] - times_ns[0] - sum(late)
    return len(late), sum(late), (len(times_ns) - 1) / (span / 1e9) if span > 0 else 0.0


def new_images_per_second(rows, skip_s=0.5):
    """New images shown per second of display time, after the first skip_s seconds (start-up)."""
    shown = [r for r in rows if r["event"] == "shown"]
    if len(shown) < 3:
        return 0.0, 0
    t0 = shown[0]["time_ns"] + int(skip_s * 1e9)
    steady = [r for r in shown if r["time_ns"] >= t0]
    if len(steady) < 2:
        return 0.0, len(steady)
    span = (steady[-1]["time_ns"] - steady[0]["time_ns"]) / 1e9
    return (len(steady) - 1) / span, len(steady)


def finish(failures, tmp):
    """A check's exit status from the failures it listed: 1 with its files kept in tmp, else 0 with
    tmp removed."""
    if failures:
        print(f"{len(failures)} failure(s); files kept in {tmp}")
        return 1
    shutil.rmtree(tmp)
    return 0
