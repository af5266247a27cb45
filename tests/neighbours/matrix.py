#!/usr/bin/env python3
"""matrix.py — vkcube through lowlat and one other layer, in both orders, the order set three ways.

  matrix.py --partner NAME --lowlat-dir DIR --probe-lib LIB --doc-lib LIB
            [--armwsi-dir DIR --armwsi-missing WHY] [--frames N] [--fps F] [--modes M,...]

Partners: doc (tests/neighbours/doc_layer.c, the loader documentation's example layer), armwsi
(Arm's WSI layer), mangohud, vkbasalt, device-select, anti-lag (Mesa's), validation (Khronos).
For each order (partner above lowlat, lowlat above partner) and each way of setting it:
  instance-layers  both named in VK_INSTANCE_LAYERS (first is top), lowlat's implicit manifest
                   included: an implicit layer named there takes that place;
  implicit         both enabled by their own environment variable through implicit manifests, the
                   upper one's directory first in VK_ADD_IMPLICIT_LAYER_PATH (the loader stacks
                   implicit layers in the order it finds them, the first on top);
  filters          no enable variable at all: VK_LOADER_LAYERS_ENABLE forces both on and
                   VK_LOADER_LAYERS_DISABLE=~implicit~ turns every other implicit layer off; a
                   partner with an explicit manifest uses it when it is the lower one (force-enabled
                   explicit layers go below implicit ones), its implicit copy otherwise,
vkcube runs FRAMES frames capped by lowlat at FPS, and:
  - vkcube exits 0;
  - the loader's own `Insert instance layer` lines show exactly the chain meant: the pair in the
    order asked, under the probe (tests/bench/probe, as an implicit layer found first), nothing else;
  - the rate, from the probe's present-return timestamps above both (outside lowlat), is within 1%
    of FPS over the run after its first 10 presents. On this shared machine a wake-up the scheduler
    delays costs its time (the grid goes on from a release later than 1 ms), so a run up to 3%
    slow passes where the rate with its late intervals (over 1.1 frames) taken out is within 1%;
    faster than the cap, or slow with that time taken out, fails; no run is repeated;
  - lowlat paced the device (its own line says so at LOWLAT_VERBOSE=1);
  - doc: the layer saw every present the probe saw, and, above lowlat, lowlat answered what it asked
    (LOWLAT_DOC_LAYER_ASK): vkGetInstanceProcAddr(NULL, ...) for vkCreateInstance,
    vkGetInstanceProcAddr, vkCreateDevice and vkGetDeviceProcAddr, and NULL from
    vkGetDeviceProcAddr for instance-level names; validation: it logged nothing.
Manifests are written to a temporary directory: copies of the system's (library paths made
absolute) so their directory can be placed, and implicit ones with an enable variable for layers
that ship only an explicit one. Exit 77 (skipped) before anything runs when the partner, vkcube, an
X display or the probe is missing.
"""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vdisplay"))
import vdlog  # noqa: E402
import tempfile

SKIP = 77
WARMUP = 10
TOLERANCE = 0.01
SLOW_TOLERANCE = 0.03
PROBE = "VK_LAYER_LOWLAT_bench_probe"
LOWLAT = "VK_LAYER_LOWLAT_limiter"

# Each partner: layer name; enable variable of its implicit manifest (None: always on); environment
# it needs whatever the mode; its explicit manifest (a path, or "system" to find it).
PARTNERS = {
    "doc": dict(layer="VK_LAYER_LOWLAT_doc_example", enable=("ENABLE_LOWLAT_DOC_EXAMPLE", "1"),
                explicit="generated"),
    "armwsi": dict(layer="VK_LAYER_window_system_integration", enable=("ENABLE_LOWLAT_TEST_ARMWSI", "1"),
                   explicit="armwsi"),
    "validation": dict(layer="VK_LAYER_KHRONOS_validation", enable=("ENABLE_LOWLAT_TEST_VALIDATION", "1"),
                       explicit="system"),
    "mangohud": dict(layer="VK_LAYER_MANGOHUD_overlay_x86_64", enable=("MANGOHUD", "1"), implicit="system"),
    "vkbasalt": dict(layer="VK_LAYER_VKBASALT_post_processing", enable=("ENABLE_VKBASALT", "1"),
                     implicit="system"),
    "device-select": dict(layer="VK_LAYER_MESA_device_select", enable=None, implicit="system"),
    "anti-lag": dict(layer="VK_LAYER_MESA_anti_lag", enable=("ENABLE_LAYER_MESA_ANTI_LAG", "1"),
                     implicit="system"),
}

# Everything in the caller's environment that could put a layer in the chain or change one.
SCRUB = ["ENABLE_LOWLAT_LAYER", "DISABLE_LOWLAT_LAYER", "VK_INSTANCE_LAYERS", "VK_LAYER_PATH",
         "VK_ADD_LAYER_PATH", "VK_IMPLICIT_LAYER_PATH", "VK_ADD_IMPLICIT_LAYER_PATH",
         "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE", "VK_LOADER_LAYERS_ALLOW",
         "MANGOHUD", "MANGOHUD_CONFIG", "MANGOHUD_CONFIGFILE", "ENABLE_VKBASALT", "VKBASALT_CONFIG_FILE",
         "ENABLE_LAYER_MESA_ANTI_LAG", "NODEVICE_SELECT", "MESA_VK_DEVICE_SELECT", "DISABLE_WSI_LAYER",
         "LOWLAT_FPS", "LOWLAT_METHOD", "LOWLAT_CONFIG", "LOWLAT_ENABLED", "LOWLAT_STACK_LIMITERS",
         "LOWLAT_PRESENT_MODE", "LOWLAT_MAX_LATENCY_FRAMES", "LOWLAT_LOG", "LOWLAT_LOG_DIR",
         "DXVK_CONFIG", "VKD3D_FRAME_RATE"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, flush=True)


def system_manifest(layer, kind):
    """The system's manifest of LAYER in the loader's standard KIND (implicit/explicit) folders."""
    data_dirs = (os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share").split(":")
    for base in ["/etc"] + data_dirs:
        for path in sorted(glob.glob(os.path.join(base, "vulkan", f"{kind}_layer.d", "*.json"))):
            try:
                with open(path) as f:
                    doc = json.load(f)
            except (OSError, ValueError):
                continue
            if doc.get("layer", {}).get("name") == layer:
                return path, doc
    return None, None


def absolute_library(doc, manifest_path):
    """A copy of a manifest's JSON whose library_path still names the same file from elsewhere."""
    doc = json.loads(json.dumps(doc))
    lib = doc["layer"]["library_path"]
    if "/" in lib and not os.path.isabs(lib):
        doc["layer"]["library_path"] = os.path.normpath(os.path.join(os.path.dirname(manifest_path), lib))
    return doc


def write_manifest(directory, doc):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, doc["layer"]["name"] + ".json"), "w") as f:
        json.dump(doc, f, indent=2)
    return directory


def make_implicit(doc, enable):
    doc = json.loads(json.dumps(doc))
    doc["layer"]["enable_environment"] = {enable[0]: enable[1]}
    doc["layer"].setdefault("disable_environment", {"DISABLE_" + enable[0]: "1"})
    return doc


class Setup:
    """The manifests and folders of one partner, written once."""

    def __init__(self, args, partner, tmp):
        self.p = PARTNERS[partner]
        self.partner = partner
        self.tmp = tmp
        self.missing = None
        lowlat_manifests = glob.glob(os.path.join(args.lowlat_dir, "*.json"))
        if len(lowlat_manifests) != 1:
            self.missing = f"expected one lowlat manifest in {args.lowlat_dir}: build it first"
            return
        self.lowlat_dir = args.lowlat_dir
        self.probe_dir = write_manifest(os.path.join(tmp, "probe"), {
            "file_format_version": "1.2.0",
            "layer": {"name": PROBE, "type": "GLOBAL", "library_path": os.path.abspath(args.probe_lib),
                      "api_version": "1.4.0", "implementation_version": "1",
                      "description": "lowlat's present probe, implicit for the neighbour tests",
                      "functions": {"vkNegotiateLoaderLayerInterfaceVersion": "vkNegotiateLoaderLayerInterfaceVersion"},
                      "enable_environment": {"ENABLE_LOWLAT_PROBE": "1"},
                      "disable_environment": {"DISABLE_LOWLAT_PROBE": "1"}}})
        self.explicit_dir = None  # the explicit manifest's folder, for VK_ADD_LAYER_PATH
        self.implicit_dir = os.path.join(tmp, "partner-implicit")
        doc = None
        if partner == "doc":
            doc = {"file_format_version": "1.2.0",
                   "layer": {"name": self.p["layer"], "type": "GLOBAL",
                             "library_path": os.path.abspath(args.doc_lib), "api_version": "1.4.0",
                             "implementation_version": "1",
                             "description": "the loader documentation's example layer, literally",
                             "functions": {"vkNegotiateLoaderLayerInterfaceVersion":
                                           "vkNegotiateLoaderLayerInterfaceVersion"}}}
            self.explicit_dir = write_manifest(os.path.join(tmp, "partner-explicit"), doc)
        elif partner == "armwsi":
            if args.armwsi_missing:
                self.missing = args.armwsi_missing
                return
            path = os.path.join(args.armwsi_dir, "VkLayer_window_system_integration.json")
            if not os.path.exists(path):
                self.missing = f"no manifest of Arm's WSI layer at {path}"
                return
            with open(path) as f:
                doc = absolute_library(json.load(f), path)
            self.explicit_dir = args.armwsi_dir
        elif self.p.get("explicit") == "system":
            path, doc = system_manifest(self.p["layer"], "explicit")
            if not path:
                self.missing = f"{self.p['layer']} is not installed (no explicit manifest found)"
                return
            doc = absolute_library(doc, path)
            # The system folder is searched anyway; nothing to add.
            self.explicit_dir = ""
        if doc is not None:
            write_manifest(self.implicit_dir, make_implicit(doc, self.p["enable"]))
        else:
            path, doc = system_manifest(self.p["layer"], "implicit")
            if not path:
                self.missing = f"{self.p['layer']} is not installed (no implicit manifest found)"
                return
            write_manifest(self.implicit_dir, absolute_library(doc, path))
        self.env = self.partner_env()

    def partner_env(self):
        """What the partner needs to run as a player would have it, whatever the mode."""
        env = {}
        if self.partner == "mangohud":
            # The HUD drawn (the default), its own limiter off; no config file is read from the
            # test's empty config folder.
            env["MANGOHUD_CONFIG"] = "fps_limit=0"
        elif self.partner == "vkbasalt":
            conf = os.path.join(self.tmp, "vkBasalt.conf")
            with open(conf, "w") as f:
                f.write("effects = cas\ncasSharpness = 0.4\n")
            env["VKBASALT_CONFIG_FILE"] = conf
        elif self.partner == "validation":
            vlog = os.path.join(self.tmp, "validation.log")
            with open(os.path.join(self.tmp, "vk_layer_settings.txt"), "w") as f:
                f.write("khronos_validation.report_flags = error,warn\n"
                        "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n"
                        f"khronos_validation.log_filename = {vlog}\n")
            env.update(VK_KHRONOS_VALIDATION_REPORT_FLAGS="error,warn",
                       VK_KHRONOS_VALIDATION_VALIDATE_SYNC="true",
                       VK_KHRONOS_VALIDATION_DEBUG_ACTION="VK_DBG_LAYER_ACTION_LOG_MSG",
                       VK_KHRONOS_VALIDATION_LOG_FILENAME=vlog,
                       VK_LAYER_SETTINGS_PATH=self.tmp)
            self.vlog = vlog
        return env

    def case_env(self, mode, partner_on_top):
        """The environment of one case and the chain it must give, bottom to top."""
        layer = self.p["layer"]
        upper, lower = (layer, LOWLAT) if partner_on_top else (LOWLAT, layer)
        env = dict(self.env)
        env["ENABLE_LOWLAT_PROBE"] = "1"
        implicit = [self.probe_dir]
        explicit = []
        if mode == "instance-layers":
            env["VK_INSTANCE_LAYERS"] = f"{upper}:{lower}"
            implicit.append(self.lowlat_dir)
            if self.explicit_dir is not None:
                if self.explicit_dir:
                    explicit.append(self.explicit_dir)
            else:
                implicit.append(self.implicit_dir)
            if self.partner != "device-select":
                env["NODEVICE_SELECT"] = "1"
        elif mode == "implicit":
            env["ENABLE_LOWLAT_LAYER"] = "1"
            if self.p["enable"]:
                env[self.p["enable"][0]] = self.p["enable"][1]
            dirs = [self.implicit_dir, self.lowlat_dir]
            implicit += dirs if partner_on_top else dirs[::-1]
            if self.partner != "device-select":
                env["VK_LOADER_LAYERS_DISABLE"] = "VK_LAYER_MESA_device_select"
        elif mode == "filters":
            env["VK_LOADER_LAYERS_ENABLE"] = f"{PROBE},{layer},{LOWLAT}"
            env["VK_LOADER_LAYERS_DISABLE"] = "~implicit~"
            if not partner_on_top and self.explicit_dir is not None:
                implicit.append(self.lowlat_dir)
                if self.explicit_dir:
                    explicit.append(self.explicit_dir)
            else:
                dirs = [self.implicit_dir, self.lowlat_dir]
                implicit += dirs if partner_on_top else dirs[::-1]
        env["VK_ADD_IMPLICIT_LAYER_PATH"] = ":".join(implicit)
        if explicit:
            env["VK_ADD_LAYER_PATH"] = ":".join(explicit)
        return env, [lower, upper, PROBE]


def inserted_chain(output):
    return re.findall(r'Insert instance layer "([A-Za-z0-9_]+)"', output)


def read_probe(path):
    with open(path) as f:
        return [int(r["return_ns"]) for r in csv.DictReader(f) if int(r["result"]) >= 0]


def judge_rate(returns, fps):
    """The rate over the presents after the warm-up, and how its intervals were spread: p50, p99,
    max (ms), how many came late (over 1.1 frames: a wake-up or a frame the machine delayed), the
    time they lost against the cap, and the rate with that time taken out ("paced")."""
    t = returns[WARMUP:]
    if len(t) < 2:
        return None
    intervals = sorted(b - a for a, b in zip(t, t[1:]))
    late, lost, paced = vdlog.late_and_paced(t, fps, 1.1)
    return dict(rate=(len(t) - 1) / ((t[-1] - t[0]) / 1e9), paced=paced,
                p50=intervals[len(intervals) // 2] / 1e6, p99=intervals[int(len(intervals) * 0.99)] / 1e6,
                max=intervals[-1] / 1e6, late=late, lost=lost / 1e6)


def run_case(args, setup, mode, partner_on_top, base_env, tmp):
    env, chain = setup.case_env(mode, partner_on_top)
    order = " > ".join(reversed(chain))  # top first
    name = f"{setup.partner} {'above' if partner_on_top else 'below'} lowlat, {mode}"
    csv_path = os.path.join(tmp, f"probe-{setup.partner}-{mode}-{int(partner_on_top)}.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    if getattr(setup, "vlog", None) and os.path.exists(setup.vlog):
        os.remove(setup.vlog)
    full = dict(base_env)
    full.update(env)
    full.update(LOWLAT_FPS=str(args.fps), LOWLAT_VERBOSE="1", LOWLAT_PROBE_CSV=csv_path,
                VK_LOADER_DEBUG="layer", LOWLAT_DOC_LAYER_ASK="1")
    cmd = ["vkcube", "--wsi", "xcb", "--c", str(args.frames), "--width", "256", "--height", "256"]
    try:
        p = subprocess.run(cmd, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60 + args.frames / args.fps * 3)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc = "timeout"
    with open(os.path.join(tmp, f"{setup.partner}-{mode}-{int(partner_on_top)}.log"), "w") as f:
        f.write(out)
    settings = " ".join(f"{k}={v}" for k, v in sorted(env.items()) if k.startswith(("VK_", "ENABLE_", "MANGOHUD", "NODEVICE")))
    got = inserted_chain(out)
    if rc != 0:
        tail = "\n".join(l for l in out.splitlines() if not l.startswith("[Vulkan Loader]"))[-2500:]
        fail(f"{name}: vkcube exited {rc}\n  settings: {settings}\n  chain: {got}\n{tail}")
        return None
    if got != chain:
        fail(f"{name}: the loader inserted {got} (bottom to top), expected {chain}\n  settings: {settings}")
        return None
    if "presents are paced by lowlat" not in out:
        fail(f"{name}: lowlat did not pace the device (no 'presents are paced by lowlat' line)")
    if not os.path.exists(csv_path):
        fail(f"{name}: the probe wrote no CSV: it was not in the device's chain")
        return None
    returns = read_probe(csv_path)
    if len(returns) != args.frames:
        fail(f"{name}: the probe saw {len(returns)} successful presents, vkcube makes {args.frames}")
    if setup.partner == "doc" and partner_on_top:
        # What lowlat answered the questions published layers ask (LOWLAT_DOC_LAYER_ASK).
        asked = dict(re.findall(r"^doc-layer: ask (.*\)) = (found|NULL)$", out, re.M))
        wrong = {q: a for q, a in asked.items() if a != ("NULL" if "vkGetDeviceProcAddr(device" in q else "found")}
        if len(asked) != 10 or wrong:
            fail(f"{name}: lowlat answered {wrong or asked} (each vkGetInstanceProcAddr(NULL, ...) must be "
                 "found, each instance-level name asked of vkGetDeviceProcAddr NULL)")
    if setup.partner == "doc":
        m = re.search(r"^doc-layer: (\d+) presents$", out, re.M)
        if not m or int(m.group(1)) != len(returns):
            fail(f"{name}: the documentation's layer saw {m.group(1) if m else 'no'} presents, the probe {len(returns)}")
    if setup.partner == "validation":
        if not os.path.exists(setup.vlog):
            fail(f"{name}: the validation layer wrote no log, so it checked nothing")
        elif os.path.getsize(setup.vlog):
            with open(setup.vlog) as f:
                fail(f"{name}: validation reported:\n{f.read()[:3000]}")
    j = judge_rate(returns, args.fps)
    if not j:
        fail(f"{name}: too few presents to judge a rate")
        return None
    err = j["rate"] / args.fps - 1
    paced_err = j["paced"] / args.fps - 1
    line = (f"{name}: {order}; {j['rate']:.3f} fps ({err * 100:+.2f}%); intervals p50 {j['p50']:.3f} ms, "
            f"p99 {j['p99']:.2f} ms, max {j['max']:.1f} ms, {j['late']} late losing {j['lost']:.1f} ms "
            f"(without them {paced_err * 100:+.2f}%)")
    # Faster than the cap, or slow even with the late intervals (a wake-up or a frame the machine
    # delayed) taken out, is the pacer's own doing; the late intervals may cost SLOW_TOLERANCE more.
    if err > TOLERANCE or paced_err < -TOLERANCE or err < -SLOW_TOLERANCE:
        fail(f"{line}: off the cap by more than {TOLERANCE * 100:.0f}% (or {SLOW_TOLERANCE * 100:.0f}% slow "
             f"with late intervals; load {os.getloadavg()[0]:.2f})")
        return j
    print(f"ok   {line}", flush=True)
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--partner", required=True, choices=PARTNERS)
    ap.add_argument("--lowlat-dir", required=True)
    ap.add_argument("--probe-lib", required=True)
    ap.add_argument("--doc-lib", required=True)
    ap.add_argument("--armwsi-dir", default="")
    ap.add_argument("--armwsi-missing", default="")
    ap.add_argument("--frames", type=int, default=180)
    ap.add_argument("--fps", type=float, default=60)
    ap.add_argument("--modes", default="instance-layers,implicit,filters")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (logs, manifests, probe CSVs)")
    args = ap.parse_args()

    if not shutil.which("vkcube") or not os.environ.get("DISPLAY"):
        print("SKIP: needs vkcube and an X display (run through tests/run)")
        return SKIP
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f"neighbours-{args.partner}-", dir=args.keep)
    try:
        setup = Setup(args, args.partner, tmp)
        if setup.missing:
            print(f"SKIP: {setup.missing}")
            return SKIP
        base_env = {k: v for k, v in os.environ.items() if k not in SCRUB}
        # No config file of the machine's may change a layer: lowlat's, MangoHud's, vkBasalt's.
        base_env["XDG_CONFIG_HOME"] = os.path.join(tmp, "config")
        base_env["HOME"] = tmp
        os.makedirs(base_env["XDG_CONFIG_HOME"], exist_ok=True)
        # Every case places layers through VK_ADD_IMPLICIT_LAYER_PATH, which older loaders ignore.
        probe = subprocess.run(["vkcube", "--wsi", "xcb", "--c", "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60,
                               env=dict(base_env, VK_ADD_IMPLICIT_LAYER_PATH=setup.probe_dir,
                                        ENABLE_LOWLAT_PROBE="1", VK_LOADER_DEBUG="layer"))
        if PROBE not in inserted_chain(probe.stdout):
            print("SKIP: this Vulkan loader ignores VK_ADD_IMPLICIT_LAYER_PATH (loaders before 1.3.2xx do), "
                  "which every case uses to place the layers")
            return SKIP
        for mode in args.modes.split(","):
            for on_top in (True, False):
                run_case(args, setup, mode, on_top, base_env, tmp)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
