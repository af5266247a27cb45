#!/usr/bin/env bash
# A real client through lowlat with validation below it: vkcube (C) or vkcubepp (C++), 500 frames.
# Fails on a non-zero exit, any validation message, a chain without validation under lowlat, or
# presents that did not pass through lowlat's present hook.
. "$(dirname "$0")/lib.sh"

client=${1:-vkcube}
frames=500

run_validated "$client" "$client" --c "$frames"
presents=$(summary_presents "$e2e_tmp/$client.out")
[ -n "$presents" ] || fail "$client: lowlat printed no swapchain summary, so its hooks never ran"
# vkcube presents once per frame, plus at most a few frames around its swapchain setup.
[ "$presents" -ge "$frames" ] && [ "$presents" -le $((frames + 5)) ] ||
	fail "$client: lowlat saw $presents presents for $frames frames"
echo "$client: $presents presents through lowlat, validation clean"
