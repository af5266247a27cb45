# shellcheck shell=bash
# tests/e2e/dxvk_lib.sh — shared by the real-DXVK tests (dxvk_native.sh, dxvk_wine.sh); sourced
# after lib.sh.
#
# Both run tests/apps/d3d11/d3d11_frames.cpp, which writes its own frame-start times, so a cap can
# be checked where the game sees it (its loop) and not only where lowlat waits (DXVK's submit
# thread, which calls vkQueuePresentKHR).

# skip MESSAGE: meson's exit status for a skipped test; the message says what to install.
skip() {
	echo "SKIP: $*"
	exit 77
}

# DXVK logs to stderr only (not to files beside the program), and only what is worth reading.
export DXVK_LOG_LEVEL=warn DXVK_LOG_PATH=none

dxvk_frames=300

# frame_start_fps FILE: the mean rate of the program's own frame starts, without the first 10
# frames. DXVK lets the game thread run up to its frame latency (3 by default) ahead of the
# presents before it blocks, and the first frames also create pipelines and the swapchain; a
# mean over all frames would count those as fast or slow frames the cap had no say in.
frame_start_fps() {
	awk 'NR > 10 { if (!first) first = $1; last = $1; n++ }
		END { if (n > 1 && last > first) printf "%.2f\n", (n - 1) / ((last - first) * 1e-9); else print 0 }' "$1"
}

# check_dxvk_run NAME APP FRAMES [CAP]: what every real-DXVK run must show in $e2e_tmp/NAME.out
# (after run_validated: clean exit, validation silent, validation below lowlat):
#  - the program drew all its frames and said so;
#  - lowlat saw the instance DXVK made for the program, named as DXVK names it (APP: the
#    executable's file name) with engine "DXVK" — the key a per-game setting will use;
#  - lowlat's summaries (one per Vulkan swapchain DXVK made) count every present the program made;
#  - with CAP, the program's own frame starts (file $e2e_tmp/NAME.starts) average the cap within 3%.
check_dxvk_run() {
	local name=$1 app=$2 frames=$3 cap=${4:-}
	local out="$e2e_tmp/$name.out" summary presents fps
	summary=$(grep '^d3d11_frames: ' "$out" | tail -n 1)
	[[ $summary =~ ^d3d11_frames:\ $frames\ frames\ in ]] || fail "$name: no summary line for $frames frames from the program"
	grep -qF "lowlat: active in \"$app\" (engine \"DXVK\")" "$out" ||
		fail "$name: lowlat did not see app \"$app\" with engine \"DXVK\"; it saw: $(grep '^lowlat: active in' "$out" | tr '\n' ' ')"
	presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
	[ "$(summary_presents "$out" | wc -l)" -ge 1 ] || fail "$name: lowlat printed no swapchain summary, so its hooks never ran"
	[ "$presents" = "$frames" ] || fail "$name: lowlat counted $presents presents, the program presented $frames frames"
	echo "$name: $summary"
	grep '^lowlat: ' "$out"
	if [ -n "$cap" ]; then
		fps=$(frame_start_fps "$e2e_tmp/$name.starts")
		awk -v f="$fps" -v c="$cap" 'BEGIN { exit !(f >= c * 0.97 && f <= c * 1.03) }' ||
			fail "$name: the program's frame starts ran at $fps fps with LOWLAT_FPS=$cap (want within 3%)"
		echo "$name: the program's own frame starts ran at $fps fps with LOWLAT_FPS=$cap"
	fi
}
