#!/usr/bin/env python3
"""e2e_modes.py — lowlat's `present_mode` on the virtual display: vkcube (which asks for FIFO)
through lowlat > validation > the display, one scenario per run.

  e2e_modes.py --manifest-dir DIR --lowlat-manifest-dir DIR --scenario uncapped|live|mailbox

- uncapped: present_mode auto with LOWLAT_FPS=0 (lowlat does not cap): every present stays FIFO in
  the truth log and lowlat's present log, nothing is dropped, and lowlat's one present-mode line says
  FIFO_LATEST_READY only while capping.
- live: the game's config file caps at 60 fps, then (rewritten while vkcube runs; lowlat reloads it
  within a second) turns the cap off, then on again. The display offers swapchain_maintenance1, so
  the one swapchain switches at run time: the truth log shows FIFO_LATEST_READY, then FIFO, then
  FIFO_LATEST_READY again, each for a stretch of frames, and no other mode.
- live-maintenance1-ext: the same on a display that lists swapchain_maintenance1 in its EXT form
  only (LOWLAT_VDISPLAY_MAINTENANCE1=ext), as NVIDIA's 580 driver did, while the instance lists both
  forms of surface_maintenance1: lowlat still switches the mode per present.
- no-maintenance1: the display without swapchain_maintenance1 (LOWLAT_VDISPLAY_NO_MAINTENANCE1=1):
  capping at creation, the swapchain is created in FIFO_LATEST_READY and stays so; not capping, it
  stays FIFO; lowlat's line says the mode was chosen once, and why.
- mailbox: present_mode mailbox (explicit): the FIFO swapchain is created in MAILBOX, every present
  is MAILBOX, and lowlat says the mode was forced.
Validation between lowlat and the display stays silent in each (e2e_lowlat.check_run).
"""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import Fail, SKIP  # noqa: E402
import vdlog  # noqa: E402



def log_rows(tmp):
    logs = glob.glob(os.path.join(tmp, "log", "*.csv"))
    if len(logs) != 1:
        raise Fail(f"expected one present log, found {logs}")
    with open(logs[0]) as f:
        return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))


def wait_for_presents(tmp, mode, count, proc, timeout_s=30):
    """Waits until lowlat's present log (written out every 100 ms) ends with count presents in a row
    in mode: the state before is in force and has run a stretch. Fails if vkcube exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        logs = glob.glob(os.path.join(tmp, "log", "*.csv"))
        if logs:
            with open(logs[0]) as f:
                modes = [r.get("present_mode") for r in csv.DictReader(ln for ln in f if not ln.startswith("#"))]
            runs = runs_of(modes)
            if runs and runs[-1][0] == mode and runs[-1][1] >= count:
                return
        if proc.poll() is not None:
            raise Fail(f"vkcube exited before {count} presents in a row in {mode}")
        time.sleep(0.05)
    raise Fail(f"no {count} presents in a row in {mode} within {timeout_s} s")


def runs_of(modes):
    """[(mode, count)] of successive equal modes."""
    out = []
    for m in modes:
        if out and out[-1][0] == m:
            out[-1][1] += 1
        else:
            out.append([m, 1])
    return [tuple(x) for x in out]


def write_game_file(tmp, config):
    d = os.path.join(tmp, "config", "lowlat", "games")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "vkcube.json")
    with open(path + ".new", "w") as f:
        json.dump(config, f)
    os.rename(path + ".new", path)  # a new inode: lowlat reads it again whatever the mtime granularity


def run(args, tmp, fps, extra, frames, during=None, lines_out=None):
    """Runs vkcube through lowlat; checks the chain, validation, the truth log's invariants and that
    lowlat printed one present-mode line. Returns (truth log rows, that line); lowlat's output
    lines go into lines_out when given."""
    env = e2e_lowlat.lowlat_env(args, tmp, fps, extra)
    cmd = ["vkcube", "--wsi", "xcb", "--c", str(frames)]
    print(f"{args.scenario}: {' '.join(cmd)} on {args.hz} Hz, fps {fps}, {extra}")
    out_path = os.path.join(tmp, "vkcube.out")
    with open(out_path, "w") as out_file:
        p = subprocess.Popen(cmd, env=env, stdout=out_file, stderr=subprocess.STDOUT, text=True)
        try:
            if during:
                during(p)
            p.wait(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    with open(out_path) as f:
        out = f.read()
    lines = e2e_lowlat.check_run(out, p.returncode, tmp)
    if lines_out is not None:
        lines_out.extend(lines)
    rows = vdlog.read(os.path.join(tmp, "truth.csv"))
    errors = []
    vdlog.check_invariants(rows, errors.append)
    if errors:
        raise Fail("truth log invariants: " + "; ".join(errors[:5]))
    modes = e2e_lowlat.mode_lines(lines)
    if len(modes) != 1:
        raise Fail(f"expected one present-mode line, got {modes}")
    print(modes[0])
    return rows, modes[0]


def uncapped(args, tmp):
    rows, line = run(args, tmp, 0, {}, 240)
    if "present mode FIFO (present_mode auto: FIFO_LATEST_READY" not in line:
        raise Fail("the present-mode line does not say FIFO, switched to FIFO_LATEST_READY only while capping")
    modes = {r["mode"] for r in rows}
    if modes != {"FIFO"}:
        raise Fail(f"modes in the truth log {modes}, expected FIFO only")
    dropped = [r["seq"] for r in rows if r["event"] in ("replaced", "skipped")]
    if dropped:
        raise Fail(f"FIFO dropped requests {dropped[:10]}")
    logged = {r["present_mode"] for r in log_rows(tmp)}
    if logged != {"FIFO"}:
        raise Fail(f"modes in lowlat's present log {logged}, expected FIFO only")
    print(f"{sum(r['event'] == 'shown' for r in rows)} frames shown, all FIFO")


def live(args, tmp, extra=None):
    write_game_file(tmp, {"fps": 60})

    def change(proc):
        # Each state in force for a stretch of frames (lowlat's present log shows it) before the
        # next edit; lowlat looks at its files at most once a second.
        wait_for_presents(tmp, "FIFO_LATEST_READY", 90, proc)
        write_game_file(tmp, {"fps": 0})
        wait_for_presents(tmp, "FIFO", 90, proc)
        write_game_file(tmp, {"fps": 60})

    # 90 presents at 60 fps, a reload, 90 uncapped (up to 120 fps on 120 Hz), a reload, the rest at
    # 60 fps.
    rows, line = run(args, tmp, None, extra or {}, 780, change)
    if "swapchain_maintenance1" in line and "each present through swapchain_maintenance1" not in line:
        raise Fail(f"lowlat did not take up swapchain_maintenance1: {line}")
    seq_modes = [r["mode"] for r in sorted((r for r in rows if r["event"] in ("shown", "skipped", "replaced",
                                                                             "unshown")), key=lambda r: r["seq"])]
    runs = runs_of(seq_modes)
    print("present modes in order:", runs)
    # A stretch of at least 30 presents (half a second) in each state.
    long_runs = [m for m, n in runs if n >= 30]
    if long_runs != ["FIFO_LATEST_READY", "FIFO", "FIFO_LATEST_READY"] or len(runs) != 3:
        raise Fail(f"expected FIFO_LATEST_READY, FIFO, FIFO_LATEST_READY, got {runs}")
    logged = runs_of(r["present_mode"] for r in log_rows(tmp))
    if [m for m, _ in logged] != ["FIFO_LATEST_READY", "FIFO", "FIFO_LATEST_READY"]:
        raise Fail(f"lowlat's present log has modes {logged}")


def no_maintenance1(args, tmp):
    hide = {"LOWLAT_VDISPLAY_NO_MAINTENANCE1": "1"}
    # Capping when the swapchain is created: FIFO_LATEST_READY for its whole life.
    capped = os.path.join(tmp, "capped")
    os.makedirs(capped)
    rows, line = run(args, capped, 60, hide, 180)
    if "present mode FIFO_LATEST_READY (present_mode auto" not in line or "lacks swapchain_maintenance1" not in line:
        raise Fail("the present-mode line does not say FIFO_LATEST_READY chosen at creation without "
                   "swapchain_maintenance1")
    modes = {r["mode"] for r in rows}
    if modes != {"FIFO_LATEST_READY"}:
        raise Fail(f"modes in the truth log {modes}, expected FIFO_LATEST_READY only")
    # Not capping then: FIFO, and the line says a later cap cannot switch it.
    uncapped = os.path.join(tmp, "uncapped")
    os.makedirs(uncapped)
    rows, line = run(args, uncapped, 0, hide, 120)
    if "present mode FIFO (" not in line or "lacks swapchain_maintenance1" not in line:
        raise Fail("the present-mode line does not say FIFO kept, not capping at creation")
    modes = {r["mode"] for r in rows}
    if modes != {"FIFO"}:
        raise Fail(f"modes in the truth log {modes}, expected FIFO only")
    print("without swapchain_maintenance1: FIFO_LATEST_READY when capping at creation, else FIFO")


def mailbox(args, tmp):
    rows, line = run(args, tmp, 60, {"LOWLAT_PRESENT_MODE": "mailbox"}, 180)
    if "present mode MAILBOX (forced by present_mode mailbox; the app asked for FIFO)" not in line:
        raise Fail("the present-mode line does not say MAILBOX was forced")
    modes = {r["mode"] for r in rows}
    if modes != {"MAILBOX"}:
        raise Fail(f"modes in the truth log {modes}, expected MAILBOX only")
    logged = {r["present_mode"] for r in log_rows(tmp)}
    if logged != {"MAILBOX"}:
        raise Fail(f"modes in lowlat's present log {logged}, expected MAILBOX only")
    print(f"{sum(r['event'] == 'shown' for r in rows)} frames shown, all MAILBOX")


def main():
    ap = e2e_lowlat.arg_parser(hz="120")
    ap.add_argument("--scenario", required=True,
                    choices=["uncapped", "live", "live-maintenance1-ext", "mailbox", "no-maintenance1"])
    args = ap.parse_args()

    if e2e_lowlat.cannot_run():
        return SKIP
    tmp = tempfile.mkdtemp(prefix="lowlat-modes-")
    print("logs in", tmp)
    try:
        {"uncapped": uncapped, "live": live, "mailbox": mailbox,
         "live-maintenance1-ext": lambda a, t: live(a, t, {"LOWLAT_VDISPLAY_MAINTENANCE1": "ext"}),
         "no-maintenance1": no_maintenance1}[args.scenario](args, tmp)
    except Fail as e:
        print("FAIL:", e)
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
