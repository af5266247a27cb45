#!/usr/bin/env bash
# tests/build/layer_check.sh SRC CHECK — one of the layer's checks (tools/check-CHECK: comments,
# includes or decls) passes on SRC's layer/, and fails on a small tree made to break it, saying
# what is wrong there (so the check can fail).
set -euo pipefail
src=$1 name=$2
check="$src/tools/check-$name"
"$check" --root "$src"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/layer"
args=(--root "$dir")
unwanted=""
case $name in
comments)
	# A date, a machine's name, and a file and a function that are not in the tree.
	printf '/* Moved to present_refresh.h and lowlat_gone_away() on 2026-12-06; on the build VM 2 ms. */\n' \
		>"$dir/bad.c"
	args=(--root "$src" "$dir/bad.c")
	want=("a date in a comment: '2026-12-06'" "names a file not in the tree: present_refresh.h"
		"names a function not in the tree: lowlat_gone_away()" "a run's machine in a comment: 'build VM'")
	;;
includes)
	# Two modules that include each other.
	printf '#include "b.h"\n' >"$dir/layer/a.c"
	printf 'struct a;\n' >"$dir/layer/a.h"
	printf '#include "a.h"\n' >"$dir/layer/b.c"
	printf 'struct b;\n' >"$dir/layer/b.h"
	want=("2 modules in a circle")
	;;
decls)
	# A header that declares another file's function beside its own.
	printf 'int a_one(void);\nint b_two(int x);\n' >"$dir/layer/a.h"
	printf '#include "a.h"\nint a_one(void)\n{\n\treturn 1;\n}\n' >"$dir/layer/a.c"
	printf '#include "a.h"\nint b_two(int x)\n{\n\treturn x;\n}\n' >"$dir/layer/b.c"
	want=("layer/a.h: b_two defined in layer/b.c")
	unwanted=a_one
	;;
*)
	echo "layer_check.sh: no check named '$name' (comments, includes or decls)" >&2
	exit 2
	;;
esac
if out=$("$check" "${args[@]}"); then
	echo "FAIL: check-$name passed the tree made to fail it: $out" >&2
	exit 1
fi
for w in "${want[@]}"; do
	grep -qF "$w" <<<"$out" || { echo "FAIL: check-$name did not say \"$w\": $out" >&2; exit 1; }
done
if [ -n "$unwanted" ] && grep -qF "$unwanted" <<<"$out"; then
	echo "FAIL: check-$name named $unwanted, which is in order: $out" >&2
	exit 1
fi
echo "check-$name fails the tree made to break it:"
echo "$out"
