#!/usr/bin/env bash
# A packager's build: `meson setup -Dtests=disabled` defines the layer, the lowlat command and the
# tools, and no target of tests/ (so none is compiled or installed).
set -euo pipefail
src=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

meson setup "$dir/build" "$src" -Dtests=disabled >"$dir/setup.log" 2>&1 || {
	cat "$dir/setup.log" >&2
	echo "FAIL: meson setup -Dtests=disabled failed" >&2
	exit 1
}
meson introspect --targets "$dir/build" >"$dir/targets.json"
python3 - "$src" "$dir/targets.json" <<'PY'
import json, os, sys
src, targets = os.path.realpath(sys.argv[1]), json.load(open(sys.argv[2]))
tests = [t["name"] for t in targets if os.path.realpath(t["defined_in"]).startswith(os.path.join(src, "tests") + os.sep)]
names = {t["name"] for t in targets}
if tests:
    sys.exit(f"FAIL: -Dtests=disabled still defines {len(tests)} test targets: {' '.join(sorted(tests)[:10])}")
for want in ("VkLayer_lowlat", "lowlat"):
    if want not in names:
        sys.exit(f"FAIL: no {want} target with -Dtests=disabled (targets: {' '.join(sorted(names))})")
print(f"-Dtests=disabled: {len(targets)} targets ({' '.join(sorted(names))}), none from tests/")
PY
