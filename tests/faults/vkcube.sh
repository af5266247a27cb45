#!/usr/bin/env bash
# vkcube (a client we did not write) through lowlat with the faults layer below: an OUT_OF_DATE
# present and an OUT_OF_DATE acquire, which vkcube answers by recreating its swapchain. It must
# finish its frames with a clean exit and silent validation, and lowlat must have counted the failed
# present and at least every frame over the two swapchains.
#
#   vkcube.sh FRAMES
. "$(dirname "$0")/../e2e/lib.sh"

frames=${1:-300}
: "${FAULTS_MANIFEST_DIR:?set by meson: the directory holding the manifest of the faults layer}"
ln -s "$FAULTS_MANIFEST_DIR" "$e2e_tmp/xdg/vulkan/explicit_layer.d"
export LOWLAT_FAULTS="vkQueuePresentKHR=VK_ERROR_OUT_OF_DATE_KHR@$((frames / 3)),vkAcquireNextImageKHR=VK_ERROR_OUT_OF_DATE_KHR@$((frames * 2 / 3))"
E2E_LAYERS_BELOW=VK_LAYER_LOWLAT_faults

run_validated vkcube vkcube --c "$frames"
out=$e2e_tmp/vkcube.out
[ "$(grep -c '^faults: .* -> VK_ERROR_OUT_OF_DATE_KHR$' "$out")" = 2 ] || fail "the faults layer did not inject both faults"
swapchains=$(summary_presents "$out" | wc -l)
presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
failed=$(sed -n 's/^lowlat: swapchain .* presents in .*, \([0-9]*\) failed.*/\1/p' "$out" | awk '{ n += $1 } END { print n + 0 }')
[ "$swapchains" -ge 3 ] || fail "lowlat saw $swapchains swapchains; vkcube recreates one per fault"
[ "$failed" = 1 ] || fail "lowlat counted $failed failed presents, the faults layer failed 1"
# vkcube counts the failed present as a frame, and presents a few around its swapchain setup.
[ "$presents" -ge $((frames - 1)) ] && [ "$presents" -le $((frames + 5)) ] ||
	fail "lowlat counted $presents presents for $frames frames"
echo "vkcube: $frames frames through two OUT_OF_DATE faults, $swapchains swapchains, lowlat counted $presents presents and $failed failure"
