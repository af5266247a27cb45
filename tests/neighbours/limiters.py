#!/usr/bin/env python3
"""limiters.py — MangoHud's fps_limit and lowlat's cap never stack by surprise: lowlat says which rules.

  limiters.py --lowlat-dir DIR --probe-lib LIB

vkcube (256x256) runs with MangoHud enabled (MANGOHUD=1) below lowlat, the probe above both, and
MangoHud's limit set each way MangoHud reads it. Each case states lowlat's one line (or that there is
none), and the rate the probe measures (the presents after the first 10, from 10% under to 2% over:
which limiter is in charge, 30 fps or 60, not how precisely; the matrix measures precision):
  - MANGOHUD_CONFIG=fps_limit=30, MANGOHUD_FPS_LIMIT, MANGOHUD_CONFIGFILE, and the per-program file
    $XDG_CONFIG_HOME/MangoHud/vkcube.conf: MangoHud's 30 fps rules and lowlat, capping at 60,
    says it adds no cap;
  - MangoHud.conf with a limit beside a vkcube.conf without one: MangoHud reads only the most
    specific file, so there is no limit of its own, lowlat caps at 60 and says nothing;
  - MANGOHUD_CONFIG without read_cfg beside a MangoHud.conf with a limit: MangoHud ignores the file;
  - stack_limiters true with lowlat at 20: both apply, lowlat says so, 20 fps;
  - a limit in MANGOHUD_CONFIG but MangoHud not enabled: lowlat caps at 60 and says nothing.
Exit 77 before anything runs without vkcube, an X display or MangoHud.
"""
import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

PROBE = "VK_LAYER_LOWLAT_bench_probe"
WARMUP = 10
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lowlat-dir", required=True)
    ap.add_argument("--probe-lib", required=True)
    a = ap.parse_args()
    if not shutil.which("vkcube") or not os.environ.get("DISPLAY"):
        print("SKIP: needs vkcube and an X display (run through tests/run)")
        return 77
    if not glob.glob("/usr/share/vulkan/implicit_layer.d/MangoHud*.json"):
        print("SKIP: MangoHud is not installed (no manifest in /usr/share/vulkan/implicit_layer.d)")
        return 77

    tmp = tempfile.mkdtemp(prefix="limiters-")
    try:
        probe_dir = os.path.join(tmp, "probe")
        os.makedirs(probe_dir)
        with open(os.path.join(probe_dir, "probe.json"), "w") as f:
            f.write('{"file_format_version": "1.2.0", "layer": {"name": "%s", "type": "GLOBAL", '
                    '"library_path": "%s", "api_version": "1.4.0", "implementation_version": "1", '
                    '"description": "probe", "functions": {"vkNegotiateLoaderLayerInterfaceVersion": '
                    '"vkNegotiateLoaderLayerInterfaceVersion"}, "enable_environment": {"ENABLE_LOWLAT_PROBE": "1"}, '
                    '"disable_environment": {"DISABLE_LOWLAT_PROBE": "1"}}}' % (PROBE, os.path.abspath(a.probe_lib)))
        config = os.path.join(tmp, "config")
        mh_dir = os.path.join(config, "MangoHud")
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("LOWLAT_", "MANGOHUD", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS",
                                     "ENABLE_", "DISABLE_", "DXVK_", "VKD3D_"))}
        base.update(VK_ADD_IMPLICIT_LAYER_PATH=f"{probe_dir}:{a.lowlat_dir}", ENABLE_LOWLAT_PROBE="1",
                    ENABLE_LOWLAT_LAYER="1", LOWLAT_FPS="60", MANGOHUD="1", NODEVICE_SELECT="1",
                    XDG_CONFIG_HOME=config, HOME=tmp)

        def files(contents):
            shutil.rmtree(mh_dir, ignore_errors=True)
            os.makedirs(mh_dir)
            for name, text in contents.items():
                with open(os.path.join(mh_dir, name), "w") as f:
                    f.write(text)

        def case(name, env, said, rate, frames=90):
            full = dict(base)
            full.update(env)
            full = {k: v for k, v in full.items() if v is not None}
            probe_csv = os.path.join(tmp, "probe.csv")
            if os.path.exists(probe_csv):
                os.remove(probe_csv)
            full["LOWLAT_PROBE_CSV"] = probe_csv
            p = subprocess.run(["vkcube", "--wsi", "xcb", "--c", str(frames), "--width", "256", "--height", "256"],
                               env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
            lines = [l for l in p.stdout.splitlines() if "limits the frame rate" in l or "limits its own" in l]
            t = []
            if os.path.exists(probe_csv):
                with open(probe_csv) as f:
                    t = [int(r["return_ns"]) for r in csv.DictReader(f)][WARMUP:]
            got = (len(t) - 1) / ((t[-1] - t[0]) / 1e9) if len(t) > 2 else 0
            print(f"{name}: {got:.2f} fps (expected {rate}); lowlat said: {lines or 'nothing'}", flush=True)
            if p.returncode != 0:
                fail(f"{name}: vkcube exited {p.returncode}:\n{p.stdout[-1500:]}")
            elif said is None and lines:
                fail(f"{name}: lowlat said {lines}, expected nothing")
            elif said is not None and (len(lines) != 1 or not all(w in lines[0] for w in said)):
                fail(f"{name}: lowlat said {lines}, expected one line with {said!r}")
            if not t:
                fail(f"{name}: the probe recorded nothing")
            elif got > rate * 1.02 or got < rate * 0.9:
                fail(f"{name}: {got:.2f} fps, not the {rate} fps of the limiter that should rule")

        # What lowlat says is matched by its values: where MangoHud's limit came from, whether
        # lowlat's cap stacks (stack_limiters), and the cap.
        no_cap = "(stack_limiters: false)"
        files({})
        case("MANGOHUD_CONFIG", {"MANGOHUD_CONFIG": "no_display,fps_limit=30"},
             ("(fps_limit=30 in MANGOHUD_CONFIG); ", no_cap), 30)
        case("MANGOHUD_FPS_LIMIT", {"MANGOHUD_CONFIG": "no_display", "MANGOHUD_FPS_LIMIT": "30"},
             ("(MANGOHUD_FPS_LIMIT=30); ", no_cap), 30)
        own = os.path.join(tmp, "own.conf")
        with open(own, "w") as f:
            f.write("no_display\nfps_limit = 30\n")
        case("MANGOHUD_CONFIGFILE", {"MANGOHUD_CONFIGFILE": own},
             (f"(fps_limit=30 in {own}); ", no_cap), 30)
        files({"vkcube.conf": "no_display\nfps_limit=30\n"})
        case("vkcube.conf", {},
             (f"(fps_limit=30 in {mh_dir}/vkcube.conf); ", no_cap), 30)
        files({"MangoHud.conf": "fps_limit=30\n", "vkcube.conf": "no_display\n"})
        case("MangoHud.conf beside a vkcube.conf without a limit", {}, None, 60)
        files({"MangoHud.conf": "no_display\nfps_limit=30\n"})
        case("MANGOHUD_CONFIG without read_cfg beside MangoHud.conf", {"MANGOHUD_CONFIG": "no_display"}, None, 60)
        files({})
        case("stack_limiters", {"MANGOHUD_CONFIG": "no_display,fps_limit=30", "LOWLAT_FPS": "20",
                                "LOWLAT_STACK_LIMITERS": "true"},
             ("(fps_limit=30 in MANGOHUD_CONFIG); ", "20 fps", "(stack_limiters: true)"), 20, frames=60)
        case("MangoHud not enabled", {"MANGOHUD": None, "MANGOHUD_CONFIG": "fps_limit=30"}, None, 60)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
