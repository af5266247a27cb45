#!/usr/bin/env python3
"""e2e_vkcube.py — vkcube, uncapped, through the virtual display with the Khronos validation layer
above it; asserts from the truth log what the display showed, and that validation stayed silent.

  e2e_vkcube.py --manifest-dir DIR --hz 60 --mode fifo --frames 240 [--expect-rate 60]

Exit 77 (meson's "skipped") when there is no vkcube, no X display or no validation layer, decided
before vkcube starts.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
import vdlog  # noqa: E402

MODES = {"immediate": 0, "mailbox": 1, "fifo": 2, "fifo_relaxed": 3}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest-dir", required=True)
    ap.add_argument("--hz", default="60")
    ap.add_argument("--vrr-min", help="make the display VRR between this rate and --hz")
    ap.add_argument("--mode", choices=MODES, default="fifo")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--expect-rate", type=float, help="new images per second the display must show")
    ap.add_argument("--tolerance", type=float, default=0.5)
    ap.add_argument("--no-validation", action="store_true")
    args = ap.parse_args()

    if e2e_lowlat.cannot_run(validation=not args.no_validation):
        return 77

    tmp = tempfile.mkdtemp(prefix="vdisplay-")
    log = os.path.join(tmp, "truth.csv")
    vlog = os.path.join(tmp, "validation.txt")
    env = dict(os.environ)
    layers = "VK_LAYER_LOWLAT_vdisplay"
    if not args.no_validation:
        # Validation above the display: it sees the app's calls, the display sits on the driver.
        layers = "VK_LAYER_KHRONOS_validation:" + layers
        env["VK_KHRONOS_VALIDATION_DEBUG_ACTION"] = "VK_DBG_LAYER_ACTION_LOG_MSG"
        env["VK_KHRONOS_VALIDATION_LOG_FILENAME"] = vlog
    env.update({
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_INSTANCE_LAYERS": layers,
        "LOWLAT_VDISPLAY_LOG": log,
        "LOWLAT_VDISPLAY_HZ": args.hz,
    })
    if args.vrr_min:
        env["LOWLAT_VDISPLAY_VRR_MIN_HZ"] = args.vrr_min
    cmd = ["vkcube", "--wsi", "xcb", "--c", str(args.frames), "--present_mode", str(MODES[args.mode])]
    print("running:", " ".join(cmd), "hz", args.hz)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    print(out[-2000:])
    if not args.no_validation and "Validation Layer" not in out and not os.path.exists(vlog):
        fail("the validation layer did not load, though it is installed")
        return 1
    if p.returncode != 0:
        fail(f"vkcube exited with {p.returncode}")
    if not os.path.exists(log):
        fail("no truth log: the virtual display was not in the chain")
        return 1

    rows = vdlog.read(log)
    vdlog.check_invariants(rows, fail)
    events = {}
    for r in rows:
        events[r["event"]] = events.get(r["event"], 0) + 1
    presents = sum(events.get(e, 0) for e in ("shown", "replaced", "skipped", "unshown"))
    rate, n = vdlog.new_images_per_second(rows)
    print(f"events {events}; {presents} presents; {rate:.2f} new images/s over {n} latches")

    if presents != args.frames:
        fail(f"{presents} presents in the log, vkcube made {args.frames}")
    if args.mode in ("fifo", "fifo_relaxed"):
        if events.get("replaced", 0) or events.get("skipped", 0):
            fail("FIFO dropped a request")
    if args.mode == "fifo" and args.vrr_min:
        vrr = [r for r in rows if r["vrr_min_mhz"]]
        if not vrr:
            fail("the display did not run variable-rate")
        print(f"VRR: {events.get('repeat', 0)} refreshes repeated an image (nothing ready within 1/{args.vrr_min} s)")
    elif args.mode == "fifo":
        # FIFO never lets a refresh pass while the head of the queue was ready: a refresh without a
        # new image is only allowed when the next request became ready after the vblank before it.
        shown = [r for r in rows if r["event"] == "shown"]
        gaps = 0
        for a, b in zip(shown, shown[1:]):
            if b["refresh"] - a["refresh"] > 1:
                gaps += 1
                missed = vdlog.refresh_start_ns(b["rate_mhz"], b["refresh"] - 1)
                if b["ready_ns"] <= missed:
                    fail(f"request {b['seq']} was ready at {b['ready_ns']} but waited past the vblank at {missed}")
        print(f"FIFO: {gaps} of {len(shown) - 1} refreshes between latches repeated an image (app not ready)")
    if args.mode == "mailbox":
        if not events.get("replaced"):
            fail("MAILBOX never replaced a pending request though vkcube outruns the display")
        seqs = {r["seq"] for r in rows if r["event"] in ("shown", "replaced", "unshown")}
        for r in rows:
            if r["event"] == "replaced" and r["by"] not in seqs:
                fail(f"request {r['seq']} replaced by unknown request {r['by']}")
    if args.mode == "immediate":
        if events.get("replaced", 0) or events.get("skipped", 0):
            fail("IMMEDIATE dropped a request")
        if events.get("shown", 0) + events.get("unshown", 0) != args.frames:
            fail("IMMEDIATE did not show every request")
    if args.expect_rate is not None:
        # Too fast is always the display's fault. Too slow is the display's fault unless every
        # missing image is a refresh at which vkcube's next frame was provably not ready yet (the
        # FIFO check above proved that for each one): on a loaded 2-core VM lavapipe can miss a few.
        if rate > args.expect_rate + args.tolerance:
            fail(f"{rate:.2f} new images/s, expected {args.expect_rate} +- {args.tolerance}")
        elif rate < args.expect_rate - args.tolerance:
            if args.mode == "fifo" and not failures:
                print(f"WARNING: {rate:.2f} new images/s < {args.expect_rate} - {args.tolerance}, but every "
                      "refresh without a new image had vkcube's next frame not ready: the machine is loaded")
            else:
                fail(f"{rate:.2f} new images/s, expected {args.expect_rate} +- {args.tolerance}")

    if not args.no_validation:
        text = open(vlog).read() if os.path.exists(vlog) else ""
        if text.strip():
            fail("validation messages:\n" + text[:3000])
        else:
            print("validation: clean")

    if failures:
        print(f"{len(failures)} failure(s); truth log kept in {log}")
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
