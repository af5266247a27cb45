#!/usr/bin/env bash
# vkcube through lowlat with the present log on (LOWLAT_LOG=1, LOWLAT_LOG_DIR), validation below;
# then tools/lowlat-stats on the file must agree with what the test and lowlat's own summary line
# know: one log, one row per present, nothing dropped, a clean close, and the same frame rate.
#
#   log_stats.sh [FPS]    with FPS, run capped (LOWLAT_FPS=FPS): the log must show the cap as its
#                         target and a mean no faster than the cap. (Whether the cap is *held* is
#                         vkcube-60fps-*'s question, which knows how to tell a busy machine's
#                         stalls from a failure; here they would only make the test flaky.)
#
# The layer writes the log from its present path (layer/present.c, layer/log.c).
. "$(dirname "$0")/lib.sh"
tools=$(cd "$(dirname "$0")/../../tools" && pwd)

frames=600
cap=${1:-}
# A directory that does not exist yet: the layer must create it.
logs="$e2e_tmp/state/lowlat-logs"
export LOWLAT_LOG=1 LOWLAT_LOG_DIR="$logs"
[ -z "$cap" ] || export LOWLAT_FPS="$cap"

run_validated vkcube-log vkcube --c "$frames"
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
python3 - "$e2e_tmp/stats.json" "$presents" "$summary_fps" "$frames" "$cap" "$log" <<'PY' || fail "lowlat-stats disagrees (above)"
import csv, json, sys
s = json.load(open(sys.argv[1]))["logs"][0]
presents, summary_fps, frames = int(sys.argv[2]), float(sys.argv[3] or 0), int(sys.argv[4])
cap = float(sys.argv[5]) if sys.argv[5] else None
# The summary spans the first to the last call's return (wait_end_ns), the log's mean fps their
# entries (present_ns): they differ by how much longer the first call took than the last. The first
# present sets up lavapipe's X11 presentation, 4-20 ms here and over 100 ms under TSan, which alone
# can be 5% of a 2 s run: put the summary on the log's span before comparing.
rows = list(csv.DictReader(l for l in open(sys.argv[6]) if not l.startswith("#")))
call = lambda r: int(r["wait_end_ns"]) - int(r["present_ns"])
summary_span = (presents - 1) / summary_fps if summary_fps else 0
if summary_fps and len(rows) > 1:
    summary_fps = (presents - 1) / (summary_span + (call(rows[0]) - call(rows[-1])) / 1e9)
problems = []
# Every present lowlat counted is one row (none dropped), and vkcube presents about --c times.
if s["frames"] != presents or s["dropped"] != 0:
    problems.append(f"{s['frames']} rows and {s['dropped']} dropped for {presents} presents")
if not frames <= s["frames"] <= frames + 5:
    problems.append(f"{s['frames']} rows for vkcube --c {frames}")
# The summary's fps is over the same presents, from its own clock reads after the call down;
# the log's is from present_ns. 5% covers that on a busy machine.
if not s["mean_fps"] or abs(s["mean_fps"] - summary_fps) > 0.05 * summary_fps:
    problems.append(f"mean fps {s['mean_fps']} where lowlat's summary says {summary_fps}")
# Capped, every paced row has its target, so the wait's release error is known; uncapped, none.
pacing = (s.get("pacing_error_us") or {}).get("p50")
if bool(cap) != (pacing is not None):
    problems.append(f"pacing error p50 {pacing} with cap {cap}: the target column is wrong")
if cap and s["mean_fps"] > cap * 1.005:
    problems.append(f"mean fps {s['mean_fps']:.2f} above the cap of {cap}")
for p in problems:
    print("log_stats:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

"$tools/lowlat-plot" "$log" -o "$e2e_tmp/log.svg" || fail "lowlat-plot failed on $log"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$e2e_tmp/log.svg" ||
	fail "lowlat-plot wrote a malformed SVG"
echo "vkcube: $presents presents logged to $(basename "$log"); lowlat-stats agrees (${summary_fps} fps)"
