#!/usr/bin/env python3
"""Behaviour check of tools/bench-display's analysis (not a benchmark: nothing here is timed).

Feeds bench-display's analyse() the app's and the display's CSVs of made-up runs and checks how it
counts repeats: every refresh that showed the frame before it again, less those the cap asks for.
The case the rule before 2026-12-03 missed: a frame presented after its planned refresh, which
lowlat gives the next refresh as its target, so nothing asked for the refresh that repeated.

usage: bench_display_test.py BENCH_DISPLAY
"""
import csv
import importlib.machinery
import importlib.util
import os
import sys
import tempfile

HZ = 120
RATE_MHZ = HZ * 1000
FRAMES = 400


def refresh_ns(k):
    return k * 10**12 // RATE_MHZ


def write_run(tmp, name, refreshes):
    """A run whose frame seq (from 1) was shown at refreshes[seq - 1], with that refresh as its
    target; a gap of two refreshes before a frame writes a repeat of the frame before it."""
    app, truth = os.path.join(tmp, name + ".app.csv"), os.path.join(tmp, name + ".truth.csv")
    with open(app, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["frame", "start_ns", "work_ns", "acquired_ns", "present_ns"])
        for i, k in enumerate(refreshes):
            start = refresh_ns(k) - 3_000_000
            w.writerow([i, start, 2_000_000, start + 2_000_000, start + 2_100_000])
    with open(truth, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["swapchain", "event", "seq", "present_id", "image", "mode", "queued_ns", "ready_ns",
                    "target_ns", "refresh", "time_ns", "by", "rate_mhz", "vrr_min_mhz"])
        for i, k in enumerate(refreshes):
            seq, t = i + 1, refresh_ns(k)
            row = [1, "shown", seq, seq, i % 4, "FIFO_LATEST_READY", t - 900_000, t - 800_000, t, k, t, 0,
                   RATE_MHZ, 0]
            w.writerow(row)
            if i + 1 < len(refreshes):
                for r in range(k + 1, refreshes[i + 1]):
                    w.writerow([1, "repeat"] + row[2:9] + [r, refresh_ns(r), 0, RATE_MHZ, 0])
    return app, truth


def repeats_pct(bd, cap, name, refreshes, tmp):
    case = bd.Case(HZ, cap, 2000, 0, "lowlat")
    bd.analyse(case, *write_run(tmp, name, refreshes))
    return bd.stats(case)["repeats_pct"], case.refreshes


def check(what, got, want, span, fails):
    """got and want in % of span refreshes: equal within half a refresh (the cap's own repeats,
    span x (1 - cap/hz), are whole refreshes in the log and fractional in the count)."""
    ok = abs(got - want) < 50 / span
    print(f"{'ok' if ok else 'FAIL'}: {what}: {got:.4f}% (want {want:.4f}%, over {span} refreshes)")
    if not ok:
        fails.append(what)


def main():
    loader = importlib.machinery.SourceFileLoader("bench_display", sys.argv[1])
    spec = importlib.util.spec_from_loader("bench_display", loader)
    bd = importlib.util.module_from_spec(spec)
    loader.exec_module(bd)
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        # Cap 120: every refresh a new frame, then frame 300 presented a refresh late (its target
        # moved to the refresh it was shown on): one repeat.
        steady = list(range(1000, 1000 + FRAMES))
        pct, span = repeats_pct(bd, 120, "steady", steady, tmp)
        check("cap 120, every frame on its refresh", pct, 0.0, span, fails)
        late = [k + (1 if i >= 299 else 0) for i, k in enumerate(steady)]
        pct, span = repeats_pct(bd, 120, "late", late, tmp)
        check("cap 120, one present after its refresh", pct, 100 / span, span, fails)
        # Cap 117: one refresh in 40 shows its frame twice on purpose; those are not counted, an
        # extra one is.
        grid = [1000 + i + i // 39 for i in range(FRAMES)]
        pct, span = repeats_pct(bd, 120 * 39 / 40, "grid", grid, tmp)
        check("cap 117, the cap's own repeats", pct, 0.0, span, fails)
        extra = [k + (1 if i >= 299 else 0) for i, k in enumerate(grid)]
        pct, span = repeats_pct(bd, 120 * 39 / 40, "extra", extra, tmp)
        check("cap 117, one repeat beyond the cap's", pct, 100 / span, span, fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
