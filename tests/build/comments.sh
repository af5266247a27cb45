#!/usr/bin/env bash
# tools/check-comments on layer/ passes, and it fails on a comment with a date, a machine's name, a
# file and a function that are not in the tree (so the check can fail).
set -euo pipefail
src=$1
check="$src/tools/check-comments"
"$check" --root "$src"
bad=$(mktemp --suffix=.c)
trap 'rm -f "$bad"' EXIT
printf '/* Moved to present_refresh.h and lowlat_gone_away() on 2026-12-06; on the build VM 2 ms. */\n' >"$bad"
if out=$("$check" --root "$src" "$bad"); then
	echo "FAIL: check-comments passed a comment with a date and stale names: $out" >&2
	exit 1
fi
for want in "a date in a comment: '2026-12-06'" "names a file not in the tree: present_refresh.h" \
	"names a function not in the tree: lowlat_gone_away()" "a run's machine in a comment: 'build VM'"; do
	grep -qF "$want" <<<"$out" || { echo "FAIL: check-comments did not say \"$want\": $out" >&2; exit 1; }
done
echo "check-comments fails a stale comment:"
echo "$out"
