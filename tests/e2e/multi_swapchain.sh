#!/usr/bin/env bash
# tests/apps/multi_swapchain through lowlat: two devices, two swapchains, a mid-run recreate,
# presents from threads other than the one that created the devices, validation below lowlat.
#
#   multi_swapchain.sh [--no-layer] APP [FRAMES]
#
# --no-layer runs the same app with validation only: it must be clean without lowlat too, so a
# message in the layered run is the layer's.
. "$(dirname "$0")/lib.sh"

E2E_LOWLAT=1
if [ "${1:-}" = --no-layer ]; then
	E2E_LOWLAT=0
	shift
fi
app=$1
frames=${2:-200}

run_validated multi "$app" "$frames"
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
echo "$summary"
