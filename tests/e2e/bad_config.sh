#!/bin/sh
# bad_config.sh — absurd LOWLAT_FPS / LOWLAT_METHOD through the real layer: each is reported once,
# as one `lowlat:` line naming the variable, the value and what is used instead, and the frames
# pass through (limiter off). The wording itself is pinned by the unit test of the parser.
#
# Expects VK_ADD_IMPLICIT_LAYER_PATH and ENABLE_LOWLAT_LAYER=1 (meson test sets them). Exit 77 =
# skipped (no vkcube, no display).
set -eu

command -v vkcube >/dev/null || { echo "SKIP: vkcube not found"; exit 77; }
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || { echo "SKIP: no display (run under tools/testroot)"; exit 77; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
LOWLAT_FPS=1e9 LOWLAT_METHOD=fast LOWLAT_VERBOSE=1 vkcube --c 30 >"$out" 2>&1 || {
	cat "$out"
	echo "FAIL: vkcube exited with an error"
	exit 1
}
cat "$out"

expect_once() {
	n=$(grep -cF "$1" "$out" || true)
	[ "$n" = 1 ] || { echo "FAIL: expected one line containing '$1', found $n"; exit 1; }
}
expect_once 'lowlat: LOWLAT_FPS=1e9 is above 10000 fps'
expect_once 'the limiter is off (frames pass through)'
expect_once 'lowlat: LOWLAT_METHOD=fast is not late or early; using late'
expect_once 'lowlat: limiter off'
expect_once '30 presents in '
grep -F 'lowlat: swapchain ' "$out" | grep -qF '; limiter off' || { echo "FAIL: summary does not say limiter off"; exit 1; }
echo "ok"
