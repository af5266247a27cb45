#!/usr/bin/env bash
# Live reload in a running game: vkcube starts capped at 30 fps by its game file; once lowlat's
# present log shows it paced at that cap (10 rows with 1/30 s targets: the game is running, the first
# config in force), the file is rewritten to 120 fps. lowlat must say it reloaded, and the present
# log must show the new interval taking hold within a second of the edit (the check runs at most
# once a second), on the same CLOCK_MONOTONIC the edit was stamped with. The bound is 1.5 s: one
# second, a frame at the old cap, and room for this shared machine's stalls.
. "$(dirname "$0")/lib.sh"

game=$XDG_CONFIG_HOME/lowlat/games/vkcube.json
echo '{"fps": 30}' >"$game"
logs=$e2e_tmp/logs

LOWLAT_LOG=1 LOWLAT_LOG_DIR=$logs run_validated reload vkcube --c 300 &
client=$!

# Wait (at most 30 s) until the log has 10 rows paced at the 30 fps cap; the layer writes it out
# every 100 ms.
edit_ns=$(python3 - "$logs" "$game" "$client" <<'PY'
import csv, glob, os, sys, time
logs, game, client = sys.argv[1], sys.argv[2], int(sys.argv[3])
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    paced = 0
    for path in glob.glob(os.path.join(logs, "*.csv")):
        rows = list(csv.reader(l for l in open(path) if not l.startswith("#")))
        if rows:
            col = rows[0].index("target_ns")
            t = [int(r[col]) for r in rows[1:] if len(r) > col and r[col]]
            paced = sum(1 for a, b in zip(t, t[1:]) if 30e6 < b - a < 37e6)
    if paced >= 10:
        with open(game, "w") as f:
            f.write('{"fps": 120}\n')
        print(time.monotonic_ns())
        sys.exit(0)
    try:
        os.kill(client, 0)
    except OSError:
        break
    time.sleep(0.05)
sys.exit("vkcube never presented 10 frames at the 30 fps cap")
PY
) || { wait "$client" || true; fail "the game did not run at its first cap (above)"; }
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
