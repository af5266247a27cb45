#!/usr/bin/env python3
"""judge.py RECORD --fps F [--rate-tolerance 0.02] [--slow-tolerance 0.03] [--min-on-cadence 0.9]
— what the virtual display showed of a capped run (its truth log, LOWLAT_VDISPLAY_LOG): the
invariants every run keeps (latched on the refresh grid, one image a refresh, requests in order),
new images per second within the tolerance of F after start-up, and at a cap of refresh/n the share
of successive images shown n refreshes apart. An image shown more than 1.25 intervals after the one
before is late: a frame this shared machine held up, which no pacer on a fixed grid takes back. A
run slow by up to the slow tolerance passes where the rate with the late images' extra time taken
out is within the tolerance; faster than F, or slow with that time taken out, fails. The test runs
once. Prints one line `display: ...`; exit 1 naming what failed."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vdisplay"))
import vdlog  # noqa: E402


def late_images(rows, fps, skip_s=0.5):
    """The images shown more than 1.25 intervals of F after the one before, over the span
    new_images_per_second judges, and the rate with their time beyond one interval taken out."""
    shown = [r for r in rows if r["event"] == "shown"]
    if len(shown) < 3:
        return 0, 0.0
    t0 = shown[0]["time_ns"] + int(skip_s * 1e9)
    steady = [r["time_ns"] for r in shown if r["time_ns"] >= t0]
    if len(steady) < 2:
        return 0, 0.0
    late, _, paced = vdlog.late_and_paced(steady, fps, 1.25)
    return late, paced


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("record")
    ap.add_argument("--fps", type=float, required=True)
    ap.add_argument("--rate-tolerance", type=float, default=0.02)
    ap.add_argument("--slow-tolerance", type=float, default=0.03)
    ap.add_argument("--min-on-cadence", type=float, default=0.9)
    a = ap.parse_args()
    failures = []
    rows = vdlog.read(a.record)
    vdlog.check_invariants(rows, failures.append)
    fps, n = vdlog.new_images_per_second(rows)
    shown = [r for r in rows if r["event"] == "shown" and not r["vrr_min_mhz"]]
    hz = shown[0]["rate_mhz"] / 1000 if shown else 0
    cadence = round(hz / a.fps) if hz and abs(hz / a.fps - round(hz / a.fps)) < 0.01 else 0
    gaps = [b["refresh"] - p["refresh"] for p, b in zip(shown, shown[1:])]
    on = sum(1 for g in gaps if g == cadence) / len(gaps) if gaps and cadence else None
    late_n, paced = late_images(rows, a.fps)
    print(f"display: {n} images after start-up at {fps:.2f} fps on {hz:g} Hz"
          + (f", {on:.1%} of successive images {cadence} refreshes apart" if on is not None else "")
          + f"; {late_n} late, {paced:.2f} fps with their extra time taken out")
    off, paced_off = fps / a.fps - 1, paced / a.fps - 1
    if off > a.rate_tolerance or paced_off < -a.rate_tolerance or off < -a.slow_tolerance:
        failures.append(f"{fps:.2f} new images per second ({paced:.2f} without the late ones' extra time), not "
                        f"{a.fps:g} within {a.rate_tolerance:.0%} (or up to {a.slow_tolerance:.0%} slow by late "
                        "images alone)")
    if on is not None and on < a.min_on_cadence:
        failures.append(f"only {on:.1%} of successive images {cadence} refreshes apart (at least "
                        f"{a.min_on_cadence:.0%})")
    for f in failures[:10]:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
