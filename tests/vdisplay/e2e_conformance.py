#!/usr/bin/env python3
"""e2e_conformance.py — the present-timing behaviour of a display profile, or of Arm's WSI layer,
measured by vd_conformance (no lowlat) and judged against what the profile models and what the spec
requires.

  e2e_conformance.py --probe PATH --manifest-dir DIR --profile NAME [--hz 120]
  e2e_conformance.py --probe PATH --armwsi-dir DIR [--armwsi-missing WHY] [--refresh-ns N]

On the virtual display (validation above it, which must stay silent) every number is checked
against the truth log (CLOCK_MONOTONIC): stage times, converted with the probe's own calibrations,
within a stated bound of what the display did; the drift of each stage's clock; targets latched on
the refresh the spec (and the profile's driver) gives; refresh properties and their counter; partial
results; FIFO_LATEST_READY; a failed present's results slot. EXPECT below says, per profile, what it
models; tests/vdisplay/README.md says where each behaviour was read.

Above Arm's WSI layer (no truth log) the same probe runs and what the spec requires is checked: a
stage-local domain that can be calibrated, calibrations taken inside the call, stage times not
before the present, targets not latched early; what differs from the spec profile on choices the
spec leaves open (stage times out of stage order among them) is printed as `differs from spec
profile:` lines, and what the spec says otherwise as `disagrees with the spec:` lines.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vdlog  # noqa: E402

SKIP = 77
QOE, DEQ, OUT, VIS = 1, 2, 4, 8
STAGE_BITS = {"QUEUE_OPERATIONS_END": QOE, "REQUEST_DEQUEUED": DEQ, "IMAGE_FIRST_PIXEL_OUT": OUT,
              "IMAGE_FIRST_PIXEL_VISIBLE": VIS}
ALL_MODES = {"IMMEDIATE", "MAILBOX", "FIFO", "FIFO_RELAXED", "FIFO_LATEST_READY"}
VK_NOT_READY, VK_OUT_OF_DATE = 1, -1000001004

# What each profile models (vd_profile.c). refresh_before / refresh_after: (VkResult, duration,
# interval, counter); "P" is the nominal period. drift: ppm per stage clock; monotonic: stages whose
# clock is CLOCK_MONOTONIC itself. bound_ns: how far a calibrated stage time may be from the truth
# log (the calibrations' ns rounding, and X11's whole-µs UST with its +-8 µs noise).
EXPECT = {
    "spec": dict(domains=[("PRESENT_STAGE_LOCAL", 0x5d1)], stages=QOE | DEQ | OUT | VIS, absolute=1, relative=1,
                 partial=True, latest_ready=True, modes=ALL_MODES, leak=False,
                 refresh_before=(VK_NOT_READY, 0, 0, None), refresh_after=(0, "P", "P", 1),
                 drift={QOE: 40, DEQ: -25, OUT: 60, VIS: -15}, monotonic=set(), bound_ns=2000, early_ns=0),
    "mesa-x11": dict(domains=[("PRESENT_STAGE_LOCAL", 0)], stages=QOE | OUT, absolute=1, relative=1,
                     partial=False, latest_ready=False, modes=ALL_MODES - {"FIFO_LATEST_READY"}, leak=True,
                     refresh_before=(0, "P", 0, 1), refresh_after=(0, "~P", "~P", None),
                     drift={QOE: 3, OUT: 0}, monotonic={OUT}, bound_ns=11000, early_ns=0, counter_moves=True),
    "mesa-wayland": dict(domains=[("PRESENT_STAGE_LOCAL", 0)], stages=QOE | OUT, absolute=1, relative=0,
                         partial=False, latest_ready=False, modes={"MAILBOX", "FIFO", "IMMEDIATE"}, leak=True,
                         refresh_before=(0, 0, 0, 0), refresh_after=(0, "P", 0, 1),
                         drift={QOE: 3, OUT: 0}, monotonic={OUT}, bound_ns=2000, early_ns=0),
    "mesa-wayland-basic": dict(domains=[("PRESENT_STAGE_LOCAL", 0)], stages=QOE | OUT, absolute=0, relative=0,
                               partial=False, latest_ready=False, modes={"MAILBOX", "FIFO", "IMMEDIATE"},
                               leak=True, refresh_before=(0, 0, 0, 0), refresh_after=(0, "P", 0, 1),
                               drift={QOE: 3, OUT: 0}, monotonic={OUT}, bound_ns=2000, early_ns=0),
    "xwayland": dict(domains=[("PRESENT_STAGE_LOCAL", 0)], stages=QOE | DEQ, absolute=0, relative=1,
                     partial=False, latest_ready=False, modes=ALL_MODES - {"FIFO_LATEST_READY"}, leak=True,
                     refresh_before=(0, "P", 0, 1), refresh_after=(0, "P", 0, 1),
                     drift={QOE: 3, DEQ: 0}, monotonic={DEQ}, bound_ns=11000, early_ns="xwayland"),
    "nvidia": dict(domains=[("PRESENT_STAGE_LOCAL", 0), ("SWAPCHAIN_LOCAL", 1)], stages=QOE | DEQ | OUT,
                   absolute=1, relative=0, partial=False, latest_ready=True,
                   modes={"MAILBOX", "FIFO_LATEST_READY", "FIFO", "IMMEDIATE"}, leak=False,
                   refresh_before=(0, "P", "P", 1), refresh_after=(0, "P", "P", 1),
                   drift={QOE: 10, DEQ: 10, OUT: 10}, monotonic=set(), bound_ns=2000, early_ns=0),
    "monotonic": dict(domains=[("CLOCK_MONOTONIC", 0)], stages=QOE | DEQ | OUT | VIS, absolute=1, relative=1,
                      partial=True, latest_ready=True, modes=ALL_MODES, leak=False,
                      refresh_before=(0, "P", "P", 1), refresh_after=(0, "P", "P", 1),
                      drift={QOE: 0, DEQ: 0, OUT: 0, VIS: 0}, monotonic={QOE, DEQ, OUT, VIS}, bound_ns=0,
                      early_ns=0),
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run_probe(probe, scenario, env, frames="240"):
    p = subprocess.run([probe, scenario, frames], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=180)
    print("\n".join(ln for ln in p.stdout.splitlines() if not ln.startswith("conf: result "))[-6000:])
    if p.returncode != 0:
        fail(f"vd_conformance {scenario} exited with {p.returncode}")
    return p.stdout


def kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


class Probe:
    """The conformance scenario's output, parsed."""

    def __init__(self, out):
        lines = out.splitlines()
        self.lines = lines
        first = lambda prefix: next((ln for ln in lines if ln.startswith(prefix)), "")  # noqa: E731
        self.ext = kv(first("conf: extension "))
        self.modes = set(first("conf: modes").split()[2:])
        self.surface = {k: int(v) for k, v in kv(first("conf: surface ")).items()}
        self.calibrateable = set(first("conf: calibrateable").split()[2:])
        dom = first("conf: domains ")
        self.domains = [(d, int(i)) for d, i in re.findall(r" (\w+):(\d+)", dom)]
        self.props = {}
        for ln in lines:
            m = re.match(r"conf: props (\S+) result=(-?\d+) duration=(\d+) interval=(\d+) counter=(\d+)", ln)
            if m and m.group(1) not in self.props:
                self.props[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
        self.calibrations = [kv(ln) | {"when": ln.split()[2]} for ln in lines if ln.startswith("conf: calibration ")]
        self.drift = {STAGE_BITS[m.group(1)]: float(m.group(2))
                      for m in (re.match(r"conf: drift stage=(\w+) ppm=(-?[\d.]+)", ln) for ln in lines) if m}
        summary = first("conf: presented ")
        m = re.search(r"(\d+) complete results, (\d+) partial reports, (\d+) timing-properties counter", summary)
        self.complete, self.partial, self.counter_changes = (int(x) for x in m.groups()) if m else (0, 0, 0)
        self.results = {}
        for ln in lines:
            if not ln.startswith("conf: result "):
                continue
            head = kv(ln)
            stages = {STAGE_BITS[n]: (int(raw), int(two), int(one))
                      for n, raw, two, one in re.findall(r" (\w+)=(-?\d+):(-?\d+):(-?\d+)", ln)}
            self.results[int(head["id"])] = dict(domain=head["domain"], presented=int(head["presented"]),
                                                 stages=stages)
        self.targets = [kv(ln) for ln in lines if ln.startswith("conf: target kind=")]
        # Each change of vkGetPastPresentationTimingEXT's counters, with the timing properties'
        # own counter read right after it.
        self.counters = []
        for a, b in zip(lines, lines[1:]):
            m = re.match(r"conf: past-timing counter=(\d+) domains_counter=(\d+)", a)
            n = re.match(r"conf: props on-counter result=-?\d+ .* counter=(\d+)", b)
            if m and n:
                self.counters.append((int(m.group(1)), int(m.group(2)), int(n.group(1))))
        self.step = int(kv(first("conf: target absolute offered")).get("step", "0") or 0)


def period_of(hz):
    return round(10**12 / round(float(hz) * 1000))


def check_profile(name, probe, rows, hz):
    exp = EXPECT[name]
    period = period_of(hz)

    def value(v, actual):
        if v is None:
            return True
        if v == "P":
            return actual == period
        if v == "~P":
            return abs(actual - period) <= 5000
        return actual == v

    # FIFO_LATEST_READY and the modes.
    has_latest = probe.ext.get("fifo_latest_ready_khr") == "1" or probe.ext.get("fifo_latest_ready_ext") == "1"
    if has_latest != exp["latest_ready"] or ("FIFO_LATEST_READY" in probe.modes) != exp["latest_ready"]:
        fail(f"FIFO_LATEST_READY: extension {has_latest}, listed {'FIFO_LATEST_READY' in probe.modes}; "
             f"the profile models {exp['latest_ready']}")
    if probe.modes != exp["modes"]:
        fail(f"present modes {sorted(probe.modes)}, the profile models {sorted(exp['modes'])}")
    # Time domains and ids; the spec's one requirement about them.
    if probe.domains != exp["domains"]:
        fail(f"time domains {probe.domains}, the profile models {exp['domains']}")
    stage_local = any(d == "PRESENT_STAGE_LOCAL" for d, _ in probe.domains)
    print(f"at least one PRESENT_STAGE_LOCAL domain (the spec's requirement): {stage_local}"
          + ("" if stage_local else " - this profile is not conformant, kept for comparison"))
    for d, _ in probe.domains:
        if d != "CLOCK_MONOTONIC" and d not in probe.calibrateable:
            fail(f"{d} is not among the calibrateable time domains, so no app may calibrate it "
                 "(VUID-VkCalibratedTimestampInfoKHR-timeDomain-02354)")
    # Surface capabilities: stages and target kinds.
    caps = probe.surface
    if caps.get("presentStageQueries") != exp["stages"] or caps.get("presentAtAbsoluteTimeSupported") != \
            exp["absolute"] or caps.get("presentAtRelativeTimeSupported") != exp["relative"]:
        fail(f"surface capabilities {caps}, the profile models stages {exp['stages']} absolute {exp['absolute']} "
             f"relative {exp['relative']}")
    # Refresh reporting, before the first present and after.
    for when, want in (("before-first-present", exp["refresh_before"]), ("after-presents", exp["refresh_after"])):
        got = probe.props.get(when)
        if not got or not all(value(w, g) for w, g in zip(want, got)):
            fail(f"timing properties {when}: (result, duration, interval, counter) = {got}, "
                 f"the profile models {want} (P = {period})")
        else:
            print(f"timing properties {when}: {got} as modelled")
    if exp.get("counter_moves"):
        if probe.counter_changes < 1:
            fail("the timing-properties counter never moved: Mesa X11's estimate should move it")
    elif probe.counter_changes > 1:
        fail(f"the timing-properties counter moved {probe.counter_changes} times; the profile models at most once")
    print(f"timing-properties counter changes seen in vkGetPastPresentationTimingEXT: {probe.counter_changes}")
    # "timingPropertiesCounter is set to the current internal counter of the swapchain's timing
    # properties": the one vkGetSwapchainTimingPropertiesEXT gives; timeDomainsCounter likewise.
    for past, domains, props in probe.counters:
        if past != props or domains != 1:
            fail(f"vkGetPastPresentationTimingEXT's counters (timing {past}, domains {domains}) differ from the "
                 f"swapchain's (timing {props}, domains 1)")
    # Partial results.
    if (probe.partial > 0) != exp["partial"]:
        fail(f"{probe.partial} partial reports; the profile models partial results: {exp['partial']}")
    # Calibration: the CLOCK_MONOTONIC half inside the call, the drift each stage's clock has, and
    # stages that are CLOCK_MONOTONIC itself read the same.
    for c in probe.calibrations:
        if c.get("in_call") != "1":
            fail(f"calibration {c} read CLOCK_MONOTONIC outside the call")
        if STAGE_BITS.get(c.get("stage")) in exp["monotonic"] and c.get("offset") != "0":
            fail(f"stage {c['stage']} is CLOCK_MONOTONIC in this profile but calibrates {c['offset']} ns off")
    for bit, ppm in exp["drift"].items():
        got = probe.drift.get(bit)
        if got is None or abs(got - ppm) > 1.0:
            fail(f"stage {bit} drifts {got} ppm, the profile models {ppm} ppm")
    print("stage clock drift (ppm):", {b: round(v, 2) for b, v in sorted(probe.drift.items())})
    # Stage times against the truth log, through the probe's calibrations.
    shown = {r["present_id"]: r for r in rows if r["event"] == "shown"}
    worst_two = worst_one = 0
    checked = 0
    for pid, res in probe.results.items():
        truth = shown.get(pid)
        if not truth:
            continue
        for bit in (QOE, DEQ, OUT, VIS):
            if bit not in res["stages"]:
                fail(f"present {pid}: stage {bit} asked for and not reported")
                continue
            raw, two, one = res["stages"][bit]
            if not exp["stages"] & bit:
                if raw != 0:
                    fail(f"present {pid}: stage {bit}, which the profile does not report, reads {raw}, not 0")
                continue
            want = truth["ready_ns"] if bit == QOE else truth["time_ns"]
            worst_two = max(worst_two, abs(two - want))
            worst_one = max(worst_one, abs(one - want))
            checked += 1
    if not checked:
        fail("no stage time could be checked against the truth log")
    if worst_two > exp["bound_ns"]:
        fail(f"a calibrated stage time is {worst_two} ns from the truth log (bound {exp['bound_ns']} ns)")
    print(f"{checked} stage times within {worst_two} ns of the truth log with two calibrations "
          f"(bound {exp['bound_ns']} ns); {worst_one} ns with the first calibration alone")
    if any(exp["drift"].values()) and max(abs(v) for v in exp["drift"].values()) >= 10 and worst_one <= exp["bound_ns"]:
        fail("the stage clocks drift, yet one calibration converted as well as two: the drift is not visible")
    # Targets, on the refresh the spec and the profile's driver give.
    early = min(period // 4, 3000000) if exp["early_ns"] == "xwayland" else 0
    rate = rows[0]["rate_mhz"] if rows else round(float(hz) * 1000)
    kinds = {t["kind"] for t in probe.targets}
    if ("absolute" in kinds) != bool(exp["absolute"]) or ("relative" in kinds) != bool(exp["relative"]):
        fail(f"target kinds sent {sorted(kinds)}, the profile offers absolute {exp['absolute']} relative "
             f"{exp['relative']}")
    previous = None
    for t in probe.targets:
        pid = int(t["id"])
        r = shown.get(pid)
        prev = shown.get(pid - 1)
        if not r or not prev:
            fail(f"targeted present {pid} (or the one before) never shown")
            continue
        target = int(t["target_mono"]) if t["kind"] == "absolute" else prev["time_ns"] + int(t["target_time"])
        k = -(-((target - early) * rate) // 10**12)
        if r["ready_ns"] > vdlog.refresh_start_ns(rate, k):
            k = -(-(r["ready_ns"] * rate) // 10**12)
            print(f"targeted present {pid} was ready only at {r['ready_ns']}: its refresh is {k}")
        if r["refresh"] != k:
            fail(f"{t['kind']} target of present {pid} latched on refresh {r['refresh']}, expected {k}")
        else:
            print(f"{t['kind']} target of present {pid} latched on refresh {k}, as the spec and the profile say")
        previous = r
    del previous


def check_failed_present(name, out):
    exp = EXPECT[name]
    line = next((ln for ln in out.splitlines() if ln.startswith("conf: failed-present results=")), "")
    got = {k: int(v) for k, v in kv(line).items()}
    res = next((int(m.group(1)) for m in (re.match(r"conf: failed-present result=(-?\d+)", ln)
                                          for ln in out.splitlines()) if m), None)
    if res != VK_OUT_OF_DATE:
        fail(f"the third present returned {res}, not VK_ERROR_OUT_OF_DATE_KHR")
    if got.get("acquire_after") != VK_OUT_OF_DATE:
        fail(f"acquire after the failed present returned {got.get('acquire_after')}, not OUT_OF_DATE")
    leaked = got.get("shrink_to_0") == VK_NOT_READY
    if leaked != exp["leak"]:
        fail(f"after the failed present the results queue {'cannot' if leaked else 'can'} shrink to 0; the "
             f"profile models a slot that {'stays' if exp['leak'] else 'is freed'}")
    else:
        print(f"failed present: its results slot {'stays taken (never completes)' if leaked else 'is freed'}, "
              f"as modelled; {got.get('results')} results before it came back")


def display_env(args, tmp):
    env = dict(os.environ)
    for k in ("ENABLE_LOWLAT_LAYER", "LOWLAT_VDISPLAY_FAIL_PRESENT", "WSI_HEADLESS_REFRESH_NS"):
        env.pop(k, None)
    env.update({
        "DISABLE_LOWLAT_LAYER": "1",
        "VK_ADD_LAYER_PATH": args.manifest_dir,
        "VK_INSTANCE_LAYERS": "VK_LAYER_KHRONOS_validation:VK_LAYER_LOWLAT_vdisplay",
        "VK_KHRONOS_VALIDATION_DEBUG_ACTION": "VK_DBG_LAYER_ACTION_LOG_MSG",
        "VK_KHRONOS_VALIDATION_LOG_FILENAME": os.path.join(tmp, "validation.txt"),
        "LOWLAT_VDISPLAY_LOG": os.path.join(tmp, "truth.csv"),
        "LOWLAT_VDISPLAY_HZ": args.hz,
        "LOWLAT_VDISPLAY_PROFILE": args.profile,
    })
    return env


def run_display(args, tmp):
    env = display_env(args, tmp)
    out = run_probe(args.probe, "conformance", env, args.frames)
    rows = vdlog.read(env["LOWLAT_VDISPLAY_LOG"]) if os.path.exists(env["LOWLAT_VDISPLAY_LOG"]) else []
    vdlog.check_invariants(rows, fail)
    check_profile(args.profile, Probe(out), rows, args.hz)
    env["LOWLAT_VDISPLAY_FAIL_PRESENT"] = "3"
    env["LOWLAT_VDISPLAY_LOG"] = os.path.join(tmp, "truth-failed.csv")
    check_failed_present(args.profile, run_probe(args.probe, "failed-present", env))
    vlog = env["VK_KHRONOS_VALIDATION_LOG_FILENAME"]
    text = open(vlog).read() if os.path.exists(vlog) else ""
    if text.strip():
        fail("validation messages:\n" + text[:4000])
    else:
        print("validation: clean")


def run_armwsi(args, tmp):
    env = dict(os.environ)
    env.pop("ENABLE_LOWLAT_LAYER", None)
    env.pop("WSI_HEADLESS_REFRESH_NS", None)
    env.update({"DISABLE_LOWLAT_LAYER": "1", "VK_ADD_LAYER_PATH": args.armwsi_dir,
                "VK_INSTANCE_LAYERS": "VK_LAYER_window_system_integration"})
    if args.refresh_ns:
        env["WSI_HEADLESS_REFRESH_NS"] = str(args.refresh_ns)
    probe = Probe(run_probe(args.probe, "conformance", env, args.frames))
    spec = EXPECT["spec"]
    slack = 50000  # 50 µs: calibration and rounding
    # What the spec requires.
    if not any(d == "PRESENT_STAGE_LOCAL" for d, _ in probe.domains):
        fail(f"no PRESENT_STAGE_LOCAL time domain: {probe.domains}")
    for d, _ in probe.domains:
        if d != "CLOCK_MONOTONIC" and d not in probe.calibrateable:
            fail(f"{d} is not among the calibrateable time domains (VUID-...-timeDomain-02354)")
    for c in probe.calibrations:
        if c.get("in_call") != "1":
            fail(f"calibration {c} read CLOCK_MONOTONIC outside the call")
    if not probe.complete:
        fail("no complete timing result")
    order = [QOE, DEQ, OUT, VIS]
    disorder = []
    for pid, res in probe.results.items():
        times = [res["stages"][b][1] for b in order if b in res["stages"] and res["stages"][b][0]]
        if times and times[0] < res["presented"] - slack:
            fail(f"present {pid}: its first stage is {res['presented'] - times[0]} ns before vkQueuePresentKHR")
        if any(b < a - slack for a, b in zip(times, times[1:])):
            disorder.append((pid, res["presented"], times))
    # Stage order is not a rule the spec states (no VUID; it lists the stages as steps of one
    # process), so a result out of order is reported, not failed: Arm writes QUEUE_OPERATIONS_END
    # in a submission of its own after the present's waits, which its page-flip thread does not
    # wait for (present_timing.cpp queue_submit_queue_end_timing, swapchain_base.cpp
    # page_flip_thread), and on a surface without a refresh the pixel stages can come first.
    order_note = None
    if disorder:
        pid, presented, times = disorder[0]
        order_note = (f"{len(disorder)} of {len(probe.results)} results have stage times out of stage order; the "
                      f"first, present {pid}: stages {[t - presented for t in times]} ns after vkQueuePresentKHR "
                      "(the spec states no order; the profiles keep it)")
    for t in probe.targets:
        pixel, want = int(t["pixel_mono"]), int(t["target_mono"])
        if t["kind"] == "relative":
            want = int(t["previous_pixel_mono"]) + int(t["target_time"])
        if pixel < want - slack:
            fail(f"{t['kind']} target of present {t['id']} reported {(want - pixel) / 1e3:.1f} us early")
        else:
            print(f"{t['kind']} target of present {t['id']}: reported {(pixel - want) / 1e3:.1f} us after it")
    # Where it differs from the spec profile: on what the spec leaves open (`differs from spec
    # profile`), and where the spec says otherwise (`disagrees with the spec`).
    open_choices, against_spec = [], []
    if order_note:
        open_choices.append(order_note)
    stages = probe.surface.get("presentStageQueries")
    if stages != spec["stages"]:
        open_choices.append(f"stages {stages}, spec profile {spec['stages']}")
    if (probe.partial > 0) != spec["partial"]:
        open_choices.append(f"partial results seen: {probe.partial > 0}")
    before = probe.props.get("before-first-present")
    if before and before[0] != VK_NOT_READY:
        open_choices.append(f"timing properties before the first present: {before} (spec profile: VK_NOT_READY; "
                            "the spec allows either)")
    after = probe.props.get("after-presents")
    print(f"refresh after presents: {after}")
    if args.refresh_ns and after and after[1] != args.refresh_ns:
        fail(f"refreshDuration {after[1]} with WSI_HEADLESS_REFRESH_NS={args.refresh_ns}")
    if not args.refresh_ns and after and after[1] == 1:
        against_spec.append("refreshDuration 1 ns with no refresh cycle (VkSwapchainTimingPropertiesEXT: \"zero or "
                            "an indication of the duration of a refresh cycle\"; zero says it cannot tell)")
    if ("FIFO_LATEST_READY" in probe.modes) != spec["latest_ready"]:
        open_choices.append(f"FIFO_LATEST_READY listed: {'FIFO_LATEST_READY' in probe.modes}")
    for past, domains, props in probe.counters[:1]:
        if past != props or domains != 1:
            against_spec.append(f"VkPastPresentationTimingPropertiesEXT counters: timing {past}, domains {domains} "
                                f"(the swapchain's: timing {props}, domains 1; {2**64 - 1} is what the probe put "
                                "there: left unwritten)")
    domains_reported = {r["domain"] for r in probe.results.values()}
    if probe.domains and domains_reported != {f"PRESENT_STAGE_LOCAL:{probe.domains[0][1]}"}:
        against_spec.append(f"VkPastPresentationTimingEXT::timeDomain reported as {sorted(domains_reported)} "
                            "(UNWRITTEN: left as the probe set it)")
    print(f"drift (ppm): {probe.drift}; domains {probe.domains}; modes {sorted(probe.modes)}; "
          f"partial reports {probe.partial}; counter changes {probe.counter_changes}")
    for n in open_choices:
        print("differs from spec profile:", n)
    for n in against_spec:
        print("disagrees with the spec:", n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--manifest-dir")
    ap.add_argument("--profile")
    ap.add_argument("--hz", default="120")
    ap.add_argument("--frames", default="240")
    ap.add_argument("--armwsi-dir")
    ap.add_argument("--armwsi-missing", default="")
    ap.add_argument("--refresh-ns", type=int, default=0)
    args = ap.parse_args()
    if args.armwsi_dir is not None and args.armwsi_missing:
        print(f"SKIP: {args.armwsi_missing}")
        return SKIP
    if args.armwsi_dir is None and args.profile not in EXPECT:
        print(f"unknown profile {args.profile}; known: {', '.join(EXPECT)}")
        return 2
    tmp = tempfile.mkdtemp(prefix="vdconf-")
    if args.armwsi_dir is not None:
        run_armwsi(args, tmp)
    else:
        run_display(args, tmp)
    return vdlog.finish(failures, tmp)


if __name__ == "__main__":
    sys.exit(main())
