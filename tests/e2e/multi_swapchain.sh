#!/usr/bin/env bash
# tests/apps/multi_swapchain through lowlat: two devices, two swapchains, a mid-run recreate,
# presents from threads other than the one that created the devices, validation below lowlat.
#
#   multi_swapchain.sh [--no-layer | --fps N] APP [FRAMES]
#
# --fps N runs it capped: every swapchain must report the limiter at N and run no faster than N,
# measured by the bench probe above lowlat (the i386 build's check that a 32-bit program is capped
# by the 32-bit layer).
# --no-layer runs the same app with validation only: it must be clean without lowlat too, so a
# message in the layered run is the layer's.
. "$(dirname "$0")/lib.sh"
require_probes_around_lowlat

E2E_LOWLAT=1
cap=
if [ "${1:-}" = --no-layer ]; then
	E2E_LOWLAT=0
	shift
elif [ "${1:-}" = --fps ]; then
	cap=$2
	shift 2
fi
app=$1
frames=${2:-200}

if [ -n "$cap" ]; then
	LOWLAT_FPS=$cap E2E_PROBE=1 run_validated multi "$app" "$frames"
else
	run_validated multi "$app" "$frames"
fi
out=$e2e_tmp/multi.out

summary=$(grep '^multi_swapchain: device0' "$out" | tail -n 1)
re='^multi_swapchain: device0 ([0-9]+) frames, device1 ([0-9]+) frames, ([0-9]+) recreates?$'
[[ $summary =~ $re ]] || fail "no final summary line from the app"
[ "${BASH_REMATCH[1]}" = "$frames" ] && [ "${BASH_REMATCH[2]}" = "$frames" ] ||
	fail "expected $frames frames on each device: $summary"
[ "${BASH_REMATCH[3]}" -ge 1 ] || fail "the app did not recreate a swapchain: $summary"

if [ "$E2E_LOWLAT" = 1 ]; then
	# The app's windows are 320x240 (device0, recreated once) and 256x192 (device1): lowlat must
	# have seen every present of both, across both of device0's swapchains.
	for size in 320x240:2 256x192:1; do
		extent=${size%:*}
		chains=$(summary_presents "$out" "$extent" | wc -l)
		presents=$(summary_presents "$out" "$extent" | awk '{ n += $1 } END { print n + 0 }')
		[ "$chains" -ge "${size#*:}" ] ||
			fail "lowlat summarised $chains swapchain(s) of $extent, expected at least ${size#*:}"
		[ "$presents" = "$frames" ] ||
			fail "lowlat counted $presents presents on $extent swapchains, the app presented $frames"
	done
fi
if [ -n "$cap" ]; then
	grep '^lowlat: swapchain ' "$out" | grep -q "limiter late at $cap.000 fps" ||
		fail "lowlat did not report the limiter at $cap fps: $(grep '^lowlat: swapchain ' "$out")"
	# Each swapchain's own pace, measured by the probe above lowlat (its first 3 presents, before
	# the grid, left out). The probe sees the app's present calls: lowlat's release plus the
	# frame's own work, whose variation enters a rate at its two ends. Over 49 intervals a 1% bound
	# leaves 8 ms for that; a shorter-lived swapchain (one recreated midway) is judged on its median
	# interval, the grid's, and one with fewer than 20 presents not at all.
	probe_rate multi --by-swapchain --skip 3 | tee "$e2e_tmp/rates" | awk -v cap="$cap" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  print "the probe above lowlat: " $0
		  if (v["presents"] >= 50 && v["fps"] > cap * 1.01) { print "FAIL: a swapchain ran at " v["fps"] " fps under a cap of " cap; bad = 1 }
		  if (v["presents"] >= 20 && v["median_ms"] < 1000 / cap * 0.995) { print "FAIL: a swapchain presented every " v["median_ms"] " ms (median) under a cap of " cap; bad = 1 }
		  n += v["presents"] }
		END { if (n < 20) { print "FAIL: the probe saw " n " presents"; bad = 1 } exit bad }' || fail "the cap did not hold"
fi
echo "$summary"
