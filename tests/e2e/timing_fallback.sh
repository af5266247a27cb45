#!/usr/bin/env bash
# timing_fallback.sh — without VK_EXT_present_timing (plain lavapipe has none) and without a refresh
# clock (LOWLAT_REFRESH_SOURCE points the DRM source at a directory without primary nodes, as on a
# machine without /dev/dri, whatever this one has) lowlat falls back from pacing level "timing"
# past "drm" to "cpu": one line saying so and why for both, one saying max_latency_frames is not
# kept there, no display targets, the cap held on the CPU clock as before, every log row marked
# "cpu", validation (below lowlat) silent.
#
# The cap is judged as vkcube_rate.sh does, without the time lost to the machine's stalls (lowlat's
# summary reports it): within 2% of the cap, and never faster than it.
. "$(dirname "$0")/lib.sh"

frames=300 fps=60
logs="$e2e_tmp/logs"
nodri="$e2e_tmp/no-dri"
mkdir -p "$nodri"
LOWLAT_REFRESH_SOURCE="drm:$nodri" LOWLAT_FPS=$fps LOWLAT_LOG=1 LOWLAT_LOG_DIR="$logs" \
	run_validated fallback vkcube --c "$frames"
out="$e2e_tmp/fallback.out"

mapfile -t levels < <(grep '^lowlat: .*pacing level' "$out")
[ "${#levels[@]}" = 1 ] || fail "expected one 'pacing level' line, got ${#levels[@]}: ${levels[*]}"
echo "${levels[0]}"
case ${levels[0]} in
'lowlat: swapchain '*': pacing level "cpu" (fallback from "timing": '*"; from \"drm\": no DRM primary node (card*) in $nodri)") ;;
*) fail "the swapchain did not fall back past \"drm\" to \"cpu\" with both reasons: ${levels[0]}" ;;
esac

# The latency-frames cap (1 while lowlat caps) needs to know when a frame was shown: said not kept.
grep -q '^lowlat: swapchain .*: max_latency_frames 1 is not kept on level "cpu": nothing reports when its frames are shown' "$out" ||
	fail "no line saying max_latency_frames is not kept on the \"cpu\" level"

line=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1) || true
[ -n "$line" ] || fail "no lowlat summary line"
echo "$line"
case $line in
*"; 0 presents with display targets") ;;
*) fail "presents carried display targets without present timing" ;;
esac
echo "$line" | awk -v fps="$fps" -v frames="$frames" '
{
	for (i = 1; i <= NF; i++) {
		if ($i == "presents" && $(i + 1) == "in") { presents = $(i - 1); seconds = $(i + 2) }
		if ($i == "re-anchors") { lost_ms = substr($(i + 1), 2) }
		if ($i == "late" && $(i + 1) == "releases") { late_ms = substr($(i + 2), 2) }
	}
	lost_ms += late_ms
	if (presents != frames) { printf "FAIL: %d presents, expected %d\n", presents, frames; exit 1 }
	rate = (presents - 1) / seconds
	paced = (presents - 1) / (seconds - lost_ms / 1000)
	printf "rate %.3f fps, %.3f fps without the time lost to stalls, for a cap of %s\n", rate, paced, fps
	if (rate > fps * 1.02) { print "FAIL: faster than the cap"; exit 1 }
	if (paced > fps * 1.02 || paced < fps * 0.98) { print "FAIL: the cap did not hold"; exit 1 }
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
