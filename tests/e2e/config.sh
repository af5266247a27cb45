#!/usr/bin/env bash
# The config as a game sees it: vkcube through lowlat (validation below), with config files in a
# temporary XDG_CONFIG_HOME. lowlat must name the game key and the files it read, report each bad
# value in one line and apply the rest, in the order default.json < game file < environment; a
# Steam app id and LOWLAT_CONFIG must pick their files.
. "$(dirname "$0")/lib.sh"

dir=$XDG_CONFIG_HOME/lowlat
echo '{"fps": 0, "present_mode": "fifo", "bogus": 1}' >"$dir/default.json"
echo '{"method": "early", "fps": "sixty", "max_latency_frames": 3}' >"$dir/games/vkcube.json"

# expect NAME LINE: LINE is in NAME's output.
expect() {
	grep -qxF -- "$2" "$e2e_tmp/$1.out" || {
		grep '^lowlat:' "$e2e_tmp/$1.out" >&2
		fail "$1: no line \"$2\""
	}
}

run_validated by-exe "${vkcube[@]}" --c 20
expect by-exe "lowlat: config: game \"vkcube\" from the executable's name; files: $dir/default.json (read), $dir/games/vkcube.json (read)"
expect by-exe "lowlat: $dir/default.json: unknown key \"bogus\" (value 1); ignored"
expect by-exe "lowlat: $dir/games/vkcube.json: \"fps\": \"sixty\" is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"; using 0 (off)"
expect by-exe "lowlat: config: fps 0, method early, present_mode fifo, max_latency_frames 3, log false, log_dir default, enabled true, stack_limiters false"

# A Steam app id beats the executable's name; the environment beats every file.
echo '{"fps": 75}' >"$dir/games/397540.json"
SteamAppId=397540 LOWLAT_PRESENT_MODE=immediate run_validated steam "${vkcube[@]}" --c 20
expect steam "lowlat: config: game \"397540\" from SteamAppId; files: $dir/default.json (read), $dir/games/397540.json (read)"
expect steam "lowlat: config: fps 75, method late, present_mode immediate, max_latency_frames 1, log false, log_dir default, enabled true, stack_limiters false"

# LOWLAT_CONFIG replaces the game's file.
echo '{"fps": 30, "log": true}' >"$e2e_tmp/mine.json"
LOWLAT_CONFIG=$e2e_tmp/mine.json run_validated explicit "${vkcube[@]}" --c 20
expect explicit "lowlat: config: game \"vkcube\" from the executable's name; files: $dir/default.json (read), $e2e_tmp/mine.json (read, LOWLAT_CONFIG)"
expect explicit "lowlat: config: fps 30, method late, present_mode fifo, max_latency_frames 1, log true, log_dir default, enabled true, stack_limiters false"
echo "config: game key, files, messages and precedence as expected in vkcube"
