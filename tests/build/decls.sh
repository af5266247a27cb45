#!/usr/bin/env bash
# tools/check-decls on layer/ passes: each function is declared in the header of the file that
# defines it. And it fails on a header that declares another file's function (so the check can fail).
set -euo pipefail
src=$1
check="$src/tools/check-decls"
"$check" --root "$src"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/layer"
printf 'int a_one(void);\nint b_two(int x);\n' >"$dir/layer/a.h"
printf '#include "a.h"\nint a_one(void)\n{\n\treturn 1;\n}\n' >"$dir/layer/a.c"
printf '#include "a.h"\nint b_two(int x)\n{\n\treturn x;\n}\n' >"$dir/layer/b.c"
if out=$("$check" --root "$dir"); then
	echo "FAIL: check-decls passed a header that declares another file's function: $out" >&2
	exit 1
fi
grep -qF "layer/a.h: b_two defined in layer/b.c" <<<"$out" || { echo "FAIL: check-decls did not name b_two: $out" >&2; exit 1; }
if grep -qF "a_one" <<<"$out"; then echo "FAIL: check-decls named a_one, declared in its own header: $out" >&2; exit 1; fi
echo "check-decls fails a declaration in another file's header:"
echo "$out"
