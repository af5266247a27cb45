#!/usr/bin/env python3
"""probe_stats.py — frame pacing measured from outside lowlat: the bench probe's CSV
(tests/bench/probe, the layer above lowlat; one row per present with CLOCK_MONOTONIC at entry and
return, the swapchain handle) turned into the numbers the end-to-end tests judge.

  probe_stats.py CSV [--skip N] [--cap FPS] [--by-swapchain] [--at entry] [--from-ns T --to-ns T]
                 [--below CSV [--held-us N]]

Prints one line of key=value pairs (for the shell tests to read with `eval` or grep), per swapchain
with --by-swapchain. The frame interval is between successive present returns: when lowlat, in
late mode, released the app to start its next frame (--at entry: between present calls). The first N presents of each swapchain are
left out (start-up: pipelines, swapchain creation, the first deadline).
  presents   presents kept
  fps        (presents kept - 1) / time from the first kept return to the last
  median_ms  the median interval
  p99_err_us the 99th percentile of |interval - 1/cap| (with --cap)
  max_ms     the longest interval
  stalled    (with --cap) the share of intervals over 1.5 / cap: a stall, the host's or the app's
  steady_fps (with --cap) intervals per second over the others
With --below (the twin probe's CSV, under lowlat: when the driver's present returned), only the
intervals between two frames that lowlat held at least N us (default 50) after the driver returned
them: releases whose time was lowlat's wait alone, not a frame the app or the driver made late
(then lowlat does not wait and releases it at once). Adds held_share: their share of all intervals.
"""
import argparse
import csv
import statistics
import sys


def read(path, at="return"):
    with open(path, newline="") as f:
        return [(int(r[at + "_ns"]), r.get("swapchain", "0"), int(r["result"])) for r in csv.DictReader(f)]


def stats(returns, cap=None):
    """The numbers of one series of present returns (ns, ascending)."""
    iv = [b - a for a, b in zip(returns, returns[1:])]
    out = {"presents": len(returns)}
    if not iv:
        return out
    span = returns[-1] - returns[0]
    out["fps"] = (len(returns) - 1) / (span / 1e9) if span > 0 else 0.0
    out["median_ms"] = statistics.median(iv) / 1e6
    out["max_ms"] = max(iv) / 1e6
    if cap:
        err = sorted(abs(d - 1e9 / cap) / 1e3 for d in iv)
        out["p99_err_us"] = err[max(0, -(-99 * len(err) // 100) - 1)]
        steady = [d for d in iv if d <= 1.5e9 / cap]
        out["stalled"] = 1 - len(steady) / len(iv)
        out["steady_fps"] = len(steady) / (sum(steady) / 1e9) if steady else 0.0
    return out


def fmt(d):
    return " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--skip", type=int, default=30, help="presents left out at the start of each swapchain")
    ap.add_argument("--cap", type=float)
    ap.add_argument("--by-swapchain", action="store_true")
    ap.add_argument("--at", choices=["return", "entry"], default="return")
    ap.add_argument("--from-ns", type=int, default=None, help="only presents returning at or after this")
    ap.add_argument("--to-ns", type=int, default=None, help="only presents returning before this")
    ap.add_argument("--below", help="the probe under lowlat: judge only intervals between frames it held")
    ap.add_argument("--held-us", type=float, default=50.0)
    args = ap.parse_args()

    rows = read(args.csv, args.at)
    if args.below:
        below = read(args.below)
        if len(below) != len(rows):
            sys.exit(f"probe_stats: {len(rows)} presents above lowlat, {len(below)} below")
        held = [r[0] - b[0] >= args.held_us * 1e3 for r, b in zip(rows, below)]
        rows = rows[args.skip:]
        held = held[args.skip:]
        iv = [(b[0] - a[0], ha and hb) for a, b, ha, hb in zip(rows, rows[1:], held, held[1:])]
        judged = [d for d, h in iv if h]
        out = {"presents": len(rows), "held_share": len(judged) / len(iv) if iv else 0.0}
        if judged and args.cap:
            err = sorted(abs(d - 1e9 / args.cap) / 1e3 for d in judged)
            out["p99_err_us"] = err[max(0, -(-99 * len(err) // 100) - 1)]
            out["median_ms"] = statistics.median(judged) / 1e6
        print(fmt(out))
        return
    rows = [r for r in rows if r[2] >= 0]  # failed presents were not shown, nor paced
    chains = {}
    for t, chain, _ in rows:
        chains.setdefault(chain, []).append(t)
    series = {}
    for chain, times in chains.items():
        times = times[args.skip:]
        if args.from_ns is not None:
            times = [t for t in times if t >= args.from_ns]
        if args.to_ns is not None:
            times = [t for t in times if t < args.to_ns]
        series[chain] = times
    if args.by_swapchain:
        for chain, times in series.items():
            print(f"swapchain={chain} " + fmt(stats(times, args.cap)))
    else:
        if len(series) != 1:
            sys.exit(f"probe_stats: {len(series)} swapchains in {args.csv}; use --by-swapchain")
        print(fmt(stats(next(iter(series.values())), args.cap)))


if __name__ == "__main__":
    main()
