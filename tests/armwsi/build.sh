#!/usr/bin/env bash
# tests/armwsi/build.sh THIRD_PARTY OUTDIR — builds Arm's Vulkan WSI layer for the tests.
#
# THIRD_PARTY holds vulkan-wsi-layer/ (the unmodified upstream source) and patches/*.diff (test-only
# changes: calibration through VK_EXT_calibrated_timestamps, which lavapipe has instead of the KHR
# form, and WSI_HEADLESS_REFRESH_NS, a simulated refresh cycle). The source is copied, patched and
# built with cmake under OUTDIR/src; the layer's library and manifest end up in OUTDIR. A copy whose
# upstream commit and patches are unchanged is rebuilt in place (cmake's own incremental build).
set -euo pipefail

third_party=$1
out=$2
src=$out/src
stamp=$( (cat "$third_party/vulkan-wsi-layer/UPSTREAM_COMMIT"; cat "$third_party"/patches/*.diff) | sha256sum | cut -c1-16)

if [ "$(cat "$src/.lowlat-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src"
	cp -r "$third_party/vulkan-wsi-layer" "$src"
	chmod -R u+w "$src"
	for p in "$third_party"/patches/*.diff; do
		patch -s -d "$src" -p1 <"$p"
	done
	echo "$stamp" >"$src/.lowlat-stamp"
fi
cmake -G Ninja -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_WSI_HEADLESS=ON \
	-DVULKAN_WSI_LAYER_EXPERIMENTAL=ON -Wno-dev >/dev/null
cmake --build "$src/build" >/dev/null
cp "$src/build/libVkLayer_window_system_integration.so" "$src/build/VkLayer_window_system_integration.json" "$out/"
