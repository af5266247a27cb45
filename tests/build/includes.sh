#!/usr/bin/env bash
# tools/check-includes on layer/ passes: no module (a .c and its .h) and no folder in an include
# circle. And it fails on two modules that include each other (so the check can fail).
set -euo pipefail
src=$1
check="$src/tools/check-includes"
"$check" --root "$src"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/layer"
printf '#include "b.h"\n' >"$dir/layer/a.c"
printf 'struct a;\n' >"$dir/layer/a.h"
printf '#include "a.h"\n' >"$dir/layer/b.c"
printf 'struct b;\n' >"$dir/layer/b.h"
if out=$("$check" --root "$dir"); then
	echo "FAIL: check-includes passed two modules that include each other: $out" >&2
	exit 1
fi
grep -qF "2 modules in a circle" <<<"$out" || { echo "FAIL: check-includes did not name the circle: $out" >&2; exit 1; }
echo "check-includes fails a circle:"
echo "$out"
