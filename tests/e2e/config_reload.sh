#!/usr/bin/env bash
# Live reload in a running game: vkcube starts capped at 30 fps by its game file; about 1.5 s in,
# the file is rewritten to 120 fps. lowlat must say it reloaded, and the present log must show the
# new interval taking hold within a second of the edit (the check runs at most once a second), on
# the same CLOCK_MONOTONIC the edit was stamped with. The bound is 1.5 s: one second, a frame at
# the old cap, and room for this shared machine's stalls.
. "$(dirname "$0")/lib.sh"

game=$XDG_CONFIG_HOME/lowlat/games/vkcube.json
echo '{"fps": 30}' >"$game"
logs=$e2e_tmp/logs
now_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

LOWLAT_LOG=1 LOWLAT_LOG_DIR=$logs run_validated reload vkcube --c 300 &
client=$!
sleep 1.5
echo '{"fps": 120}' >"$game"
edit_ns=$(now_ns)
wait "$client" || fail "the vkcube run failed (above)"

out=$e2e_tmp/reload.out
grep -q "^lowlat: config: reloaded .*vkcube.json" "$out" ||
	fail "lowlat did not report the reload: $(grep '^lowlat: config' "$out")"
log=$(find "$logs" -name '*.csv' | head -n 1)
[ -n "$log" ] || fail "no present log in $logs"

# The first frame paced at the new interval (targets 1/120 s apart, not 1/30 s).
python3 - "$log" "$edit_ns" <<'PY' || fail "the new cap did not take hold in time (above)"
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
head, rows = rows[0], rows[1:]
col = {name: i for i, name in enumerate(head)}
edit = int(sys.argv[2])
targets = [(int(r[col["present_ns"]]), int(r[col["target_ns"]])) for r in rows if r[col["target_ns"]]]
switch = None
for (t0, a), (t1, b) in zip(targets, targets[1:]):
    if t1 > edit and 0 < b - a < 20_000_000:   # under 20 ms: the 120 fps grid (8.3 ms), not 33.3 ms
        switch = t1
        break
if switch is None:
    sys.exit("no frame at the new interval after the edit")
delay = (switch - edit) / 1e9
print(f"config reload: the 120 fps cap took hold {delay * 1000:.0f} ms after the edit")
if not 0 <= delay <= 1.5:
    sys.exit(f"took hold {delay:.3f} s after the edit (bound 1.5 s)")
PY
