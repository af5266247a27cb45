"""lowlatlog — reading lowlat present logs and the numbers lowlat-stats and lowlat-plot show.

The format is defined in include/lowlat_log.h: '#' comment lines, a CSV header row, one row per
present; times are CLOCK_MONOTONIC nanoseconds, an empty field is unknown. Python 3 standard
library only, so the tools run wherever the game does.
"""

import csv
import math
import os
import re

# The columns of format v1, in order (include/lowlat_log.h, LOWLAT_LOG_COLUMNS). A reader looks
# columns up by name; these two are the ones without which a log says nothing.
COLUMNS = (
    "frame", "present_id", "frame_start_ns", "present_ns", "wait_begin_ns", "wait_end_ns",
    "driver_ns", "target_ns", "predicted_ready_ns", "queue_done_ns", "latched_ns",
    "pixel_out_ns", "pixel_visible_ns", "present_wait_ns", "present_mode", "refresh_ns",
    "fallback",
)
REQUIRED = ("frame", "present_ns")
TEXT_COLUMNS = ("present_mode", "fallback")

# Where a frame's display time comes from, best first: the moment its first pixel was visible is
# what a player sees; the others are ever earlier stand-ins.
DISPLAY_SOURCES = ("pixel_visible_ns", "pixel_out_ns", "latched_ns", "present_wait_ns")

MAGIC = "lowlat present log v1"
_DROPPED = re.compile(r"^# dropped (\d+) records")
_CLOSED = re.compile(r"^# closed: (\d+) records written, (\d+) dropped")


class LogError(Exception):
    """A file that is not a readable lowlat log; the message names the file (and line)."""


class Log:
    """One log: columns as lists (int or None; text for present_mode/fallback), one entry per row."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.columns = {}
        self.rows = 0
        self.dropped = 0  # the last `# dropped` / `# closed` count in the file
        self.closed = False  # a `# closed:` line: the session ended cleanly
        self.warnings = []

    def col(self, name):
        """The column, or a list of None when this log has no such column."""
        return self.columns.get(name, [None] * self.rows)


def read_log(path):
    """Parses a log file. Raises LogError with a message fit for the user."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise LogError(f"{path}: is a directory, not a log") from None
    except UnicodeDecodeError:
        raise LogError(f"{path}: not a lowlat log (not text)") from None
    except OSError as e:
        raise LogError(f"{path}: {e.strerror}") from None

    log = Log(path)
    lines = text.split("\n")
    # A log ends with '\n'; anything after the last one is a row the game did not finish writing
    # (it crashed or was killed mid-write).
    partial = lines.pop() if lines else ""
    header = None
    values = {}
    first_comment = True
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            if first_comment and not line.startswith("# " + MAGIC):
                if line.startswith("# lowlat present log"):
                    log.warnings.append(f"{path}:{number}: a newer log format; reading the columns it shares")
            first_comment = False
            m = _DROPPED.match(line) or _CLOSED.match(line)
            if m:
                log.dropped = int(m.groups()[-1])
                log.closed = log.closed or line.startswith("# closed")
            continue
        if header is None:
            header = next(csv.reader([line]))
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise LogError(f"{path}:{number}: not a lowlat log: the header row lacks "
                               f"{', '.join(missing)} (found: {line[:80]!r})")
            values = {name: [] for name in header}
            continue
        if not line:
            continue
        fields = line.split(",")
        if len(fields) != len(header):
            raise LogError(f"{path}:{number}: {len(fields)} fields where the header has {len(header)}")
        for name, field in zip(header, fields):
            if name in TEXT_COLUMNS:
                values[name].append(field or None)
                continue
            try:
                values[name].append(int(field) if field else None)
            except ValueError:
                raise LogError(f"{path}:{number}: column {name}: {field!r} is not an integer") from None
        log.rows += 1
    if header is None:
        raise LogError(f"{path}: not a lowlat log: no header row" if text.strip() else f"{path}: empty file")
    if partial:
        log.warnings.append(f"{path}: the last line is incomplete (the game stopped mid-write); ignored")
    for name in REQUIRED:
        if any(v is None for v in values[name]):
            raise LogError(f"{path}: column {name} has empty fields; every present must have it")
    log.columns = values
    return log


def percentile(values, p):
    """Linear interpolation between closest ranks (numpy's default); p in 0..100. None if empty."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def worst_mean(values, per_mille):
    """Mean of the worst (largest) ceil(n * per_mille / 1000) values, at least one."""
    if not values:
        return None
    k = max(1, (len(values) * per_mille + 999) // 1000)
    worst = sorted(values)[-k:]
    return sum(worst) / k


def frame_times_ns(log):
    """(time since the first present in s, frame time in ns) per present after the first. Only
    between consecutive frames: a gap in the frame index (dropped records) is not a frame time."""
    frames, present = log.col("frame"), log.col("present_ns")
    if not present:
        return []
    t0 = present[0]
    return [((present[i] - t0) / 1e9, present[i] - present[i - 1])
            for i in range(1, log.rows) if frames[i] - frames[i - 1] == 1]


def display_times(log):
    """Per row: (display time in ns or None, the column it came from or None)."""
    sources = [(name, log.col(name)) for name in DISPLAY_SOURCES]
    out = []
    for i in range(log.rows):
        for name, col in sources:
            if col[i] is not None:
                out.append((col[i], name))
                break
        else:
            out.append((None, None))
    return out


def latencies_ns(log):
    """(time since the first present in s, frame start to display in ns) where both are known,
    and the display-time sources used with their counts."""
    start, present = log.col("frame_start_ns"), log.col("present_ns")
    out, used = [], {}
    for i, (shown, source) in enumerate(display_times(log)):
        if shown is None or start[i] is None:
            continue
        out.append(((present[i] - present[0]) / 1e9, shown - start[i]))
        used[source] = used.get(source, 0) + 1
    return out, used


# Where each part of a frame's latency ends, and what that point is called (lowlat-stats' definitions).
# queue_done_ns comes from the display's report, or on the drm level from lowlat's ready fence.
GPU_STAGES = {"drm": "ready fence"}
GPU_REPORTED = "queue operations done (display report)"
SHOWN_STAGES = {
    "pixel_visible_ns": "first pixel visible",
    "pixel_out_ns": "first pixel out",
    "latched_ns": "taken by the compositor",
    "present_wait_ns": "present wait returned",
}


def latency_parts(log):
    """Per frame whose start is known: (time since the first present in s, game ns, GPU ns or None,
    display ns or None, display stage or None). game: frame start -> present call; GPU: present call
    -> its GPU work done (a frame done before the call counts 0); display: GPU done (the present call
    where that is unknown) -> shown, by the best display time the row has (DISPLAY_SOURCES)."""
    start, present, done = log.col("frame_start_ns"), log.col("present_ns"), log.col("queue_done_ns")
    out = []
    for i, (shown, source) in enumerate(display_times(log)):
        if start[i] is None:
            continue
        gpu_done = max(done[i], present[i]) if done[i] is not None else None
        gpu = gpu_done - present[i] if gpu_done is not None else None
        display = shown - (gpu_done if gpu_done is not None else present[i]) if shown is not None else None
        out.append(((present[i] - present[0]) / 1e9, present[i] - start[i], gpu, display,
                    SHOWN_STAGES.get(source)))
    return out


def _part(values, stage):
    """p50/p99 of one part (ms), its frames and the stage it ends at; values None where unknown."""
    known = [v for v in values if v is not None]
    return {"p50_ms": _ms(percentile(known, 50)), "p99_ms": _ms(percentile(known, 99)),
            "frames": len(known), "stage": stage if known else None}


def latency_split(log):
    """The latency in three parts (latency_parts), each one's p50 and p99, and one verdict line:
    which part dominates and what helps, in lowlat's settings where it can."""
    parts = latency_parts(log)
    if not parts:
        return None
    fallbacks = count(log.col("fallback"))
    fallback = max(fallbacks, key=fallbacks.get) if fallbacks else None
    stages = count([p[4] for p in parts])
    game = _part([p[1] for p in parts], "present call")
    gpu = _part([p[2] for p in parts], GPU_STAGES.get(fallback, GPU_REPORTED))
    display = _part([p[3] for p in parts], max(stages, key=stages.get) if stages else None)
    display["from"] = "gpu" if gpu["frames"] else "present call" if display["frames"] else None
    refresh = percentile([r for r in log.col("refresh_ns") if r], 50)
    return {"game": game, "gpu": gpu, "display": display,
            "verdict": verdict(game, gpu, display, refresh)}


def verdict(game, gpu, display, refresh_ns):
    """One line: where the latency goes and what helps; where a part is unknown, what is missing."""
    if display["p50_ms"] is None:
        return ("unknown: the driver reports no display times (present timing or present wait), so "
                f"only the game part is known ({game['p50_ms']:.2f} ms p50)")
    why = ""
    if gpu["p50_ms"] is None:
        why = " (the GPU part is unknown: no report of when its work was done; the display part counts from the present call)"
    known = {name: part["p50_ms"] for name, part in (("game", game), ("GPU", gpu), ("display", display))
             if part["p50_ms"] is not None}
    top = max(known, key=known.get)
    refresh_ms = refresh_ns / 1e6 if refresh_ns else None
    if top == "display" and refresh_ms and known["display"] > refresh_ms:
        return (f"queued behind the display: frames wait {known['display'] / refresh_ms:.1f} refreshes until "
                f"{display['stage']}; set max_latency_frames 1, a cap under the refresh rate (fps "
                f"\"refresh-3\"), or present_mode fifo_latest_ready{why}")
    if top == "display":
        return (f"no queue behind the display: its part is the wait for the next refresh{why}"
                if refresh_ms else f"the display part is the largest; its refresh is unknown{why}")
    if top == "GPU":
        return f"GPU-bound: a cap a few fps lower (the GPU then idles before each frame), or anti-lag{why}"
    return f"the game's own CPU time is the largest part: nothing a limiter can do about it{why}"


def refresh_slips(log):
    """{refreshes late: frames}: display time minus target in refresh durations, rounded to the
    nearest whole refresh, for frames where target, display time and refresh are all known.
    Meaningful when the target is a display time (fallback "timing"); for CPU targets it counts the
    whole pipeline's depth as well."""
    target, refresh = log.col("target_ns"), log.col("refresh_ns")
    hist = {}
    for i, (shown, _) in enumerate(display_times(log)):
        if shown is None or target[i] is None or not refresh[i] or refresh[i] <= 0:
            continue
        # Round half up in integers: exact for any ns values.
        slip = (shown - target[i] + refresh[i] // 2) // refresh[i]
        hist[slip] = hist.get(slip, 0) + 1
    return hist


def count(values):
    out = {}
    for v in values:
        if v is not None:
            out[v] = out.get(v, 0) + 1
    return out


def _ms(ns):
    return None if ns is None else ns / 1e6


def _us(ns):
    return None if ns is None else ns / 1e3


def stats(log):
    """Everything lowlat-stats reports for one log, as a JSON-ready dict (None: unknown)."""
    frames, present = log.col("frame"), log.col("present_ns")
    ft = [dt for _, dt in frame_times_ns(log)]
    duration_ns = present[-1] - present[0] if log.rows > 1 else 0
    presents = frames[-1] - frames[0] + 1 if log.rows else 0
    wait_end, target = log.col("wait_end_ns"), log.col("target_ns")
    err = [wait_end[i] - target[i] for i in range(log.rows)
           if wait_end[i] is not None and target[i] is not None]
    lat, lat_sources = latencies_ns(log)
    lat = [v for _, v in lat]
    slips = refresh_slips(log)
    low_1 = worst_mean(ft, 10)
    low_01 = worst_mean(ft, 1)
    return {
        "file": log.path,
        "frames": log.rows,
        # Counted by frame index, so presents whose records were dropped still count.
        "presents": presents,
        "dropped": log.dropped,
        "closed": log.closed,
        "duration_s": duration_ns / 1e9,
        "mean_fps": (presents - 1) * 1e9 / duration_ns if duration_ns > 0 else None,
        "frame_time_ms": {
            "mean": _ms(sum(ft) / len(ft)) if ft else None,
            "p50": _ms(percentile(ft, 50)),
            "p95": _ms(percentile(ft, 95)),
            "p99": _ms(percentile(ft, 99)),
            "max": _ms(max(ft)) if ft else None,
        },
        # The frame rate of the slowest 1% / 0.1% of frames: 1000 / their mean frame time in ms.
        "low_1pct_fps": 1e9 / low_1 if low_1 else None,
        "low_0_1pct_fps": 1e9 / low_01 if low_01 else None,
        "pacing_error_us": {
            "frames": len(err),
            "p50": _us(percentile(err, 50)),
            "p99": _us(percentile(err, 99)),
        } if err else None,
        "latency_ms": {
            "frames": len(lat),
            "sources": lat_sources,
            "p50": _ms(percentile(lat, 50)),
            "p95": _ms(percentile(lat, 95)),
            "p99": _ms(percentile(lat, 99)),
        } if lat else None,
        "latency_parts": latency_split(log),
        "refresh_slips": {str(k): v for k, v in sorted(slips.items())} if slips else None,
        "present_modes": count(log.col("present_mode")),
        "fallbacks": count(log.col("fallback")),
    }
