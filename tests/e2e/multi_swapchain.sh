#!/usr/bin/env bash
# tests/e2e/multi_swapchain.sh — issue 2, end-to-end test 3.
#
#   multi_swapchain.sh [--no-layer] APP [FRAMES]
#
# Runs tests/apps/multi_swapchain (two devices, two swapchains, a mid-run recreate, presents from
# threads other than the creating one) with the Khronos validation layer BELOW lowlat, so validation
# checks what lowlat passes down. Fails on a non-zero exit, on any validation error or warning, when
# the loader did not insert both layers in that order, or when lowlat's per-swapchain summaries do
# not add up to the frames the app presented on each swapchain.
#
# --no-layer runs the same app with validation only: it must be clean without lowlat too, so that
# a message in the first run can be blamed on the layer.
#
# Needs VK_ADD_IMPLICIT_LAYER_PATH naming the build-tree manifest (meson test sets it) and an X
# display (tools/testroot starts Xvfb).
set -euo pipefail

layer=1
if [ "${1:-}" = --no-layer ]; then
	layer=0
	shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [--no-layer] APP [FRAMES]" >&2; exit 2; }
app=$1
frames=${2:-200}
name=multi-swapchain$([ "$layer" = 1 ] || echo -no-layer)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/stdout
err=$work/stderr
vlog=$work/validation.log

fail() {
	echo "$name: FAIL: $*" >&2
	echo "--- app stdout:" >&2
	cat "$out" >&2 || true
	# The loader's layer log is long; the app's, lowlat's and validation's own lines are what help.
	echo "--- app stderr (without loader lines):" >&2
	grep -v '^\[Vulkan Loader\]' "$err" >&2 || true
	echo "--- validation log:" >&2
	head -c 8000 "$vlog" >&2 || true
	[ -f "$vlog" ] && echo "($(grep -c "^Validation" "$vlog" || true) validation messages in all)" >&2
	exit 1
}

# Validation's settings through its environment variables: write every error and warning to a
# file of our own, which must end up empty. (The file is created at instance creation, so its
# absence means validation never ran with these settings.)
env_vars=(
	VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
	VK_KHRONOS_VALIDATION_DEBUG_ACTION=VK_DBG_LAYER_ACTION_LOG_MSG
	VK_KHRONOS_VALIDATION_LOG_FILENAME="$vlog"
	VK_KHRONOS_VALIDATION_REPORT_FLAGS=error,warn
	# Synchronization validation too: the app's barriers and semaphores are the point of it.
	VK_KHRONOS_VALIDATION_VALIDATE_SYNC=true
	VK_LOADER_DEBUG=layer
)
if [ "$layer" = 1 ]; then
	[ -n "${VK_ADD_IMPLICIT_LAYER_PATH:-}" ] || fail "VK_ADD_IMPLICIT_LAYER_PATH is not set (run through meson test)"
	env_vars+=(ENABLE_LOWLAT_LAYER=1 LOWLAT_VERBOSE=1)
	unset_vars=(-u DISABLE_LOWLAT_LAYER)
else
	unset_vars=(-u ENABLE_LOWLAT_LAYER)
fi

status=0
env "${unset_vars[@]}" "${env_vars[@]}" "$app" "$frames" >"$out" 2>"$err" || status=$?
[ "$status" = 0 ] || fail "$app exited with status $status"

# The chain, from the loader's own account (vulkaninfo-style listings show layers that are merely
# available; only these lines show layers really inserted).
grep -q 'Insert instance layer "VK_LAYER_KHRONOS_validation"' "$err" ||
	fail "the loader did not insert VK_LAYER_KHRONOS_validation"
chain=$(sed -n '/vkCreateInstance layer callstack setup to:/,/<Drivers>/p' "$err" |
	grep -o 'VK_LAYER_[A-Za-z0-9_]*$' | tr '\n' ' ')
if [ "$layer" = 1 ]; then
	grep -q 'Insert instance layer "VK_LAYER_LOWLAT_limiter"' "$err" ||
		fail "the loader did not insert VK_LAYER_LOWLAT_limiter"
	# The callstack lists layers from the application down: lowlat must come before validation.
	case "$chain" in
	*VK_LAYER_LOWLAT_limiter*VK_LAYER_KHRONOS_validation*) ;;
	*) fail "validation is not below lowlat; instance chain: $chain" ;;
	esac
else
	! grep -q 'Insert instance layer "VK_LAYER_LOWLAT_limiter"' "$err" ||
		fail "lowlat was inserted although ENABLE_LOWLAT_LAYER is unset"
fi

[ -f "$vlog" ] || fail "validation wrote no log file: its settings were not applied"
[ ! -s "$vlog" ] || fail "validation reported errors or warnings"

summary=$(grep '^multi_swapchain: device0' "$out" | tail -n 1)
re='^multi_swapchain: device0 ([0-9]+) frames, device1 ([0-9]+) frames, ([0-9]+) recreates?$'
[[ $summary =~ $re ]] || fail "no final summary line from the app"
[ "${BASH_REMATCH[1]}" = "$frames" ] && [ "${BASH_REMATCH[2]}" = "$frames" ] ||
	fail "expected $frames frames on each device: $summary"
[ "${BASH_REMATCH[3]}" -ge 1 ] || fail "the app did not recreate a swapchain: $summary"

if [ "$layer" = 1 ]; then
	# lowlat prints `lowlat: swapchain WxH MODE, N images: K presents ...` as each swapchain is
	# destroyed. The app's windows are 320x240 (device0, recreated) and 256x192 (device1): lowlat
	# must have seen every present of both, across both of device0's swapchains.
	for size in 320x240:2 256x192:1; do
		extent=${size%:*}
		min_chains=${size#*:}
		lines=$(grep -c "^lowlat: swapchain $extent " "$err" || true)
		presents=$(sed -n "s/^lowlat: swapchain $extent [A-Z_]*, [0-9]* images: \([0-9]*\) presents.*/\1/p" "$err" |
			awk '{ n += $1 } END { print n + 0 }')
		[ "$lines" -ge "$min_chains" ] ||
			fail "lowlat summarised $lines swapchain(s) of $extent, expected at least $min_chains"
		[ "$presents" = "$frames" ] ||
			fail "lowlat counted $presents presents on $extent swapchains, the app presented $frames"
	done
	grep '^lowlat: swapchain ' "$err"
fi
echo "$summary"
echo "$name: PASS"
