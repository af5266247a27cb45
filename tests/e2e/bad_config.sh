#!/usr/bin/env bash
# Absurd settings through the real layer: each is reported once, as one `lowlat:` line naming the
# variable, the value and what is used instead, and the frames pass through with the limiter off.
# The exact wording of every message is pinned by the config module's unit tests.
. "$(dirname "$0")/lib.sh"

LOWLAT_FPS=1e9 LOWLAT_METHOD=fast run_validated bad vkcube --c 30
out=$e2e_tmp/bad.out

expect_once() {
	local n
	n=$(grep -cF -- "$1" "$out" || true)
	[ "$n" = 1 ] || fail "expected one line containing '$1', found $n"
}
expect_once 'lowlat: LOWLAT_FPS=1e9 is out of range (0 = off, or 1 to 10000); using 0 (off)'
expect_once 'lowlat: LOWLAT_METHOD=fast is not '
[ "$(summary_presents "$out")" = 30 ] || fail "lowlat did not see the 30 presents"
grep '^lowlat: swapchain ' "$out" | grep -qF '; limiter off' || fail "the summary does not say limiter off"
echo "bad settings: each reported once, frames passed through with the limiter off"
