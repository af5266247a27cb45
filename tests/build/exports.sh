#!/usr/bin/env bash
# The layer exports exactly one symbol, vkNegotiateLoaderLayerInterfaceVersion; anything else could
# collide with the loader's or the game's symbols. It must also not need libvulkan (the loader hands
# a layer every function it calls) nor anything else beyond glibc.
set -euo pipefail
lib=$1
sanitize=${2:-none} # meson's b_sanitize: a sanitizer build needs its runtime, nothing else

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
	libasan.so.* | libubsan.so.* | libtsan.so.*) [ "$sanitize" != none ] || {
		echo "FAIL: $lib needs the sanitizer runtime $dso in a build without sanitizers" >&2
		exit 1
	} ;;
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
