#!/usr/bin/env python3
"""present_timing.py — an app using VK_EXT_present_timing that Arm's WSI layer offers below lowlat.

  present_timing.py --timing-procs APP --armwsi-dir DIR --lowlat-dir DIR [--missing WHY]

tests/neighbours/timing_procs enables the extension (listed by the layer when asked by its name),
fetches its commands with vkGetDeviceProcAddr and uses them on a headless surface: 30 FIFO
presents, each waited for with vkWaitForPresent2KHR, past timings read back. It runs
  - without lowlat (the control: Arm's layer alone must do all of it),
  - with lowlat above Arm's layer, capping at 60 fps,
  - with lowlat above it and `enabled: false` (a pass-through must hide nothing either),
and each run must exit 0 with the loader's `Insert instance layer` lines showing the chain meant.
Exit 77 before anything runs when Arm's WSI layer could not be built (WHY says why).
"""
import argparse
import os
import re
import subprocess
import sys

ARMWSI = "VK_LAYER_window_system_integration"
LOWLAT = "VK_LAYER_LOWLAT_limiter"

failures = []


def run(app, env, name, chain):
    p = subprocess.run([app, "--layer", ARMWSI], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    got = re.findall(r'Insert instance layer "([A-Za-z0-9_]+)"', p.stdout)
    shown = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("[Vulkan Loader]"))
    print(f"--- {name}: exit {p.returncode}, chain (bottom to top) {got}\n{shown[-1500:]}")
    if got != chain:
        failures.append(f"{name}: the loader inserted {got}, expected {chain}")
    elif p.returncode != 0:
        failures.append(f"{name}: timing_procs exited {p.returncode}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timing-procs", required=True)
    ap.add_argument("--armwsi-dir", required=True)
    ap.add_argument("--lowlat-dir", required=True)
    ap.add_argument("--missing", default="")
    a = ap.parse_args()
    if a.missing:
        print(f"SKIP: {a.missing}")
        return 77
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LOWLAT_", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS", "ENABLE_LOWLAT"))}
    env.update(VK_ADD_LAYER_PATH=a.armwsi_dir, VK_INSTANCE_LAYERS=ARMWSI, VK_ADD_IMPLICIT_LAYER_PATH=a.lowlat_dir,
               VK_LOADER_DEBUG="layer", NODEVICE_SELECT="1", WSI_HEADLESS_REFRESH_NS="16666666",
               XDG_CONFIG_HOME=os.path.join(os.environ.get("TMPDIR", "/tmp"), "lowlat-present-timing-no-config"))
    run(a.timing_procs, env, "Arm's WSI layer alone", [ARMWSI])
    run(a.timing_procs, dict(env, ENABLE_LOWLAT_LAYER="1", LOWLAT_FPS="60"), "lowlat above it, capping at 60",
        [ARMWSI, LOWLAT])
    run(a.timing_procs, dict(env, ENABLE_LOWLAT_LAYER="1", LOWLAT_ENABLED="false"),
        "lowlat above it, enabled: false", [ARMWSI, LOWLAT])
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
