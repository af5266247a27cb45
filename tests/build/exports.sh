#!/usr/bin/env bash
# The layer exports exactly one symbol, vkNegotiateLoaderLayerInterfaceVersion; anything else could
# collide with the loader's or the game's symbols. It must also not need libvulkan (the loader hands
# a layer every function it calls) nor anything else beyond glibc.
set -euo pipefail
lib=$1

exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
[ "$exports" = vkNegotiateLoaderLayerInterfaceVersion ] || {
	echo "FAIL: $lib exports: $exports" >&2
	exit 1
}
# The Steam Linux Runtime's container (pressure-vessel) imports the host's Vulkan layers but not
# arbitrary host libraries: the layer may need glibc alone at run time.
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for dso in $needed; do
	case "$dso" in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
	*)
		echo "FAIL: $lib needs $dso at run time; only glibc is available everywhere (needs: $needed)" >&2
		exit 1
		;;
	esac
done
readelf -d "$lib" | grep -q SYMBOLIC || {
	echo "FAIL: $lib is not linked with -Bsymbolic" >&2
	exit 1
}
echo "exports: only vkNegotiateLoaderLayerInterfaceVersion; needs only glibc ($needed); -Bsymbolic"
