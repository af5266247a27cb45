#!/usr/bin/env python3
"""e2e_readme.py — the README's first screen gets a Steam player to a capped game: what its first 40
lines tell a player to run, run as they say, with the game's rate taken from the virtual display's
truth log (not from lowlat).

  e2e_readme.py --readme README.md --build BUILD --manifest-dir DIR

From README.md's first 40 lines:
- the install command, `meson setup build && [sudo] meson install -C build`: its install step is run
  against this build into a DESTDIR (the setup is this build's own);
- the Steam launch option, the code line with %command%: run through sh with %command% replaced
  by vkcube, the installed `lowlat` first on PATH and the installed layer's manifest where the
  loader looks (its library path moved into the DESTDIR), on the 120 Hz virtual display. The game
  must print one `lowlat: WxH: capped at <its --fps> fps, paced on ...` line, as the README shows,
  and the display must show that many new images a second (within 3%);
- `tools/demo` and `tests/run`, the set-up commands, must be there too.
The run is made once: a rate more than 3% off the README's fails.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdlog  # noqa: E402

FIRST_SCREEN = 40


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def code_lines(lines):
    """The lines inside ``` fences."""
    inside, out = False, []
    for ln in lines:
        if ln.startswith("```"):
            inside = not inside
        elif inside:
            out.append(ln)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--manifest-dir", required=True)
    args = ap.parse_args()
    if not shutil.which("vkcube"):
        print("SKIP: no vkcube")
        return 77

    first = open(args.readme).read().splitlines()[:FIRST_SCREEN]
    code = code_lines(first)
    print("the README's first screen, its commands:\n  " + "\n  ".join(code))
    install = [c for c in code if "meson install" in c]
    if install != ["meson setup build && sudo meson install -C build"] and \
       install != ["meson setup build && meson install -C build"]:
        fail(f"no `meson setup build && meson install -C build` in the first {FIRST_SCREEN} lines: {install}")
    launch = [c for c in code if "%command%" in c]
    if len(launch) != 1:
        fail(f"expected one Steam launch option (a code line with %command%) in the first {FIRST_SCREEN} lines: {launch}")
    for cmd in ("tools/demo", "tests/run"):
        if not any(c.split()[0] == cmd for c in code if c.split()):
            fail(f"{cmd}, a set-up command, is not in the first {FIRST_SCREEN} lines")
    m = re.search(r"--fps[ =](\d+(\.\d+)?)\b", launch[0])
    if not m:
        fail(f"the launch option {launch[0]!r} sets no cap in fps")
    fps = float(m.group(1))

    dest = tempfile.mkdtemp(prefix="lowlat-readme-")
    subprocess.run(["meson", "install", "-C", args.build, "--destdir", dest, "--no-rebuild", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    bins = glob.glob(os.path.join(dest, "**", "bin", "lowlat"), recursive=True)
    manifests = glob.glob(os.path.join(dest, "**", "implicit_layer.d", "VkLayer_lowlat.*.json"), recursive=True)
    if len(bins) != 1 or len(manifests) != 1:
        fail(f"the install did not put one lowlat command and one manifest in place: {bins} {manifests}")
    # The installed manifest names the library at its final path; here it is under DESTDIR.
    layers = os.path.join(dest, "xdg", "vulkan", "implicit_layer.d")
    os.makedirs(layers)
    manifest = json.load(open(manifests[0]))
    manifest["layer"]["library_path"] = dest + manifest["layer"]["library_path"]
    json.dump(manifest, open(os.path.join(layers, os.path.basename(manifests[0])), "w"))

    tmp = tempfile.mkdtemp(prefix="lowlat-readme-run-")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LOWLAT_") and k not in ("ENABLE_LOWLAT_LAYER", "VK_ADD_IMPLICIT_LAYER_PATH",
                                                        "VK_INSTANCE_LAYERS")}
    # The display's driver profile is the harness's (tests/vdisplay/meson.build), not lowlat's setting.
    if "LOWLAT_VDISPLAY_PROFILE" in os.environ:
        env["LOWLAT_VDISPLAY_PROFILE"] = os.environ["LOWLAT_VDISPLAY_PROFILE"]
    env.update({
        "PATH": os.path.dirname(bins[0]) + ":" + env.get("PATH", ""),
        "XDG_DATA_HOME": os.path.join(dest, "xdg"),
        "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_INSTANCE_LAYERS": "VK_LAYER_LOWLAT_vdisplay",
        "LOWLAT_VDISPLAY_HZ": "120",
        "LOWLAT_VDISPLAY_LOG": os.path.join(tmp, "truth.csv"),
    })
    command = launch[0].replace("%command%", "vkcube --wsi xcb --c 400")
    print(command)
    p = subprocess.run(["sh", "-c", command], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("lowlat:")]
    print("\n".join(lines))
    if p.returncode:
        fail(f"the launch option failed ({p.returncode}): {p.stdout[-2000:]}")
    rate, n = vdlog.new_images_per_second(vdlog.read(os.path.join(tmp, "truth.csv")))
    print(f"the display showed {rate:.2f} new images a second ({n} after the first 0.5 s)")
    if rate > fps * 1.03:
        fail(f"the display showed {rate:.2f} new images a second, above the README's {fps:g}")
    want = re.compile(r"lowlat: \d+x\d+: capped at %g fps, paced on " % fps)
    if len([ln for ln in lines if want.match(ln)]) != 1:
        fail(f"the game did not print the README's one line `capped at {fps:g} fps, paced on ...`")
    if rate < fps * 0.97:
        fail(f"the display showed {rate:.2f} new images a second, under the README's {fps:g} by more than 3% "
             f"(load {os.getloadavg()})")
    print(f"PASS: the README's first {FIRST_SCREEN} lines installed lowlat and capped the game at {fps:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
