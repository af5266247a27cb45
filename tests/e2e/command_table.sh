#!/usr/bin/env bash
# Every command of every extension lowlat passes through, provides or hides resolves to a function
# the app can call (tests/apps/command_table.c), with validation below lowlat, for each way the
# extension can reach the device:
#
#   command_table.sh APP VDISPLAY_MANIFEST_DIR LISTING_MANIFEST_DIR CASE
#
# CASE lavapipe: the driver alone (an X window): it has no present ids, so lowlat cannot provide
#      VK_NV_low_latency2 and must not list it (the loader used to list it from lowlat's manifest,
#      and vkd3d-proton then called a NULL vkSetLatencySleepModeNV).
#      vdisplay: the virtual display below (headless): present ids, no VK_NV_low_latency2: lowlat
#      provides it and says so.
#      listing: the driver alone, with an implicit layer whose manifest lists VK_NV_low_latency2 (the
#      faults layer, which implements nothing of it): the loader puts the name in the driver's list,
#      the driver's vkCreateDevice drops it; lowlat must see that the commands are missing below and
#      provide them.
#      anti-lag: Mesa's anti-lag layer and the virtual display below: VK_AMD_anti_lag passed through.
#      vdisplay-nvidia: the virtual display's nvidia profile, whose driver has VK_NV_low_latency2:
#      lowlat passes it through, and the display (not lowlat) signals the sleep's semaphore.
. "$(dirname "$0")/lib.sh"

app=$1 vdisplay=$2 listing=$3 case=$4
name=command-table-$case
args=()

case $case in
lavapipe) ;;
vdisplay)
	export VK_ADD_LAYER_PATH="$vdisplay" E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay
	args=(--headless)
	;;
listing)
	# An implicit layer is found where lowlat's build-tree manifest is (lib.sh links those into
	# the implicit directory); LOWLAT_TEST_LISTING_LAYER enables it.
	ln -s "$listing"/*.json "$XDG_DATA_HOME/vulkan/implicit_layer.d/"
	export LOWLAT_TEST_LISTING_LAYER=1
	;;
vdisplay-nvidia)
	export VK_ADD_LAYER_PATH="$vdisplay" E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay LOWLAT_VDISPLAY_PROFILE=nvidia
	args=(--headless)
	;;
anti-lag)
	if ! implicit_layer_installed VkLayer_MESA_anti_lag.json; then
		echo "$name: skipped: Mesa's anti-lag layer (VkLayer_MESA_anti_lag.json) is not installed"
		exit 77
	fi
	export VK_ADD_LAYER_PATH="$vdisplay" E2E_LAYERS_UNDER=VK_LAYER_MESA_anti_lag:VK_LAYER_LOWLAT_vdisplay
	args=(--headless)
	;;
*) fail "unknown case $case" ;;
esac

out=$e2e_tmp/$name.out
if [ "$case" = listing ]; then
	# No validation below lowlat here: it hands out its own wrapper of every command of an
	# extension the create info enables, so the commands the driver lacks would look present to
	# lowlat as to any layer above it (and the wrappers call nothing). A player's stack has none.
	rc=0
	ENABLE_LOWLAT_LAYER=1 LOWLAT_VERBOSE=1 VK_LOADER_DEBUG=layer client timeout 60 "$app" >"$out" 2>&1 || rc=$?
	grep -v '^\[Vulkan Loader\]' "$out" | tail -n 20 >&2
	[ "$rc" = 0 ] || fail "$name exited with status $rc"
else
	run_validated "$name" "$app" "${args[@]}"
fi
grep '^command_table: ' "$out"
listed=$(sed -n 's/^command_table: listed: //p' "$out")
called=$(sed -n 's/^command_table: .* commands resolved, \([0-9]*\) called$/\1/p' "$out")
[ -n "$called" ] || fail "$name: the app printed no summary"
lists() { [[ " $listed " == *" $1 "* ]]; }
provided() { grep -F "lowlat: VK_NV_low_latency2 provided by lowlat (" "$out" | grep -qF "$1"; }

case $case in
lavapipe)
	! lists VK_NV_low_latency2 ||
		fail "$name: VK_NV_low_latency2 is listed on a device without present ids, which it requires"
	;;
vdisplay)
	lists VK_NV_low_latency2 || fail "$name: lowlat did not list VK_NV_low_latency2 on a device with present ids"
	provided "driver lacks it" || fail "$name: lowlat did not say it provides VK_NV_low_latency2"
	[ "$called" -ge 5 ] || fail "$name: VK_NV_low_latency2's commands were not called"
	;;
listing)
	grep -q 'Insert instance layer "VK_LAYER_LOWLAT_faults_listing"' "$out" ||
		fail "$name: the listing layer was not loaded"
	lists VK_NV_low_latency2 || fail "$name: the loader did not list the listing layer's extension"
	provided "lacks its commands" ||
		fail "$name: lowlat did not say it provides the commands the driver lacks"
	[ "$called" -ge 5 ] || fail "$name: VK_NV_low_latency2's commands were not called"
	;;
vdisplay-nvidia)
	lists VK_NV_low_latency2 || fail "$name: VK_NV_low_latency2 is not listed on the nvidia profile"
	grep -qF 'lowlat: VK_NV_low_latency2 passed through' "$out" ||
		fail "$name: lowlat did not pass the driver's VK_NV_low_latency2 through"
	[ "$called" -ge 5 ] || fail "$name: VK_NV_low_latency2's commands were not called"
	;;
anti-lag)
	lists VK_AMD_anti_lag || fail "$name: VK_AMD_anti_lag is not listed above Mesa's anti-lag layer"
	[ "$called" -ge 6 ] || fail "$name: VK_AMD_anti_lag's or VK_NV_low_latency2's commands were not all called"
	;;
esac
echo "$name: passed"
