#!/usr/bin/env bash
# timing_fallback.sh — without VK_EXT_present_timing (plain lavapipe has none) and without a refresh
# clock (LOWLAT_REFRESH_SOURCE points the DRM source at a directory without primary nodes, as on a
# machine without /dev/dri, whatever this one has) lowlat falls back from pacing level "timing"
# past "drm" to "cpu": one line saying so and why for both, one saying max_latency_frames is not
# kept there, no display targets, the cap held on the CPU clock as before, every log row marked
# "cpu", validation (below lowlat) silent.
#
# The cap is measured by the bench probe above lowlat (tests/bench/probe): the median interval between
# present returns within 1% of 1/cap (a stall of the machine does not move it), and the mean rate
# never faster than the cap. (The mean's lower bound is vkcube-60fps-late's.)
. "$(dirname "$0")/lib.sh"
require_probes_around_lowlat

frames=300 fps=60
logs="$e2e_tmp/logs"
nodri="$e2e_tmp/no-dri"
mkdir -p "$nodri"
LOWLAT_REFRESH_SOURCE="drm:$nodri" LOWLAT_FPS=$fps LOWLAT_LOG=1 LOWLAT_LOG_DIR="$logs" E2E_PROBE=1 \
	run_validated fallback vkcube --c "$frames"
out="$e2e_tmp/fallback.out"

mapfile -t levels < <(grep '^lowlat: .*pacing level' "$out")
[ "${#levels[@]}" = 1 ] || fail "expected one 'pacing level' line, got ${#levels[@]}: ${levels[*]}"
echo "${levels[0]}"
case ${levels[0]} in
'lowlat: swapchain '*': pacing level "cpu" (fallback from "timing": '*'; from "drm": '*" $nodri)") ;;
*) fail "the swapchain did not fall back past \"drm\" to \"cpu\" with both reasons: ${levels[0]}" ;;
esac

# The latency-frames cap (1 while lowlat caps) needs to know when a frame was shown: said not kept.
grep -q '^lowlat: swapchain .*: max_latency_frames 1 is not kept on level "cpu"' "$out" ||
	fail "no line saying max_latency_frames is not kept on the \"cpu\" level"

line=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1) || true
[ -n "$line" ] || fail "no lowlat summary line"
echo "$line"
case $line in
*"; 0 presents with display targets") ;;
*) fail "presents carried display targets without present timing" ;;
esac
[ "$(summary_presents "$out")" = "$frames" ] || fail "lowlat counted $(summary_presents "$out") presents, expected $frames"
stats=$(probe_rate fallback --cap "$fps") || fail "could not read the probe's CSV"
echo "the probe above lowlat: $stats"
awk -v fps="$fps" -v rate="$(probe_value "$stats" fps)" -v median="$(probe_value "$stats" median_ms)" 'BEGIN {
	printf "rate %.3f fps, median interval %.3f ms, for a cap of %s\n", rate, median, fps
	if (rate > fps * 1.005) { print "FAIL: faster than the cap"; exit 1 }
	if (median * fps / 1000 > 1.01 || median * fps / 1000 < 0.99) { print "FAIL: the median interval is off the cap"; exit 1 }
}' || fail "the cap on the CPU clock"

mapfile -t files < <(find "$logs" -type f -name '*.csv')
[ "${#files[@]}" = 1 ] || fail "expected one present log, found ${#files[@]}"
python3 - "${files[0]}" "$frames" <<'PY' || fail "the present log (above)"
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
bad = [r["frame"] for r in rows if r["fallback"] != "cpu" or r["refresh_ns"] or not r["target_ns"]]
print(f"log: {len(rows)} rows, {len(rows) - len(bad)} with fallback cpu, a target deadline and no refresh")
if len(rows) != int(sys.argv[2]) or bad:
    print(f"FAIL: rows not fallback cpu with a deadline: {bad[:10]}")
    sys.exit(1)
PY
