#!/usr/bin/env bash
# Quiet by default (layer/log/message.h): at the default verbosity a process that never creates a
# swapchain says nothing, even with a bad config file, and opens no control socket; a game capping
# says one line per swapchain (its cap and pacing) and the bad config's line, and nothing that
# only LOWLAT_VERBOSE=1 says; uncapped, nothing at all. With LOWLAT_VERBOSE=1 vulkaninfo does
# print lowlat's lines, so the silence above is lowlat's, not a capture that missed them.
. "$(dirname "$0")/lib.sh"

export XDG_RUNTIME_DIR=$e2e_tmp/run
mkdir -m 0700 "$XDG_RUNTIME_DIR"
echo '{"fps": "sixty"}' >"$XDG_CONFIG_HOME/lowlat/default.json"
bad="lowlat: $XDG_CONFIG_HOME/lowlat/default.json: \"fps\": \"sixty\" is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; using 0 (off)"

# lowlat_lines OUT: the lines lowlat said (vulkaninfo also lists the layer's description, which
# contains "lowlat:" mid-line; lowlat's own lines start with it).
lowlat_lines() { grep '^lowlat:' "$1" || true; }

command -v vulkaninfo >/dev/null || fail "no vulkaninfo in the test environment"
ENABLE_LOWLAT_LAYER=1 VK_LOADER_DEBUG=layer client vulkaninfo >"$e2e_tmp/info.out" 2>&1 ||
	fail "vulkaninfo failed: $(tail -n 5 "$e2e_tmp/info.out")"
grep -q 'Insert instance layer "VK_LAYER_LOWLAT_limiter"' "$e2e_tmp/info.out" ||
	fail "lowlat was not in vulkaninfo's chain, so its silence proves nothing"
[ -z "$(lowlat_lines "$e2e_tmp/info.out")" ] ||
	fail "ENABLE_LOWLAT_LAYER=1 vulkaninfo printed: $(lowlat_lines "$e2e_tmp/info.out")"
[ -z "$(ls -A "$XDG_RUNTIME_DIR/lowlat" 2>/dev/null)" ] ||
	fail "vulkaninfo, which presents nothing, opened a control socket: $(ls "$XDG_RUNTIME_DIR/lowlat")"

ENABLE_LOWLAT_LAYER=1 LOWLAT_VERBOSE=1 client vulkaninfo >"$e2e_tmp/info-verbose.out" 2>&1 ||
	fail "vulkaninfo (LOWLAT_VERBOSE=1) failed"
grep -qxF "$bad" "$e2e_tmp/info-verbose.out" && grep -q '^lowlat: active in "' "$e2e_tmp/info-verbose.out" ||
	fail "LOWLAT_VERBOSE=1 vulkaninfo did not print lowlat's lines: $(lowlat_lines "$e2e_tmp/info-verbose.out")"

# A game, capped: the held bad-config line and the one cap line, each once, and nothing else.
ENABLE_LOWLAT_LAYER=1 LOWLAT_FPS=60 client timeout 60 vkcube --c 60 >"$e2e_tmp/capped.out" 2>&1 ||
	fail "vkcube failed: $(tail -n 5 "$e2e_tmp/capped.out")"
# The cap line's reason is the device's (lavapipe has no present timing), or on a build against
# headers older than VK_EXT_present_timing (Debian 12's), the build's.
lines=$(lowlat_lines "$e2e_tmp/capped.out")
cap='lowlat: 500x500: capped at 60 fps, paced on the CPU clock'
[ "$(printf '%s\n' "$lines" | wc -l)" = 2 ] && [ "$(printf '%s\n' "$lines" | head -n 1)" = "$bad" ] &&
	printf '%s\n' "$lines" | tail -n 1 | grep -qxE "$cap \((the device lacks|lowlat was built without) VK_EXT_present_timing( headers)?\)" ||
	fail "a capped vkcube printed, at the default level:
$(lowlat_lines "$e2e_tmp/capped.out")
expected:
$bad
$cap (the device lacks VK_EXT_present_timing)"

# Uncapped and a good config: not a word.
rm "$XDG_CONFIG_HOME/lowlat/default.json"
ENABLE_LOWLAT_LAYER=1 client timeout 60 vkcube --c 60 >"$e2e_tmp/uncapped.out" 2>&1 ||
	fail "vkcube failed: $(tail -n 5 "$e2e_tmp/uncapped.out")"
[ -z "$(lowlat_lines "$e2e_tmp/uncapped.out")" ] ||
	fail "an uncapped vkcube printed: $(lowlat_lines "$e2e_tmp/uncapped.out")"
echo "quiet: vulkaninfo silent (and no socket), a capped vkcube one cap line and its config problem, uncapped nothing"
