#!/usr/bin/env bash
# The `lowlat` wrapper (cli/lowlat.c): run with `env` as the command, so the environment it hands a
# game is printed and checked. No Vulkan involved.
#
#   wrapper.sh LOWLAT_CLI
#
# Asserts: ENABLE_LOWLAT_LAYER=1; --fps/--log become LOWLAT_FPS/LOWLAT_LOG (and are not set without
# them); DXVK_CONFIG gets the three latency settings appended to the user's own, never a second
# value for a key the user set, nor doubled separators; VKD3D_SWAPCHAIN_LATENCY_FRAMES=1 unless the
# user set it; bad arguments exit 2 with a `lowlat:` message; a missing command exits 127.
set -euo pipefail
. "$(dirname "$0")/i386.sh" # wrapper_for
# shellcheck disable=SC2207 # the wrapper is a command and its arguments
cli=($(wrapper_for "$1") "$1")
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
get() { sed -n "s/^$1=//p" <<<"$2"; }

out=$(env -u DXVK_CONFIG -u VKD3D_SWAPCHAIN_LATENCY_FRAMES -u LOWLAT_FPS -u LOWLAT_LOG "${cli[@]}" env)
[ "$(get ENABLE_LOWLAT_LAYER "$out")" = 1 ] || fail "ENABLE_LOWLAT_LAYER not 1"
[ "$(get DXVK_CONFIG "$out")" = "dxvk.latencySleep = True; dxgi.maxFrameLatency = 1; d3d9.maxFrameLatency = 1" ] ||
	fail "DXVK_CONFIG without a user value: '$(get DXVK_CONFIG "$out")'"
[ "$(get VKD3D_SWAPCHAIN_LATENCY_FRAMES "$out")" = 1 ] || fail "VKD3D_SWAPCHAIN_LATENCY_FRAMES not 1"
! grep -q '^LOWLAT_FPS=\|^LOWLAT_LOG=' <<<"$out" || fail "LOWLAT_FPS/LOWLAT_LOG set without --fps/--log"

out=$(DXVK_CONFIG="dxgi.maxFrameRate = 120; dxgi.maxFrameLatency = 2;" VKD3D_SWAPCHAIN_LATENCY_FRAMES=3 \
	"${cli[@]}" --fps 59.94 --log -- env)
[ "$(get LOWLAT_FPS "$out")" = 59.94 ] || fail "--fps 59.94 gave LOWLAT_FPS '$(get LOWLAT_FPS "$out")'"
[ "$(get LOWLAT_LOG "$out")" = 1 ] || fail "--log did not set LOWLAT_LOG=1"
[ "$(get DXVK_CONFIG "$out")" = "dxgi.maxFrameRate = 120; dxgi.maxFrameLatency = 2; dxvk.latencySleep = True; d3d9.maxFrameLatency = 1" ] ||
	fail "the user's DXVK_CONFIG was not kept as it was, or a key of theirs was set again: '$(get DXVK_CONFIG "$out")'"
[ "$(get VKD3D_SWAPCHAIN_LATENCY_FRAMES "$out")" = 3 ] || fail "the user's VKD3D_SWAPCHAIN_LATENCY_FRAMES was replaced"

# --fps=N, and a command with options of its own after the command name.
out=$("${cli[@]}" --fps=30 env -u NOTHING)
[ "$(get LOWLAT_FPS "$out")" = 30 ] || fail "--fps=30 not taken"

# A share of the refresh rate passes as written; the layer resolves it per swapchain.
out=$("${cli[@]}" --fps refresh-3 env)
[ "$(get LOWLAT_FPS "$out")" = refresh-3 ] || fail "--fps refresh-3 not taken"

for bad in "--fps" "--fps sixty" "--fps 0.5" "--fps 20000" "--fps refresh/0" "--fps refresh-x" "--bogus env" ""; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	msg=$("${cli[@]}" $bad 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || fail "lowlat $bad exited $rc, not 2"
	grep -q '^lowlat: ' <<<"$msg" || fail "lowlat $bad said no 'lowlat:' line: $msg"
done
rc=0
"${cli[@]}" -- /nonexistent/game 2>/dev/null || rc=$?
[ "$rc" = 127 ] || fail "a missing command exited $rc, not 127"
# `lowlat ctl` still answers (no game running: 2, with its own message).
rc=0
XDG_RUNTIME_DIR=$(mktemp -d) "${cli[@]}" ctl status 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "lowlat ctl status with no game exited $rc, not 2"
echo "wrapper: ok"
