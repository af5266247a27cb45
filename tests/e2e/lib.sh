# tests/e2e/lib.sh — shared by the end-to-end tests; sourced, not run.
#
# The tests run real clients (vkcube, our test apps) on lavapipe under Xvfb through the build-tree
# layer, which meson points the loader at with VK_ADD_IMPLICIT_LAYER_PATH. Validation sits *below*
# lowlat: the loader puts layers enabled by their environment variable above the ones named in
# VK_INSTANCE_LAYERS, so naming validation there makes it check what lowlat sends down.
set -euo pipefail

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

: "${VK_ADD_IMPLICIT_LAYER_PATH:?run through meson test: it points the loader at the build-tree layer}"
[ -n "${DISPLAY:-}" ] || fail "no DISPLAY: run the tests through tests/run, which starts Xvfb"

# Nothing from the caller's environment may decide what the layers do in a test.
unset ENABLE_LOWLAT_LAYER DISABLE_LOWLAT_LAYER VK_INSTANCE_LAYERS VK_LOADER_LAYERS_ENABLE \
	VK_LOADER_LAYERS_DISABLE LOWLAT_FPS LOWLAT_METHOD LOWLAT_CONFIG LOWLAT_VERBOSE \
	LOWLAT_PRESENT_MODE LOWLAT_MAX_LATENCY_FRAMES LOWLAT_LOG LOWLAT_LOG_DIR LOWLAT_ENABLED \
	SteamAppId SteamGameId

e2e_tmp=$(mktemp -d)
# LOWLAT_TEST_KEEP=DIR keeps each test's scratch files (its logs, the display's record) in DIR/NAME,
# to study a failure after the run.
e2e_keep=${LOWLAT_TEST_KEEP:-}
trap '[ -z "$e2e_keep" ] || { mkdir -p "$e2e_keep" && cp -r "$e2e_tmp" "$e2e_keep/$(basename "$0" .sh)-$$"; }; rm -rf "$e2e_tmp"' EXIT
# Nor the machine's own config files: each test starts with an empty config directory.
export XDG_CONFIG_HOME="$e2e_tmp/config"
mkdir -p "$XDG_CONFIG_HOME/lowlat/games"

# Loaders before 1.3.2xx (Debian 12 has 1.3.239) ignore VK_ADD_IMPLICIT_LAYER_PATH and read implicit
# manifests only from the XDG directories. Present the build-tree manifest that way, which every
# loader reads, and drop the variable so a new loader does not find the layer twice.
# E2E_EXTRA_MANIFEST_DIRS adds other builds' manifests beside this one (the 64-bit beside the
# 32-bit, as a multilib install has them).
mkdir -p "$e2e_tmp/xdg/vulkan/implicit_layer.d"
for dir in "$VK_ADD_IMPLICIT_LAYER_PATH" ${E2E_EXTRA_MANIFEST_DIRS:-}; do
	for manifest in "$dir"/*.json; do
		[ -e "$manifest" ] || fail "no layer manifest in $dir: build it first"
		ln -s "$manifest" "$e2e_tmp/xdg/vulkan/implicit_layer.d/"
	done
done
export XDG_DATA_HOME="$e2e_tmp/xdg"
unset VK_ADD_IMPLICIT_LAYER_PATH

. "$(dirname "${BASH_SOURCE[0]}")/i386.sh" # wrapper_for

# The vkcube a test runs, with the arguments it needs: the 32-bit build's own (E2E_VKCUBE, a small
# window: under qemu-user a frame costs far more) where its tests set it.
# shellcheck disable=SC2206 # E2E_VKCUBE_ARGS is a list of arguments
vkcube=(${E2E_VKCUBE:-vkcube} ${E2E_VKCUBE_ARGS:-})
if [ -n "${E2E_VKCUBE:-}" ] && [ ! -x "$E2E_VKCUBE" ]; then
	echo "SKIP: no $E2E_VKCUBE (vulkan-tools:i386, which tools/testroot unpacks there)" >&2
	exit 77
fi

# client [timeout SECONDS] PROGRAM ARGS...: run a Vulkan client. Under tests/run --sanitize the
# sanitizer runtime (and lavapipe) are preloaded into clients only, since they are not instrumented
# themselves. A 32-bit program runs through E2E_I386_WRAPPER (qemu-user) where that is set: the
# kernel cannot run it (tools/testenv.sh).
client() {
	local pre=()
	if [ "${1:-}" = timeout ]; then
		pre=(timeout "$2")
		shift 2
	fi
	# shellcheck disable=SC2207 # the wrapper is a command and its arguments
	pre+=($(wrapper_for "$1"))
	LD_PRELOAD="${E2E_PRELOAD:-}" "${pre[@]}" "$@"
}



# show_sanitizer_report OUT: print each sanitizer report in a client's output whole (to stderr), with
# every stack it names; a report starts far above the output's tail and its second stack (where a
# mutex was locked, the other side of a race) is what tells whose bug it is.
show_sanitizer_report() {
	awk '/^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|.*runtime error: )/ { on = 1 }
		on { print; if (/^SUMMARY: /) { on = 0; print "" } if (++n >= 400) exit }' "$1" >&2
}

# run_checked: the caller's run_and_check, once: it passes (returns 0; then exit 0), or returns 2
# outside the bounds, or anything else; both fail. A miss is not run again.
run_checked() {
	local rc=0
	run_and_check || rc=$?
	[ "$rc" = 0 ] && exit 0
	[ "$rc" = 2 ] && fail "$name: the game thread's rate outside its bounds (above)"
	fail "$name (above)"
}

# require_probes_around_lowlat: for a test whose rates come from the bench probes (E2E_PROBE=1),
# called before its first run. Loaders before Vulkan-Loader's change "Allow VK_INSTANCE_LAYERS to
# order implicit layers" (2025; Debian 12 has 1.3.239) load every implicit layer nearest the app,
# whatever VK_INSTANCE_LAYERS says: no probe can then sit above lowlat, so the outside measurement
# cannot be made and the test is skipped. Decided from the loader's own layer log of a vulkaninfo
# with the probes named around lowlat.
require_probes_around_lowlat() {
	local out="$e2e_tmp/probe-order.out" order
	ENABLE_LOWLAT_LAYER=1 VK_ADD_LAYER_PATH="$E2E_PROBE_DIR${VK_ADD_LAYER_PATH:+:$VK_ADD_LAYER_PATH}" \
		VK_INSTANCE_LAYERS=VK_LAYER_LOWLAT_bench_probe:VK_LAYER_LOWLAT_limiter:VK_LAYER_LOWLAT_bench_probe_below \
		VK_LOADER_DEBUG=layer client "${E2E_VULKANINFO:-vulkaninfo}" --summary >"$out" 2>&1 ||
		fail "vulkaninfo with the probes around lowlat failed: $(tail -n 5 "$out")"
	order=$(grep -o 'Insert instance layer "[A-Za-z_]*"' "$out" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
	case $order in
	*VK_LAYER_LOWLAT_bench_probe_below*VK_LAYER_LOWLAT_limiter*VK_LAYER_LOWLAT_bench_probe\ *) ;;
	*)
		echo "SKIP: this Vulkan loader does not put the implicit lowlat between the layers named around it" \
			"in VK_INSTANCE_LAYERS (it inserted: $order); no probe can measure above lowlat" >&2
		exit 77
		;;
	esac
}

# run_latency_sleep_app NAME APP ARGS...: tests/apps/latency_sleep.c through run_validated, lowlat's
# present log in $e2e_tmp/NAME.logs and the virtual display's record in $e2e_tmp/NAME.truth; prints
# the app's own lines from its output ($e2e_tmp/NAME.out).
run_latency_sleep_app() {
	local name=$1
	shift
	export LOWLAT_LOG_DIR="$e2e_tmp/$name.logs" LOWLAT_VDISPLAY_LOG="$e2e_tmp/$name.truth"
	run_validated "$name" "$@"
	grep '^latency_sleep: ' "$e2e_tmp/$name.out"
}

# implicit_layer_installed FILE: whether the loader finds the implicit layer manifest FILE where
# it looks for the system's (the XDG data directories, /etc).
implicit_layer_installed() {
	local dir dirs
	IFS=: read -ra dirs <<<"${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
	for dir in "${dirs[@]}" /etc; do
		[ ! -e "$dir/vulkan/implicit_layer.d/$1" ] || return 0
	done
	return 1
}

# run_validated NAME COMMAND...: run COMMAND with lowlat enabled and validation below it, then check
# that it exited 0, that the chain really was validation below lowlat, and that validation said
# nothing (errors and warnings, synchronization validation included). Output is kept in
# $e2e_tmp/NAME.out for further checks. With E2E_LOWLAT=0 the same runs without lowlat, which must
# then be absent from the chain: a clean run without the layer pins any message on the layer.
# E2E_LAYERS_UNDER (explicit layers) go below validation, directly above the driver: the virtual
# display (tests/vdisplay), whose manifest directory the caller adds with VK_ADD_LAYER_PATH.
# E2E_LAYERS_BELOW (explicit layers, colon-separated) go between lowlat and validation, e.g. the
# fault injection of tests/faults. E2E_VVL_APP_OWNED (an extended regex) names validation messages
# the app itself causes, with or without lowlat, which the test that sets it sources; they are
# counted and left aside. E2E_CLIENT_STOP_AFTER=S runs a client that never ends by itself (a demo)
# for S seconds: being stopped then is its clean end. With E2E_PROBE=1 the bench probe (tests/bench/probe) sits on top,
# above lowlat, and writes $e2e_tmp/NAME.probe.csv: each present's return as the app saw it, the
# outside measurement the rate checks read (probe_rate); its twin right under lowlat writes
# NAME.below.csv: when the driver's present returned, so that how long lowlat held each frame is
# known from outside too.
run_validated() {
	local name=$1
	shift
	local out="$e2e_tmp/$name.out" vvl="$e2e_tmp/$name.vvl"
	local rc=0
	local lowlat=${E2E_LOWLAT:-1}
	local top= probe_path=${VK_ADD_LAYER_PATH:-}
	if [ "${E2E_PROBE:-0}" = 1 ]; then
		# lowlat named after the probe: an implicit layer named in VK_INSTANCE_LAYERS is enabled
		# there, below the probe, instead of above every named layer.
		top=VK_LAYER_LOWLAT_bench_probe:VK_LAYER_LOWLAT_limiter:VK_LAYER_LOWLAT_bench_probe_below
		probe_path=$E2E_PROBE_DIR${probe_path:+:$probe_path}
		rm -f "$e2e_tmp/$name.probe.csv" "$e2e_tmp/$name.below.csv"
	fi
	# The same settings as a settings file too: validation before 1.3.250 reads only that.
	printf '%s\n' "khronos_validation.report_flags = error,warn" \
		"khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG" \
		"khronos_validation.log_filename = $vvl" >"$e2e_tmp/vk_layer_settings.txt"
	ENABLE_LOWLAT_LAYER=$lowlat LOWLAT_VERBOSE=${LOWLAT_VERBOSE:-1} \
		VK_ADD_LAYER_PATH="$probe_path" LOWLAT_PROBE_CSV="$e2e_tmp/$name.probe.csv" \
		LOWLAT_PROBE_BELOW_CSV="$e2e_tmp/$name.below.csv" \
		VK_INSTANCE_LAYERS="${top:+$top:}${E2E_LAYERS_BELOW:+$E2E_LAYERS_BELOW:}VK_LAYER_KHRONOS_validation${E2E_LAYERS_UNDER:+:$E2E_LAYERS_UNDER}" \
		VK_KHRONOS_VALIDATION_REPORT_FLAGS=error,warn \
		VK_KHRONOS_VALIDATION_VALIDATE_SYNC=true \
		VK_KHRONOS_VALIDATION_DEBUG_ACTION=VK_DBG_LAYER_ACTION_LOG_MSG \
		VK_KHRONOS_VALIDATION_LOG_FILENAME="$vvl" \
		VK_LAYER_SETTINGS_PATH="$e2e_tmp" \
		VK_LOADER_DEBUG=layer \
		client timeout "${E2E_CLIENT_STOP_AFTER:-${E2E_CLIENT_TIMEOUT:-60}}" "$@" >"$out" 2>&1 || rc=$?
	grep -v '^\[Vulkan Loader\]' "$out" | tail -n 20 >&2
	show_sanitizer_report "$out"
	[ -z "${E2E_CLIENT_STOP_AFTER:-}" ] || [ "$rc" != 124 ] || rc=0
	[ "$rc" != 124 ] || fail "$name hung: still running after ${E2E_CLIENT_TIMEOUT:-60} s"
	[ "$rc" = 0 ] || fail "$name exited with status $rc"
	check_chain "$out" "$lowlat"
	if [ "${E2E_PROBE:-0}" = 1 ]; then
		case $(grep -o 'Insert instance layer "[A-Za-z_]*"' "$out" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ') in
		*VK_LAYER_LOWLAT_bench_probe_below*VK_LAYER_LOWLAT_limiter*VK_LAYER_LOWLAT_bench_probe*) ;;
		*) fail "$name: the probes are not one above and one below lowlat in the chain" ;;
		esac
		[ -s "$e2e_tmp/$name.probe.csv" ] && [ -s "$e2e_tmp/$name.below.csv" ] ||
			fail "$name: the probes wrote no $name.probe.csv or $name.below.csv"
	fi
	if [ -n "${E2E_VVL_APP_OWNED:-}" ] && [ -s "$vvl" ]; then
		# Messages are blocks separated by blank lines.
		awk -v RS= -v ORS='\n\n' -v re="$E2E_VVL_APP_OWNED" '$0 !~ re' "$vvl" >"$vvl.lowlat"
		echo "$name: $(awk -v RS= -v re="$E2E_VVL_APP_OWNED" '$0 ~ re' "$vvl" | grep -c '^Validation') validation messages of the app's own left aside (E2E_VVL_APP_OWNED)" >&2
		mv "$vvl.lowlat" "$vvl"
	fi
	if [ -s "$vvl" ]; then
		head -c 4000 "$vvl" >&2
		fail "$name: the validation layer reported the messages above"
	fi
	[ -e "$vvl" ] || fail "$name: the validation layer wrote no log, so it did not check anything"
}

# check_chain LOG LOWLAT: the loader logs `Insert instance layer` from the driver upwards, so with
# lowlat validation must come first (below it); without, validation alone.
check_chain() {
	local order
	order=$(grep -o 'Insert instance layer "[A-Za-z_]*"' "$1" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
	case "$2: $order" in
	"1: "*VK_LAYER_KHRONOS_validation*VK_LAYER_LOWLAT_limiter*) ;;
	"0: "*VK_LAYER_LOWLAT_limiter*) fail "lowlat was inserted although not enabled: $order" ;;
	"0: "*VK_LAYER_KHRONOS_validation*) ;;
	*) fail "expected validation$([ "$2" = 0 ] || echo " below lowlat") in the chain, the loader inserted: $order" ;;
	esac
}

# probe_rate NAME [probe_stats.py options]: the rate and intervals of run NAME's presents measured
# by the probe above lowlat (E2E_PROBE=1), one line of key=value pairs (tests/e2e/probe_stats.py).
probe_rate() {
	local name=$1
	shift
	python3 "$(dirname "${BASH_SOURCE[0]}")/probe_stats.py" "$e2e_tmp/$name.probe.csv" "$@"
}

# probe_value LINE KEY: a value out of probe_rate's line.
probe_value() {
	sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<<"$1"
}

# summary_presents LOG [EXTENT]: the presents in lowlat's summary lines (LOWLAT_VERBOSE=1, printed
# as each swapchain is destroyed), one line per swapchain, optionally only those of size EXTENT.
summary_presents() {
	sed -n "s/^lowlat: swapchain ${2:-[0-9]*x[0-9]*} .*: \([0-9]*\) presents in .*/\1/p" "$1"
}
