#!/usr/bin/env python3
"""judge.py RECORD --fps F [--rate-tolerance 0.02] [--min-on-cadence 0.9] — what the virtual display
showed of a capped run (its truth log, LOWLAT_VDISPLAY_LOG): the invariants every run keeps (latched
on the refresh grid, one image a refresh, requests in order), new images per second within the
tolerance of F after start-up, and at a cap of refresh/n the share of successive images shown n
refreshes apart. Prints one line `display: ...`; exit 1 naming what failed."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vdisplay"))
import vdlog  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("record")
    ap.add_argument("--fps", type=float, required=True)
    ap.add_argument("--rate-tolerance", type=float, default=0.02)
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
    print(f"display: {n} images after start-up at {fps:.2f} fps on {hz:g} Hz"
          + (f", {on:.1%} of successive images {cadence} refreshes apart" if on is not None else ""))
    if abs(fps - a.fps) > a.rate_tolerance * a.fps:
        failures.append(f"{fps:.2f} new images per second, not {a.fps:g} within {a.rate_tolerance:.0%}")
    if on is not None and on < a.min_on_cadence:
        failures.append(f"only {on:.1%} of successive images {cadence} refreshes apart (at least "
                        f"{a.min_on_cadence:.0%})")
    for f in failures[:10]:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
