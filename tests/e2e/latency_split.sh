#!/usr/bin/env bash
# The latency in three parts means something: vkcube with the present log on, on the virtual
# display's mesa-x11 profile at 120 Hz, uncapped (FIFO: frames queue behind V-Sync) and capped at 117
# (no queue). lowlat-stats --json on each log must give the three parts with their stages, and the
# display part must fall by at least a refresh (8.3 ms at the p50) with the cap, the verdict going
# from "queued behind the display" to another.
#
#   latency_split.sh VDISPLAY_MANIFEST_DIR
. "$(dirname "$0")/lib.sh"
tools=$(cd "$(dirname "$0")/../../tools" && pwd)

export VK_ADD_LAYER_PATH=$1 E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay
export LOWLAT_VDISPLAY_PROFILE=mesa-x11 LOWLAT_VDISPLAY_HZ=120 LOWLAT_LOG=1
frames=360

for cap in 0 117; do
	export LOWLAT_FPS=$cap LOWLAT_LOG_DIR="$e2e_tmp/logs-$cap"
	run_validated "split-$cap" "${vkcube[@]}" --c "$frames"
	mapfile -t logs < <(find "$LOWLAT_LOG_DIR" -type f -name '*.csv')
	[ "${#logs[@]}" = 1 ] || fail "cap $cap: expected one log, found ${#logs[@]}"
	"$tools/lowlat-stats" --json "${logs[0]}" >"$e2e_tmp/stats-$cap.json" || fail "lowlat-stats failed on ${logs[0]}"
done

python3 - "$e2e_tmp/stats-0.json" "$e2e_tmp/stats-117.json" <<'PY' || fail "the split (above)"
import json, sys
uncapped, capped = (json.load(open(p))["logs"][0]["latency_parts"] for p in sys.argv[1:3])
problems = []
for name, s in (("uncapped", uncapped), ("cap 117", capped)):
    if not s:
        sys.exit(f"{name}: no latency parts")
    print(f"{name}: game {s['game']['p50_ms']:.2f} / {s['game']['p99_ms']:.2f} ms, "
          f"GPU {s['gpu']['p50_ms'] or 0:.2f} / {s['gpu']['p99_ms'] or 0:.2f} ms (until {s['gpu']['stage']}), "
          f"display {s['display']['p50_ms']:.2f} / {s['display']['p99_ms']:.2f} ms (until {s['display']['stage']})")
    print(f"{name}: verdict: {s['verdict']}")
    for part in ("game", "gpu", "display"):
        if s[part]["p50_ms"] is None or s[part]["p99_ms"] is None or not s[part]["stage"]:
            problems.append(f"{name}: the {part} part or its stage is unknown on a display that reports both")
drop = uncapped["display"]["p50_ms"] - capped["display"]["p50_ms"]
print(f"display part p50: {uncapped['display']['p50_ms']:.2f} ms uncapped, {capped['display']['p50_ms']:.2f} ms at 117: "
      f"{drop:.2f} ms less")
if drop < 1000 / 120:
    problems.append(f"the display part fell by {drop:.2f} ms, not a refresh (8.33 ms) or more")
if not uncapped["verdict"].startswith("queued behind the display"):
    problems.append("uncapped, the verdict is not 'queued behind the display'")
if capped["verdict"].startswith("queued behind the display"):
    problems.append("at 117 the verdict is still 'queued behind the display'")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY
echo "latency split: the display part and the verdict follow the queue"
