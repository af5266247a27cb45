#!/usr/bin/env bash
# `meson install` puts the library under libdir and the manifest, named for the architecture,
# under share/vulkan/implicit_layer.d, naming the installed library by its absolute path.
set -euo pipefail
build=$1 prefix=$2 libdir=$3 cpu=$4
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
manifest="$dest$prefix/share/vulkan/implicit_layer.d/VkLayer_lowlat.$cpu.json"
[ -f "$manifest" ] || { echo "FAIL: no $manifest; installed: $(cd "$dest" && find . -type f)" >&2; exit 1; }
lib=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["layer"]["library_path"])' "$manifest")
[ "$lib" = "$prefix/$libdir/libVkLayer_lowlat.so" ] || { echo "FAIL: the manifest names $lib" >&2; exit 1; }
[ -f "$dest$lib" ] || { echo "FAIL: $lib was not installed" >&2; exit 1; }
echo "install: $lib and share/vulkan/implicit_layer.d/VkLayer_lowlat.$cpu.json"
