#!/usr/bin/env bash
# The layer exports exactly one symbol, vkNegotiateLoaderLayerInterfaceVersion; anything else could
# collide with the loader's or the game's symbols. It must also not need libvulkan: the loader hands
# a layer every function it calls.
set -euo pipefail
lib=$1

exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
[ "$exports" = vkNegotiateLoaderLayerInterfaceVersion ] || {
	echo "FAIL: $lib exports: $exports" >&2
	exit 1
}
if readelf -d "$lib" | grep -q 'NEEDED.*libvulkan'; then
	echo "FAIL: $lib links libvulkan" >&2
	exit 1
fi
readelf -d "$lib" | grep -q SYMBOLIC || {
	echo "FAIL: $lib is not linked with -Bsymbolic" >&2
	exit 1
}
echo "exports: only vkNegotiateLoaderLayerInterfaceVersion; no libvulkan; -Bsymbolic"
