#!/usr/bin/env python3
"""e2e_refresh_cap.py — caps a player sets from the refresh rate or changes mid-game, judged from
the virtual display's truth log (what it showed, when), never from lowlat's own summary.

  e2e_refresh_cap.py --manifest-dir DIR --lowlat-manifest-dir DIR --cli LOWLAT --scenario NAME

Scenarios, vkcube through lowlat on the virtual display (lowlat at its default verbosity):
- half: LOWLAT_FPS=refresh/2 on 120 Hz. The display shows 60 new images a second (within 3%),
  and lowlat's one line says it capped at 60 fps, refresh/2 of 120 Hz from present timing.
- vrr: LOWLAT_FPS=refresh-3 on a 48-144 Hz variable-rate display. Lowlat caps at 141 fps; the
  display shows 141 new images a second (within 3%, never above), and frames it holds for its
  shortest refresh after a late one (shown that refresh after the one before, later than they
  were ready) come in runs no longer than it takes the cap's interval to gain a whole interval on
  the shortest refresh (48 frames): the frames stay inside the variable range, where a late
  frame's backlog drains, rather than at its top, where every frame after it stays as late.
- cycle: vkcube uncapped at 120 Hz, then `lowlat ctl cycle 60,90,0` three times, 2.5 s apart: the
  display's new images a second in each stretch (after 0.5 s to settle) are 60, 90, then 120 again
  (uncapped FIFO: the refresh rate), each within 3%; `lowlat status --once` shows the running game
  at cap 60 on level "timing" with a latency measured, and under its row that latency in three
  parts (game, GPU, display).
A stretch below its rate (which the shared machine's stalls can make) or above it fails; the test
runs once.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdlog  # noqa: E402

SKIP = 77
TOLERANCE = 0.03  # of the expected rate


class Fail(Exception):
    pass


class Slow(Exception):
    """A rate below what was asked: the machine's stalls can do that, so it is said apart."""


def env_for(args, tmp, fps, hz, vrr_min=None):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("LOWLAT_") or k in ("VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE",
                                             "VK_LOADER_LAYERS_DISABLE", "DISABLE_LOWLAT_LAYER"):
            del env[k]
    # The display's driver profile is the harness's (tests/vdisplay/meson.build), not lowlat's setting.
    if "LOWLAT_VDISPLAY_PROFILE" in os.environ:
        env["LOWLAT_VDISPLAY_PROFILE"] = os.environ["LOWLAT_VDISPLAY_PROFILE"]
    os.makedirs(os.path.join(tmp, "run"), mode=0o700)
    env.update({
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_ADD_IMPLICIT_LAYER_PATH": args.lowlat_manifest_dir,
        "VK_INSTANCE_LAYERS": "VK_LAYER_LOWLAT_vdisplay",
        "VK_LOADER_DEBUG": "layer",
        "ENABLE_LOWLAT_LAYER": "1",
        "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
        "XDG_RUNTIME_DIR": os.path.join(tmp, "run"),
        "LOWLAT_FPS": fps,
        "LOWLAT_VDISPLAY_HZ": str(hz),
        "LOWLAT_VDISPLAY_LOG": os.path.join(tmp, "truth.csv"),
    })
    if vrr_min:
        env["LOWLAT_VDISPLAY_VRR_MIN_HZ"] = str(vrr_min)
    return env


def check_chain(out):
    order = re.findall(r'Insert instance layer "([A-Za-z_]+)"', out)
    if "VK_LAYER_LOWLAT_limiter" not in order or "VK_LAYER_LOWLAT_vdisplay" not in order:
        raise Fail(f"the loader inserted {order}: lowlat and the virtual display must both be there")


def lowlat_lines(out):
    return [ln for ln in out.splitlines() if ln.startswith("lowlat: ")]


def shown(truth):
    return [r for r in vdlog.read(truth) if r["event"] == "shown"]


def rate(rows, t0, t1):
    """New images a second shown between t0 and t1 (CLOCK_MONOTONIC ns)."""
    times = [r["time_ns"] for r in rows if t0 <= r["time_ns"] < t1]
    if len(times) < 3:
        return 0.0
    return (len(times) - 1) / ((times[-1] - times[0]) / 1e9)


def judge(name, got, want):
    print(f"{name}: {got:.2f} new images a second (cap {want:g})")
    if got > want * (1 + TOLERANCE):
        raise Fail(f"{name}: the display showed {got:.2f} new images a second, above {want:g}")
    if got < want * (1 - TOLERANCE):
        raise Slow(f"{name}: the display showed {got:.2f} new images a second, under {want:g}")


# Lines lowlat says only at LOWLAT_VERBOSE=1 or 2 (message.h): none may come at the default level.
VERBOSE_ONLY = ("lowlat: config:", "pacing level", "present mode", "wait point", " presents in ",
                "active in", "control socket")


def one_line(out, *parts):
    """lowlat's cap line (the line with all of parts: its values), said once, and nothing only the
    verbose levels say."""
    lines = lowlat_lines(out)
    print("\n".join(lines))
    if sum(all(p in ln for p in parts) for ln in lines) != 1:
        raise Fail(f"expected one lowlat line with {parts!r} at the default level, got {lines}")
    chatty = [ln for ln in lines if any(v in ln for v in VERBOSE_ONLY)]
    if chatty:
        raise Fail(f"lines of LOWLAT_VERBOSE=1 at the default level: {chatty}")


def run_fixed(args, tmp, fps, hz, vrr_min, frames):
    env = env_for(args, tmp, fps, hz, vrr_min)
    p = subprocess.run(["vkcube", "--wsi", "xcb", "--c", str(frames)], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    check_chain(p.stdout)
    if p.returncode:
        raise Fail(f"vkcube exited with {p.returncode}: {p.stdout[-2000:]}")
    return p.stdout, shown(os.path.join(tmp, "truth.csv"))


def half(args, tmp):
    out, rows = run_fixed(args, tmp, "refresh/2", 120, None, 400)
    judge("refresh/2 at 120 Hz", rate(rows, rows[0]["time_ns"] + 500_000_000, rows[-1]["time_ns"] + 1), 60)
    one_line(out, "lowlat: 500x500: capped at 60 fps (", "refresh/2 of 120 Hz", "(present timing)")


def vrr(args, tmp):
    out, rows = run_fixed(args, tmp, "refresh-3", 144, 48, 700)
    one_line(out, "lowlat: 500x500: capped at 141 fps (", "refresh-3 of 144 Hz", "(present timing)")
    steady = [r for r in rows if r["time_ns"] >= rows[0]["time_ns"] + 500_000_000]
    # Judged on the display's record alone, not on lowlat's targets. Inside the variable range a
    # frame is shown once it is ready and its target has come. After a late frame the display holds
    # the next ones for its shortest refresh: each of those runs 1/141 - 1/144 s (148 us) ahead of
    # the cap's grid, so the run ends once the backlog is gone. The pacer keeps at most an interval
    # of it (it restarts its grid beyond that), drained within interval / (interval - shortest)
    # frames. At the top (a cap of 144) nothing drains: the run lasts until a frame comes early.
    shortest, interval = 1e9 / 144, 1e9 / 141
    longest_ok = math.ceil(interval / (interval - shortest))
    runs, run = [], 0
    for p, r in zip(steady, steady[1:]):
        # The display's gap is its refresh duration, rounded to the nanosecond.
        if r["time_ns"] - p["time_ns"] <= shortest + 1 and r["time_ns"] > r["ready_ns"] + 100_000:
            run += 1
            continue
        if run:
            runs.append(run)
        run = 0
    if run:
        runs.append(run)
    longest = max(runs, default=0)
    print(f"frames the display held for its shortest refresh: {sum(runs)} of {len(steady)}, in {len(runs)} "
          f"runs, the longest {longest} (at most {longest_ok})")
    if longest > longest_ok:
        raise Fail(f"{longest} frames in a row were held at the display's top rate: its backlog did not drain")
    judge("refresh-3 at 48-144 Hz", rate(steady, 0, 1 << 62), 141)


def cycle(args, tmp):
    env = env_for(args, tmp, "0", 120)
    cli_env = dict(env)
    vk = subprocess.Popen(["vkcube", "--wsi", "xcb", "--c", "1300"], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    try:
        sock_dir = os.path.join(tmp, "run", "lowlat")
        for _ in range(200):
            if os.path.isdir(sock_dir) and os.listdir(sock_dir):
                break
            time.sleep(0.05)
        else:
            raise Fail("no control socket appeared")
        marks = [time.monotonic_ns()]
        time.sleep(2.5)
        status = None
        for i, want in enumerate(["ok fps 60", "ok fps 90", "ok fps 0"]):
            r = subprocess.run([args.cli, "ctl", "cycle", "60,90,0"], env=cli_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=10)
            marks.append(time.monotonic_ns())
            if r.returncode or r.stdout.strip() != want:
                raise Fail(f"lowlat ctl cycle 60,90,0 replied {r.stdout.strip()!r} ({r.returncode}), not {want!r}")
            time.sleep(2.5)
            if i == 0:
                status = subprocess.run([args.cli, "status", "--once"], env=cli_env, stdout=subprocess.PIPE,
                                        text=True, timeout=10).stdout
        marks.append(time.monotonic_ns())
        out, _ = vk.communicate(timeout=60)
    finally:
        if vk.poll() is None:
            vk.kill()
    check_chain(out)
    if vk.returncode:
        raise Fail(f"vkcube exited with {vk.returncode}: {out[-2000:]}")
    rows = shown(os.path.join(tmp, "truth.csv"))
    settle = 500_000_000
    for (name, want), t0, t1 in zip([("uncapped", 120), ("cycle to 60", 60), ("cycle to 90", 90),
                                      ("cycle to 0 (off)", 120)], marks, marks[1:]):
        judge(name, rate(rows, t0 + settle, t1), want)
    print("\n".join(lowlat_lines(out)))
    print("lowlat status --once while at 60:\n" + status)
    lines = status.splitlines()
    row = [i for i, ln in enumerate(lines) if ln.startswith("vkcube")]
    if len(row) != 1 or not re.search(r"\b500x500 +60 +timing +\d+\.\d +\d+\.\d\d / \d+\.\d\d ms$", lines[row[0]]):
        raise Fail(f"lowlat status does not show vkcube at cap 60 on \"timing\" with its latency: {row}")
    # Under it, the latency in three parts, each p50/p99, and where the display part ends.
    parts = lines[row[0] + 1] if row[0] + 1 < len(lines) else ""
    if not re.search(r"^ +game \d+\.\d\d/\d+\.\d\d  GPU \d+\.\d\d/\d+\.\d\d  display \d+\.\d\d/\d+\.\d\d ms "
                     r"\(until the first pixel (out|visible)\)$", parts):
        raise Fail(f"lowlat status does not show vkcube's latency in three parts under its row: {parts!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest-dir", required=True)
    ap.add_argument("--lowlat-manifest-dir", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--scenario", choices=("half", "vrr", "cycle"), required=True)
    args = ap.parse_args()
    if not shutil.which("vkcube"):
        print("SKIP: no vkcube")
        return SKIP
    scenario = {"half": half, "vrr": vrr, "cycle": cycle}[args.scenario]
    tmp = tempfile.mkdtemp(prefix="lowlat-refresh-cap-")
    print(f"logs in {tmp}")
    try:
        scenario(args, tmp)
    except Fail as e:
        print(f"FAIL: {e}")
        return 1
    except Slow as e:
        print(f"FAIL: short of the cap ({e}); load: {os.getloadavg()}")
        return 1
    print(f"PASS: {args.scenario}")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
