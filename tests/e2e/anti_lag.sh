#!/usr/bin/env bash
# VK_AMD_anti_lag as lowlat's wait point: tests/apps/latency_sleep.c in its antilag modes (a game
# thread that calls vkAntiLagUpdateAMD at stage INPUT before each frame, a submit thread that
# presents) through lowlat, validation, Mesa's anti-lag layer (which offers the extension on
# lavapipe) and the virtual display (144 Hz), in that order.
#
#   anti_lag.sh APP VDISPLAY_MANIFEST_DIR MODE FPS MAX_FPS EXPECT_FPS [drm]
#
# MODE antilag: anti-lag on for every frame; antilag-off: turned off half way (the present must
# then wait again, at once). FPS is LOWLAT_FPS, MAX_FPS the app's VkAntiLagDataAMD::maxFPS (0: none).
# drm: the display withholds present timing and present wait, and lowlat reads its refresh clock
# (LOWLAT_REFRESH_SOURCE=fixed:144, pacing level "drm"): the input calls are then released on the
# refresh grid, each a lead before the vblank lowlat planned for its frame (checked from the log).
#
# Asserts: a clean exit, validation silent, Mesa's layer in the chain between validation and the
# virtual display; lowlat saw the extension enabled and gave the swapchain the wait point
# "anti-lag" (said once); the summary counts every input call after the first present, all paced
# where lowlat's cap rules and none where the app's lower maxFPS does (with the one line saying so:
# no second cap); the game thread's own frame starts run at EXPECT_FPS (+3%, -5%; a run outside fails,
# the test runs once: docs/rationale.md, "Test bounds"); where lowlat
# paces, each frame starts after lowlat released it and within 1 ms at the median (Mesa's own
# delay after lowlat's has nothing left to wait for at lowlat's cap).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dxvk_lib.sh" # frame_start_fps, check_release_to_start

app=$1 manifest=$2 mode=$3 cap=$4 max_fps=$5 expect=$6 grid=${7:-display}
base=anti-lag-$mode-$cap-$max_fps-$grid
name=$base
frames=200

if ! implicit_layer_installed VkLayer_MESA_anti_lag.json; then
	echo "$name: skipped: Mesa's anti-lag layer (VkLayer_MESA_anti_lag.json) is not installed"
	exit 77
fi

export LOWLAT_FPS=$cap LOWLAT_LOG=1
export VK_ADD_LAYER_PATH="$manifest" LOWLAT_VDISPLAY_HZ=144
export E2E_LAYERS_UNDER=VK_LAYER_MESA_anti_lag:VK_LAYER_LOWLAT_vdisplay
if [ "$grid" = drm ]; then
	export LOWLAT_VDISPLAY_WITHHOLD=VK_EXT_present_timing,VK_KHR_present_wait,VK_KHR_present_wait2
	export LOWLAT_REFRESH_SOURCE=fixed:144
fi

# The run and its checks; returns 2 when the game thread's rate is outside its bounds.
run_and_check() {
	name=$base
	run_latency_sleep_app "$name" "$app" "$mode" "$frames" "$max_fps" "$e2e_tmp/$name.starts"
	out="$e2e_tmp/$name.out"
	order=$(grep -o 'Insert instance layer "[A-Za-z_]*"' "$out" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
	[[ $order == *VK_LAYER_LOWLAT_vdisplay*VK_LAYER_MESA_anti_lag*VK_LAYER_KHRONOS_validation*VK_LAYER_LOWLAT_limiter* ]] ||
		fail "$name: expected lowlat > validation > Mesa anti-lag > virtual display, the loader inserted (bottom up): $order"
	grep -qF 'lowlat: VK_AMD_anti_lag enabled' "$out" || fail "$name: lowlat did not see VK_AMD_anti_lag enabled"
	[ "$(grep -c 'lowlat: swapchain 64x64: wait point "anti-lag"' "$out")" = 1 ] ||
		fail "$name: the swapchain did not get the wait point \"anti-lag\", said once"

	# The first input call comes before any present: no swapchain to pace yet.
	calls=$((frames - 1))
	[ "$mode" != antilag-off ] || calls=$((frames / 2 - 1))
	paced=$calls
	app_rules=
	if [ "$max_fps" != 0 ] && [ "$max_fps" -lt "$cap" ]; then
		paced=0 app_rules=1
	fi
	summary=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1)
	[[ $summary == *"wait point \"anti-lag\": $calls sleeps, $paced paced"* ]] ||
		fail "$name: lowlat's summary does not count $calls input calls, $paced paced: $summary"
	if [ "$max_fps" != 0 ]; then
		want="lower cap"
		[ -z "$app_rules" ] || want="no cap"
		grep -F "(maxFPS $max_fps); " "$out" | grep -qF "$want" ||
			fail "$name: no line saying which of the two limiters rules ($want)"
	fi
	if [ "$mode" = antilag-off ]; then
		grep -q 'lowlat: swapchain 64x64: wait point "present" again (.*anti-lag' "$out" ||
			fail "$name: lowlat did not give the wait back to the present when the app turned anti-lag off"
	fi

	game=$(frame_start_fps "$e2e_tmp/$name.starts")
	echo "$name: the game thread ran at $game fps, expected $expect (-5%..+3%)"
	awk -v g="$game" -v e="$expect" 'BEGIN { exit !(g <= e * 1.03 && g >= e * 0.95) }' || return 2

	[ "$mode" = antilag ] && [ -z "$app_rules" ] || return 0
	check_release_to_start "$name" 1
	[ "$grid" = drm ] || return 0

	# On the refresh grid: the swapchain's one pacing-level line says "drm", and from the 10th present
	# on at least 90% of the log's rows are "drm" with the vblank planned for the frame and the lead,
	# the input call that started the frame having ended at that vblank minus the lead (1 ms at the
	# median: the wait's wake-up; a release meant for another frame is a whole refresh off or more).
	grep -q 'lowlat: swapchain 64x64: pacing level "drm"' "$out" || fail "$name: the swapchain is not on pacing level \"drm\""
	python3 - "$e2e_tmp/$name.logs" "$name" <<'PY' || fail "$name: the input calls were not released on the refresh grid"
import csv, glob, statistics, sys
rows = list(csv.DictReader(line for line in open(glob.glob(sys.argv[1] + "/*.csv")[0]) if not line.startswith("#")))[10:]
grid = [r for r in rows if r["fallback"] == "drm" and r["target_ns"] and r["predicted_ready_ns"] and r["wait_end_ns"]]
off = [(int(r["wait_end_ns"]) - (int(r["target_ns"]) - int(r["predicted_ready_ns"]))) / 1e6 for r in grid]
med = statistics.median(off) if off else float("nan")
print(f"{sys.argv[2]}: {len(grid)} of {len(rows)} presents released on the refresh grid; an input call ends {med:+.3f} ms "
      "(median) from its frame's planned vblank minus the lead")
if len(grid) < 0.9 * len(rows):
    sys.exit("fewer than 90% of the presents on the refresh grid")
if not -0.05 <= med <= 1.0:
    sys.exit(f"the input calls end {med:+.3f} ms from the release planned, not within [0, 1] ms")
PY
}

run_checked
