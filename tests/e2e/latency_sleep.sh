#!/usr/bin/env bash
# VK_NV_low_latency2 as lowlat provides it: tests/apps/latency_sleep.c (a game thread that sleeps
# through vkLatencySleepNV, a submit thread that presents, DXVK's shape) through lowlat on the
# virtual display (144 Hz, below validation: it offers the present ids the extension depends on).
#
#   latency_sleep.sh APP VDISPLAY_MANIFEST_DIR MODE FPS INTERVAL_US EXPECT_FPS [stack]
#
# MODE disabled: LOWLAT_ENABLED=false, and the app must not find the extension.
# MODE wait|poll|stop (the app waits for the sleep's semaphore, or only polls its counter: then
# lowlat's signaler thread must send the signal; or stops sleeping half way: then lowlat must say
# the wait point is "present" again, and the cap must still hold, from the present); FPS is LOWLAT_FPS, INTERVAL_US the app's minimumIntervalUs,
# `stack` sets LOWLAT_STACK_LIMITERS=1.
#
# Asserts: a clean exit and validation silent (lowlat's structs and commands never reach it); lowlat
# provided the extension and gave the swapchain the wait point "latency-sleep"; the app's own frame
# starts run at EXPECT_FPS (not above it by more than 3%, not below by more than 5%; a run outside
# fails, the test runs once: docs/rationale.md, "Test bounds");
# each frame starts after lowlat released it, within 1 ms (wait) or 3 ms (poll:
# the signaler thread's wake-up plus the app's 100 us poll) at the median; with an interval and a
# cap, the one line saying which limiter rules (and none with `stack`).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dxvk_lib.sh" # frame_start_fps, check_release_to_start

app=$1 manifest=$2 mode=$3 cap=$4 interval=$5 expect=$6 stack=${7:-}
base=latency-sleep-$mode-$cap-$interval${stack:+-stack}
name=$base
frames=200
export LOWLAT_FPS=$cap LOWLAT_LOG=1
export VK_ADD_LAYER_PATH="$manifest" E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay LOWLAT_VDISPLAY_HZ=144
[ -z "$stack" ] || export LOWLAT_STACK_LIMITERS=1

# disabled: with `enabled: false` lowlat offers nothing of its own, so the app finds no extension.
if [ "$mode" = disabled ]; then
	rc=0
	ENABLE_LOWLAT_LAYER=1 LOWLAT_ENABLED=false VK_INSTANCE_LAYERS=VK_LAYER_LOWLAT_vdisplay \
		client timeout 30 "$app" wait 10 0 "$e2e_tmp/$name.starts" >"$e2e_tmp/$name.out" 2>&1 || rc=$?
	grep -q 'latency_sleep: the device does not list VK_NV_low_latency2' "$e2e_tmp/$name.out" && [ "$rc" = 1 ] ||
		fail "$name: with LOWLAT_ENABLED=false the extension was still offered (exit $rc): $(tail -n 3 "$e2e_tmp/$name.out")"
	echo "$name: not offered with LOWLAT_ENABLED=false"
	exit 0
fi

# The run and its checks; returns 2 when the game thread's rate is outside its bounds.
run_and_check() {
	name=$base
	run_latency_sleep_app "$name" "$app" "$mode" "$frames" "$interval" "$e2e_tmp/$name.starts"
	out="$e2e_tmp/$name.out"
	grep -qF 'lowlat: VK_NV_low_latency2 provided by lowlat' "$out" ||
		fail "$name: lowlat did not provide VK_NV_low_latency2"
	grep -q 'lowlat: swapchain 64x64: wait point "latency-sleep"' "$out" ||
		fail "$name: the swapchain did not get the wait point \"latency-sleep\""
	summary=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1)
	sleeps=$((frames - 1))
	[ "$mode" != stop ] || sleeps=$((frames / 2 - 1))
	[[ $summary == *"wait point \"latency-sleep\": $sleeps sleeps, $sleeps paced"* ]] ||
		fail "$name: lowlat's summary does not count $sleeps paced sleeps: $summary"
	if [ "$mode" = stop ]; then
		grep -q 'lowlat: swapchain 64x64: wait point "present" again (.* 3 presents)' "$out" ||
			fail "$name: lowlat did not take the wait back to the present when the app stopped sleeping"
	fi
	if [ "$interval" != 0 ] && [ -z "$stack" ]; then
		grep -qF "(minimumIntervalUs $interval us); " "$out" ||
			fail "$name: no line saying which of the two limiters rules"
	fi
	if [ -n "$stack" ] && grep -qF "(stack_limiters: false)" "$out"; then
		fail "$name: with stack_limiters lowlat still chose one limiter"
	fi

	game=$(frame_start_fps "$e2e_tmp/$name.starts")
	echo "$name: the game thread ran at $game fps, expected $expect (-5%..+3%)"
	awk -v g="$game" -v e="$expect" 'BEGIN { exit !(g <= e * 1.03 && g >= e * 0.95) }' || return 2

	[ "$mode" != stop ] || return 0
	# A polling game thread notices the release a poll later.
	max_ms=1
	[ "$mode" = wait ] || max_ms=3
	check_release_to_start "$name" "$max_ms"
}

run_checked
