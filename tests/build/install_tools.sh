#!/usr/bin/env bash
# The log tools as `meson install` leaves them (tools/meson.build): lowlat-stats and lowlat-plot in
# bindir, executable, finding their shared reader lowlatlog.py where it was installed, and working on
# a log with the standard library alone (python3 -I -S: no site-packages, no PYTHONPATH, not the
# source tree). A DESTDIR install, so the scripts run from where a package would put them.
#
#   install_tools.sh BUILD PREFIX BINDIR DATADIR SOURCE
set -euo pipefail
build=$1 prefix=$2 bindir=$3 datadir=$4 src=$5
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
case $datadir in /*) ;; *) datadir=$prefix/$datadir ;; esac
for tool in lowlat-stats lowlat-plot; do
	[ -x "$dest$bindir/$tool" ] || fail "$bindir/$tool was not installed executable; installed: $(cd "$dest" && find . -type f)"
done
[ -f "$dest$datadir/lowlat/python/lowlatlog.py" ] || fail "$datadir/lowlat/python/lowlatlog.py was not installed"
[ ! -e "$dest$bindir/lowlatlog.py" ] || fail "lowlatlog.py was installed into bindir, where it is no command"

# A log of 4 presents 1/60 s apart (the columns from the source tree's reader, the values by hand).
cols=$(cd "$src/tools" && python3 -c 'import lowlatlog; print(",".join(lowlatlog.COLUMNS))')
log=$dest/vkcube-20260101-000000-1.csv
{
	echo "# lowlat present log v1; one row per present; (install_tools.sh)"
	echo "$cols"
	for i in 0 1 2 3; do
		python3 - "$cols" "$i" <<'PY'
import sys
cols, i = sys.argv[1].split(","), int(sys.argv[2])
t = 5_000_000_000 + i * 16_666_667
row = {"frame": i, "frame_start_ns": t - 5_000_000, "present_ns": t, "present_mode": "FIFO", "fallback": "cpu"}
print(",".join(str(row.get(c, "")) for c in cols))
PY
	done
	echo "# closed: 4 records written, 0 dropped"
} >"$log"

# Run as the player would (PATH), and with the standard library alone.
out=$(PATH="$dest$bindir:$PATH" lowlat-stats "$log") || fail "the installed lowlat-stats failed: $out"
grep -Eq '^frames +4$' <<<"$out" || fail "lowlat-stats did not count 4 frames: $out"
grep -Eq '^mean fps +60\.00$' <<<"$out" || fail "lowlat-stats did not find 60 fps: $out"
python3 -I -S "$dest$bindir/lowlat-stats" --json "$log" >"$dest/stats.json" ||
	fail "lowlat-stats needs more than Python's standard library"
python3 -I -S "$dest$bindir/lowlat-plot" "$log" -o "$dest/plot.svg" ||
	fail "lowlat-plot needs more than Python's standard library"
grep -q '<svg' "$dest/plot.svg" || fail "lowlat-plot wrote no SVG"
echo "install: $bindir/lowlat-stats and lowlat-plot, $datadir/lowlat/python/lowlatlog.py; the installed lowlat-stats read 4 frames at 60.00 fps"
