#!/usr/bin/env bash
# tests/vkd3d/build.sh THIRD_PARTY APP_SOURCE OUTDIR — builds vkd3d-proton and our D3D12 program.
#
# THIRD_PARTY holds vkd3d-proton/ (the unmodified source of the version Proton ships, with its
# submodules; UPSTREAM_COMMITS names them). It is copied to OUTDIR/src and built there with meson:
# the two libraries a D3D12 program loads (libvkd3d-proton-d3d12 and -d3d12core) and its own gears
# demo (OUTDIR/build/demos/gears); a copy whose commits are unchanged is rebuilt in place (ninja's
# own incremental build). APP_SOURCE (tests/apps/d3d12/d3d12_frames.c) is then compiled against that
# build into OUTDIR/d3d12_frames, which finds the libraries through its rpath.
set -euo pipefail

third_party=$1
app=$2
# Absolute: the program's rpath names the libraries' folders.
out=$(mkdir -p "$3" && cd "$3" && pwd)
src=$out/src
build=$out/build
stamp=$(sha256sum <"$third_party/vkd3d-proton/UPSTREAM_COMMITS" | cut -c1-16)

if [ "$(cat "$src/.lowlat-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src" "$build"
	cp -r "$third_party/vkd3d-proton" "$src"
	chmod -R u+w "$src"
	echo "$stamp" >"$src/.lowlat-stamp"
fi
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" --buildtype release -Denable_extras=true >"$out/setup.log" 2>&1 || {
		tail -n 30 "$out/setup.log" >&2
		exit 1
	}
fi
ninja -C "$build" libs/d3d12/libvkd3d-proton-d3d12.so libs/d3d12core/libvkd3d-proton-d3d12core.so demos/gears \
	>"$out/ninja.log" 2>&1 || {
	tail -n 30 "$out/ninja.log" >&2
	exit 1
}
# The include paths and libraries vkd3d-proton's own demos build with (its demos/meson.build).
cc -std=c11 -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers -D_GNU_SOURCE -pthread \
	-I"$build/include" -I"$src/include" -I"$src/khronos/Vulkan-Headers/include" \
	-I"$build/libs/vkd3d-common/libvkd3d_common.a.p" \
	-o "$out/d3d12_frames" "$app" \
	"$build/libs/d3d12/libvkd3d-proton-d3d12.so" \
	-Wl,-rpath,"$build/libs/d3d12:$build/libs/d3d12core" -lxcb -ldl -lm
