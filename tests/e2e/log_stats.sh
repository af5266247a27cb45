#!/usr/bin/env bash
# vkcube through lowlat with the present log on (LOWLAT_LOG=1, LOWLAT_LOG_DIR), validation below;
# then tools/lowlat-stats on the file must agree with what the test, lowlat's own summary line and
# the bench probe above lowlat (tests/bench/probe: the app's present calls, measured from outside)
# know: one log, one row per present, nothing dropped, a clean close, and the same frame rate.
#
#   log_stats.sh [FPS]    with FPS, run capped (LOWLAT_FPS=FPS): the log must show the cap as its
#                         target, and the probe a mean no faster than the cap. (Whether the cap is
#                         *held* is vkcube-60fps-*'s question; here a busy machine's stalls
#                         would only make the test flaky.)
#
# The layer writes the log from its present path (layer/hooks/present.c, layer/log/log.c).
. "$(dirname "$0")/lib.sh"
require_probes_around_lowlat
tools=$(cd "$(dirname "$0")/../../tools" && pwd)

frames=300
cap=${1:-}
# A directory that does not exist yet: the layer must create it.
logs="$e2e_tmp/state/lowlat-logs"
export LOWLAT_LOG=1 LOWLAT_LOG_DIR="$logs"
[ -z "$cap" ] || export LOWLAT_FPS="$cap"

E2E_PROBE=1 run_validated vkcube-log "${vkcube[@]}" --c "$frames"
# The app's present calls, all of them (lowlat-stats' mean counts every row too).
probe_fps=$(probe_value "$(probe_rate vkcube-log --skip 0 --at entry)" fps)
out="$e2e_tmp/vkcube-log.out"
presents=$(summary_presents "$out")
[ "$(echo "$presents" | wc -l)" = 1 ] && [ -n "$presents" ] ||
	fail "expected one swapchain summary from lowlat, got: $(grep '^lowlat: swapchain' "$out")"
summary_fps=$(sed -n 's/^lowlat: swapchain .* presents in .* (\([0-9.]*\) fps).*/\1/p' "$out")

[ -d "$logs" ] || fail "lowlat did not create the log directory $logs"
mapfile -t files < <(find "$logs" -type f)
[ "${#files[@]}" = 1 ] || fail "expected one log in $logs, found ${#files[@]}: ${files[*]}"
log=${files[0]}
case "$(basename "$log")" in
*-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-[0-9]*.csv) ;;
*) fail "log name $(basename "$log") is not <game>-<YYYYmmdd-HHMMSS>-<pid>.csv" ;;
esac
[ "$(stat -c %a "$log")" = 600 ] || fail "$log has mode $(stat -c %a "$log"), not 600"
head -n 1 "$log" | grep -q '^# lowlat present log v1;' || fail "$log does not start with the format line"
tail -n 1 "$log" | grep -q '^# closed: [0-9]* records written, 0 dropped$' ||
	fail "$log does not end with a clean close: $(tail -n 1 "$log")"

"$tools/lowlat-stats" --json "$log" >"$e2e_tmp/stats.json" || fail "lowlat-stats failed on $log"
"$tools/lowlat-stats" "$log" >&2
python3 - "$e2e_tmp/stats.json" "$presents" "$summary_fps" "$frames" "$cap" "$log" "$probe_fps" <<'PY' || fail "lowlat-stats disagrees (above)"
import csv, json, sys
s = json.load(open(sys.argv[1]))["logs"][0]
presents, summary_fps, frames = int(sys.argv[2]), float(sys.argv[3] or 0), int(sys.argv[4])
cap = float(sys.argv[5]) if sys.argv[5] else None
log_path = sys.argv[6]
probe_fps = float(sys.argv[7])
problems = []
# Every present lowlat counted is one row (none dropped), and vkcube presents about --c times.
if s["frames"] != presents or s["dropped"] != 0:
    problems.append(f"{s['frames']} rows and {s['dropped']} dropped for {presents} presents")
if not frames <= s["frames"] <= frames + 5:
    problems.append(f"{s['frames']} rows for vkcube --c {frames}")
# Like with like, each within 1%: the summary's rate comes from the clock read when the wait ended,
# which the log records as wait_end_ns; lowlat-stats' mean comes from present_ns (the call's
# entry). Comparing across the two would measure how long lavapipe blocked in the first present,
# not the log (12.6% apart under ASan).
rows = [r for r in csv.reader(l for l in open(log_path) if not l.startswith("#"))]
col = {name: i for i, name in enumerate(rows[0])}
def rate(name):
    t = [int(r[col[name]]) for r in rows[1:] if r[col[name]]]
    return (len(t) - 1) / ((t[-1] - t[0]) / 1e9) if len(t) > 1 and t[-1] > t[0] else 0
if abs(rate("wait_end_ns") - summary_fps) > 0.01 * summary_fps:
    problems.append(f"the log's wait_end_ns rate {rate('wait_end_ns'):.2f} where lowlat's summary says {summary_fps}")
if not s["mean_fps"] or abs(s["mean_fps"] - rate("present_ns")) > 0.01 * s["mean_fps"]:
    problems.append(f"lowlat-stats says {s['mean_fps']} fps where the log's present_ns give {rate('present_ns'):.2f}")
# present_ns is the entry into lowlat's hook; the probe above it timestamps the same calls a few us
# earlier, from outside.
if abs(s["mean_fps"] - probe_fps) > 0.01 * probe_fps:
    problems.append(f"lowlat-stats says {s['mean_fps']} fps where the probe above lowlat measured {probe_fps:.2f}")
# Capped, every paced row has its target, so the wait's release error is known; uncapped, none.
pacing = (s.get("pacing_error_us") or {}).get("p50")
if bool(cap) != (pacing is not None):
    problems.append(f"pacing error p50 {pacing} with cap {cap}: the target column is wrong")
if cap and probe_fps > cap * 1.005:
    problems.append(f"the probe measured {probe_fps:.2f} fps, above the cap of {cap}")
for p in problems:
    print("log_stats:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

"$tools/lowlat-plot" "$log" -o "$e2e_tmp/log.svg" || fail "lowlat-plot failed on $log"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$e2e_tmp/log.svg" ||
	fail "lowlat-plot wrote a malformed SVG"
echo "vkcube: $presents presents logged to $(basename "$log"); lowlat-stats agrees (${summary_fps} fps)"
