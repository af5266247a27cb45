#!/usr/bin/env python3
"""e2e_level.py — which pacing level lowlat picks on a driver profile, and the cap it then keeps:
vkcube capped at --fps on a --hz display of profile --profile, through lowlat > validation > the
virtual display.

  e2e_level.py --manifest-dir DIR --lowlat-manifest-dir DIR --profile nvidia-xwayland
               --level present-wait --why "the surface does not support present timing"

Asserts: a clean run with validation silent (e2e_lowlat.check_run); lowlat's one pacing-level line
names --level, with --why as the reason it fell back from "timing"; and the display's record shows
--fps new images a second within 2% after start-up, latched on the refresh grid (vdlog's
invariants). One run: a slow machine shows in the rate, and the bound is one this host holds at
60 fps on 120 Hz (vkcube's frames are cheap).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_lowlat  # noqa: E402
from e2e_lowlat import SKIP  # noqa: E402
import vdlog  # noqa: E402



def main():
    ap = e2e_lowlat.arg_parser(hz="120")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--level", required=True)
    ap.add_argument("--why", required=True, help="the reason lowlat gives for leaving \"timing\"")
    ap.add_argument("--fps", default="60")
    ap.add_argument("--frames", type=int, default=360)
    args = ap.parse_args()
    if e2e_lowlat.cannot_run():
        return SKIP
    tmp = tempfile.mkdtemp(prefix="lowlat-level-")
    env = e2e_lowlat.lowlat_env(args, tmp, args.fps, {"LOWLAT_VDISPLAY_PROFILE": args.profile})
    cmd = ["vkcube", "--wsi", "xcb", "--c", str(args.frames)]
    print(f"{' '.join(cmd)} on the {args.profile} profile at {args.hz} Hz, capped at {args.fps}; files in {tmp}")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    failures = []
    try:
        lines = e2e_lowlat.check_run(p.stdout, p.returncode, tmp)
    except e2e_lowlat.Fail as e:
        print(f"FAIL: {e}")
        return 1
    levels = [ln for ln in lines if re.search(r'^lowlat: swapchain \d+x\d+: pacing level "', ln)]
    want = f'pacing level "{args.level}" (fallback from "timing": {args.why}'
    print("\n".join(levels))
    if len(levels) != 1 or want not in levels[0]:
        failures.append(f"expected one line saying {want!r}, got {levels}")
    rows = vdlog.read(os.path.join(tmp, "truth.csv"))
    vdlog.check_invariants(rows, failures.append)
    fps, n = vdlog.new_images_per_second(rows)
    print(f"display: {n} images after start-up at {fps:.2f} fps")
    if abs(fps - float(args.fps)) > 0.02 * float(args.fps):
        failures.append(f"{fps:.2f} new images a second, not {args.fps} within 2%")
    for f in failures[:10]:
        print("FAIL:", f)
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
