#!/usr/bin/env bash
# The loader inserts lowlat when ENABLE_LOWLAT_LAYER=1, not without it, and not when
# DISABLE_LOWLAT_LAYER=1 is set as well. vulkaninfo lists implicit layers whether or not they are
# enabled, so the loader's own `Insert instance layer` line is what counts.
. "$(dirname "$0")/lib.sh"

inserted() {
	env "$@" VK_LOADER_DEBUG=layer LD_PRELOAD="${E2E_PRELOAD:-}" vulkaninfo --summary 2>&1 |
		grep -c 'Insert instance layer "VK_LAYER_LOWLAT_limiter"' || true
}

[ "$(inserted ENABLE_LOWLAT_LAYER=1)" = 1 ] || fail "ENABLE_LOWLAT_LAYER=1 did not insert the layer"
[ "$(inserted)" = 0 ] || fail "the layer was inserted without ENABLE_LOWLAT_LAYER"
[ "$(inserted ENABLE_LOWLAT_LAYER=1 DISABLE_LOWLAT_LAYER=1)" = 0 ] ||
	fail "DISABLE_LOWLAT_LAYER=1 did not keep the layer out"

# The layer must not stop a plain instance from working: vulkaninfo enumerates every device.
ENABLE_LOWLAT_LAYER=1 client vulkaninfo --summary >"$e2e_tmp/summary" 2>&1 ||
	fail "vulkaninfo failed with the layer: $(tail -n 5 "$e2e_tmp/summary")"
grep -q 'deviceName' "$e2e_tmp/summary" || fail "vulkaninfo listed no device with the layer"
echo "layer insertion: enabled, absent and disabled cases all as expected"
