#!/usr/bin/env python3
"""procs.py — what vkGetDeviceProcAddr answers an app through lowlat and the layer below it.

  procs.py armwsi --timing-procs APP --lowlat-dir DIR --armwsi-dir DIR [--missing WHY]
  procs.py mangohud --timing-procs APP --lowlat-dir DIR

armwsi: an app using VK_EXT_present_timing that Arm's WSI layer offers below lowlat.
tests/neighbours/timing_procs enables the extension (listed by the layer when asked by its name),
fetches its commands with vkGetDeviceProcAddr and uses them on a headless surface: 30 FIFO
presents, each waited for with vkWaitForPresent2KHR, past timings read back. It runs
  - without lowlat (the control: Arm's layer alone must do all of it),
  - with lowlat above Arm's layer, capping at 60 fps,
  - with lowlat above it and `enabled: false` (a pass-through must hide nothing either),
and each run must exit 0 with the loader's `Insert instance layer` lines showing the chain meant.
Exit 77 before anything runs when Arm's WSI layer could not be built (WHY says why).

mangohud: timing_procs --names-only asks vkGetDeviceProcAddr for instance-level names with lowlat
above MangoHud, whose vkGetDeviceProcAddr hands out its own vkCreateInstance, vkDestroyInstance and
vkGetInstanceProcAddr: lowlat must answer NULL itself, as the spec says. Exit 77 before anything
runs when MangoHud is not installed.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ARMWSI = "VK_LAYER_window_system_integration"
LOWLAT = "VK_LAYER_LOWLAT_limiter"
MANGOHUD = "VK_LAYER_MANGOHUD_overlay_x86_64"

failures = []


def run(cmd, env, name, chain):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    got = re.findall(r'Insert instance layer "([A-Za-z0-9_]+)"', p.stdout)
    shown = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("[Vulkan Loader]"))
    print(f"--- {name}: exit {p.returncode}, chain (bottom to top) {got}\n{shown[-1500:]}")
    if got != chain:
        failures.append(f"{name}: the loader inserted {got}, expected {chain}")
    elif p.returncode != 0:
        failures.append(f"{name}: timing_procs exited {p.returncode}")


def armwsi(a, env):
    cmd = [a.timing_procs, "--layer", ARMWSI]
    env.update(VK_ADD_LAYER_PATH=a.armwsi_dir, VK_INSTANCE_LAYERS=ARMWSI, WSI_HEADLESS_REFRESH_NS="16666666")
    run(cmd, env, "Arm's WSI layer alone", [ARMWSI])
    run(cmd, dict(env, ENABLE_LOWLAT_LAYER="1", LOWLAT_FPS="60"), "lowlat above it, capping at 60",
        [ARMWSI, LOWLAT])
    run(cmd, dict(env, ENABLE_LOWLAT_LAYER="1", LOWLAT_ENABLED="false"), "lowlat above it, enabled: false",
        [ARMWSI, LOWLAT])


def mangohud(a, env):
    env.update(VK_INSTANCE_LAYERS=f"{LOWLAT}:{MANGOHUD}", MANGOHUD_CONFIG="no_display")
    run([a.timing_procs, "--names-only"], env, "lowlat above MangoHud", [MANGOHUD, LOWLAT])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["armwsi", "mangohud"])
    ap.add_argument("--timing-procs", required=True)
    ap.add_argument("--lowlat-dir", required=True)
    ap.add_argument("--armwsi-dir", default="")
    ap.add_argument("--missing", default="")
    a = ap.parse_args()
    if a.case == "mangohud" and not glob.glob("/usr/share/vulkan/implicit_layer.d/MangoHud*.json"):
        a.missing = "MangoHud is not installed (no manifest in /usr/share/vulkan/implicit_layer.d)"
    if a.missing:
        print(f"SKIP: {a.missing}")
        return 77
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LOWLAT_", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS", "ENABLE_LOWLAT", "MANGOHUD"))}
    env.update(VK_ADD_IMPLICIT_LAYER_PATH=a.lowlat_dir, VK_LOADER_DEBUG="layer", NODEVICE_SELECT="1",
               XDG_CONFIG_HOME=os.path.join(os.environ.get("TMPDIR", "/tmp"), "lowlat-procs-no-config"))
    if a.case == "armwsi":
        armwsi(a, env)
    else:
        mangohud(a, env)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
