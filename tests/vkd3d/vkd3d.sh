#!/usr/bin/env bash
# vkd3d-proton, the D3D12 code Proton ships, through lowlat: its own swapchain (libs/vkd3d/swapchain.c)
# presents from its queue thread, with VK_NV_low_latency2 and VK_EXT_present_timing wherever they are
# offered. Built from ../shared/third_party by tests/vkd3d/build.sh; validation below lowlat.
#
#   vkd3d.sh D3D12_FRAMES VDISPLAY_MANIFEST_DIR MISSING CASE [FRAMES]
#
# FRAMES: the frames each app presents (300: 5 s at 60 fps).
# MISSING, when not empty, says why vkd3d-proton could not be built here: the test skips, saying so,
# before it starts. D3D12_FRAMES is tests/apps/d3d12/d3d12_frames.c built against it; vkd3d-proton's
# own gears demo lies in the same build (build/demos/gears). Rates come from outside lowlat: the bench
# probe above it on lavapipe, the virtual display's record on the display.
#
# CASE (each at LOWLAT_FPS=60 unless said):
#   gears-lavapipe    gears on lavapipe alone, 5 s: no crash (it died on its first present when lowlat
#                     listed VK_NV_low_latency2 where nothing implemented it), NV_low_latency2 not
#                     listed (lavapipe has no present ids), 60 presents a second within 2% by
#                     gears' own count and clock (vkd3d-proton's frame statistics).
#   gears-reflex      gears on the virtual display (120 Hz): lowlat provides VK_NV_low_latency2 and
#                     vkd3d-proton enables it; no crash, 60 presents a second within 2%.
#   60fps             d3d12_frames on lavapipe: 60 fps within 2% at the probe.
#   frame-rate-45     the virtual display (90 Hz, present wait), VKD3D_FRAME_RATE=45: vkd3d-proton's
#                     own limiter rules, lowlat says in one line that it adds no cap; the display
#                     shows 45 new images a second within 2%.
#   frame-rate-45-lavapipe  the same on lavapipe, where vkd3d-proton keeps no frame rate (it paces
#                     only after a present wait): lowlat says so in one line and caps at 60 (probe).
#   latency-frames-1  VKD3D_SWAPCHAIN_LATENCY_FRAMES=1: 60 fps within 2%, and no line suggesting it.
#   reflex            the virtual display (120 Hz), d3d12_frames sleeping through ID3DLowLatencyDevice
#                     (vkLatencySleepNV, provided by lowlat): wait point "latency-sleep", 60 images a
#                     second on the display within 2%.
#   reflex-native     the same on the nvidia profile, whose driver has VK_NV_low_latency2: lowlat passes
#                     it through and waits for its cap inside vkLatencySleepNV.
#   targets-PROFILE   the virtual display's PROFILE at 120 Hz, Present(1): vkd3d-proton sets a target
#                     on every present, one refresh after the last. The cap holds over them: lowlat's
#                     line says so, its summary counts them moved to its grid, and the display shows 60
#                     new images a second within 2%, two refreshes apart.
#   untargeted-PROFILE  the same on a profile where vkd3d-proton sets no target in these runs
#                     (mesa-wayland-basic, monotonic): lowlat's own targets, no line
#                     about the app's, and the display shows 60 a second, two refreshes apart.
#   interval2-PROFILE the same with Present(2): vkd3d-proton's targets ask for every second refresh,
#                     which the cap allows: they stand (all but the first few, while its phase finds
#                     the grid's), the display shows 60 a second.
. "$(dirname "$0")/../e2e/lib.sh"

app=$1 vdisplay=$2 missing=$3 case=$4 frames=${5:-300}
name=vkd3d-$case
if [ -n "$missing" ]; then
	echo "$name: skipped: $missing"
	exit 77
fi
gears=$(dirname "$app")/build/demos/gears
judge=$(dirname "$0")/judge.py
export VKD3D_DEBUG=none LOWLAT_FPS=60
# What validation reports of vkd3d-proton itself, with lowlat or without (both seen without it):
# - it calibrates present timing against CLOCK_MONOTONIC_RAW without checking that the device lists
#   that domain (libs/vkd3d/swapchain.c, dxgi_vk_swap_chain_poll_single_calibration); lavapipe
#   lists DEVICE and CLOCK_MONOTONIC only. lowlat never calibrates CLOCK_MONOTONIC_RAW;
# - where the driver has VK_NV_low_latency2, it sets latency markers on the game thread (swapchain.c,
#   vkSetLatencyMarkerNV) while its queue thread acquires from and presents to the same swapchain,
#   whose handle those use externally synchronized. Validation reports it as a Read or a Write
#   race, naming either thread first. Where lowlat provides the extension the markers stop in
#   lowlat, and validation below it does not see them.
E2E_VVL_APP_OWNED='VUID-VkCalibratedTimestampInfoKHR-timeDomain-02354.*CLOCK_MONOTONIC_RAW|Threading-MultipleThreads-(Read|Write).*(vkSetLatencyMarkerNV.*"vkd3d_queue"|"vkd3d_queue".*vkSetLatencyMarkerNV)'
export E2E_VVL_APP_OWNED

on_display() {
	export VK_ADD_LAYER_PATH="$vdisplay" E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay LOWLAT_VDISPLAY_HZ=${2:-120}
	export LOWLAT_VDISPLAY_LOG="$e2e_tmp/$name.truth" LOWLAT_VDISPLAY_PROFILE=${1:-spec}
}

# The probe's rate of a run, checked against EXPECT within 2%: the swapchain with the most presents
# (vkd3d-proton makes one and replaces it before its first frame).
check_probe_rate() {
	local line fps
	line=$(probe_rate "$name" --skip 30 --by-swapchain |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^presents=/) { split($i, a, "="); if (a[2] + 0 > m) { m = a[2] + 0; l = $0 } } } END { print l }')
	echo "$name: probe: $line"
	fps=$(probe_value "$line" fps)
	python3 -c "import sys; sys.exit(abs($fps - $1) > 0.02 * $1)" ||
		fail "$name: $fps presents a second at the probe, not $1 within 2%"
}

# gears' presents a second by its own count and clock (vkd3d-proton's frame statistics, which it
# prints after each present: "gears: present N, QPC T * 10^9."), its first second left out. gears
# runs until it is stopped, so no probe above lowlat gets to write its record.
gears_rate() {
	awk '/^gears: present [0-9]+, QPC/ { n = $3 + 0; t = $5 + 0; if (!t0) { t0 = t } if (t - t0 >= 1) { if (!s) { s = t; sn = n } e = t; en = n } }
		END { if (e > s) printf "%.2f %d\n", (en - sn) / (e - s), en - sn; else print "0 0" }' "$1"
}

case $case in
gears-lavapipe | gears-reflex)
	[ "$case" = gears-lavapipe ] || on_display spec
	export E2E_CLIENT_STOP_AFTER=5
	run_validated "$name" "$gears"
	out=$e2e_tmp/$name.out
	! grep -q 'Segmentation fault\|SIGSEGV' "$out" || fail "$name: gears crashed"
	if [ "$case" = gears-lavapipe ]; then
		! grep -q 'VK_NV_low_latency2' "$out" ||
			fail "$name: lowlat took up VK_NV_low_latency2 on a device without present ids"
	else
		grep -qF 'lowlat: VK_NV_low_latency2 provided by lowlat' "$out" ||
			fail "$name: lowlat did not provide VK_NV_low_latency2 to vkd3d-proton"
	fi
	read -r fps counted < <(gears_rate "$out")
	echo "$name: gears: $counted presents after its first second, $fps a second by its own clock"
	python3 -c "import sys; sys.exit(abs($fps - 60) > 0.02 * 60)" ||
		fail "$name: gears presented $fps frames a second, not 60 within 2%"
	;;
60fps | frame-rate-45-lavapipe | latency-frames-1)
	require_probes_around_lowlat
	case $case in
	frame-rate-45-lavapipe) export VKD3D_FRAME_RATE=45 ;;
	latency-frames-1) export VKD3D_SWAPCHAIN_LATENCY_FRAMES=1 ;;
	esac
	E2E_PROBE=1 run_validated "$name" "$app" "$frames"
	out=$e2e_tmp/$name.out
	grep '^d3d12_frames: ' "$out"
	case $case in
	frame-rate-45-lavapipe)
		[ "$(grep -c 'VKD3D_FRAME_RATE=45).* present wait' "$out")" = 1 ] ||
			fail "$name: lowlat did not say once that vkd3d-proton's limiter does not hold here"
		;;
	latency-frames-1)
		! grep -q 'VKD3D_SWAPCHAIN_LATENCY_FRAMES=1' "$out" ||
			fail "$name: lowlat suggested VKD3D_SWAPCHAIN_LATENCY_FRAMES=1, which is set"
		;;
	esac
	check_probe_rate 60
	;;
frame-rate-45)
	# At 90 Hz, where 45 is every second refresh: on 120 Hz vkd3d-proton's own targets show 40 (its
	# present timing rounds 22.2 ms up to three refreshes), with lowlat or without.
	on_display spec 90
	export VKD3D_FRAME_RATE=45
	run_validated "$name" "$app" "$frames"
	out=$e2e_tmp/$name.out
	grep '^d3d12_frames: ' "$out"
	[ "$(grep -c '(VKD3D_FRAME_RATE=45); .*(stack_limiters: false)' "$out")" = 1 ] ||
		fail "$name: lowlat did not say once that vkd3d-proton's own limiter rules"
	python3 "$judge" "$LOWLAT_VDISPLAY_LOG" --fps 45 || fail "$name: the display's record (above)"
	;;
reflex | reflex-native)
	if [ "$case" = reflex ]; then
		on_display spec
		want='lowlat: VK_NV_low_latency2 provided by lowlat'
	else
		on_display nvidia
		want='lowlat: VK_NV_low_latency2 passed through'
	fi
	run_validated "$name" "$app" "$frames" --reflex
	out=$e2e_tmp/$name.out
	grep '^d3d12_frames: ' "$out"
	grep -qF "$want" "$out" || fail "$name: lowlat did not say: $want"
	grep -q 'lowlat: swapchain [0-9x]*: wait point "latency-sleep"' "$out" ||
		fail "$name: lowlat did not say that the latency sleep is the wait point"
	python3 "$judge" "$LOWLAT_VDISPLAY_LOG" --fps 60 || fail "$name: the display's record (above)"
	;;
untargeted-*)
	on_display "${case#*-}"
	run_validated "$name" "$app" "$frames"
	out=$e2e_tmp/$name.out
	grep '^d3d12_frames: ' "$out"
	! grep -q 'its own present-timing targets' "$out" ||
		fail "$name: vkd3d-proton now sets targets on this profile: move it to the targets- cases"
	python3 "$judge" "$LOWLAT_VDISPLAY_LOG" --fps 60 || fail "$name: the display's record (above)"
	;;
targets-* | interval2-*)
	profile=${case#*-}
	interval=1
	[ "${case%%-*}" = targets ] || interval=2
	on_display "$profile"
	run_validated "$name" "$app" "$frames" --sync-interval "$interval"
	out=$e2e_tmp/$name.out
	grep '^d3d12_frames: ' "$out"
	[ "$(grep -c 'its own present-timing targets; the cap holds' "$out")" = 1 ] ||
		fail "$name: lowlat did not say once what it does with the app's targets"
	summary=$(grep 'the app.s present-timing targets: ' "$out") ||
		fail "$name: no summary of the app's targets"
	echo "$summary"
	moved=$(sed -n 's/.*targets: \([0-9]*\) moved.*/\1/p' <<<"$summary")
	stood=$(sed -n 's/.* \([0-9]*\) stood.*/\1/p' <<<"$summary")
	if [ "$interval" = 1 ]; then
		[ "$moved" -ge $((frames - 10)) ] || fail "$name: only $moved of the app's targets moved to the cap's grid"
	else
		# Its first target may come a refresh before lowlat's grid (its phase is its own until
		# the first report of a frame lowlat placed); from then on they agree.
		[ "$moved" -le 3 ] && [ "$stood" -ge $((frames - 10)) ] ||
			fail "$name: the app's targets at the cap's rate should stand: $summary"
	fi
	python3 "$judge" "$LOWLAT_VDISPLAY_LOG" --fps 60 || fail "$name: the display's record (above)"
	;;
*) fail "unknown case $case" ;;
esac
# vkd3d-proton calls the swapchain's timing-properties functions in its present callback, on its
# queue thread; the display says when one came from another thread (vd_present.c): lowlat's.
! grep -F 'from a thread other than the one presenting to it' "$out" ||
	fail "$name: a call the app must synchronise with its presents, made from another thread"
echo "$name: passed"
