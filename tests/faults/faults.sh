#!/usr/bin/env bash
# Fault injection through lowlat: VK_LAYER_LOWLAT_faults below lowlat (and validation below both)
# makes chosen calls fail; tests/apps/robust survives them and reports every result it got.
#
#   faults.sh [--no-layer] APP FAULTS FRAMES ROUNDS EXPECT...
#
# --no-layer runs the same without lowlat, which must then pass the same checks (bar lowlat's own
# counts): a failure with lowlat is then lowlat's, not the harness's.
#
# FAULTS is LOWLAT_FAULTS (see faults.c); robust runs `faults FRAMES ROUNDS`. EXPECT are KEY=N pairs
# checked against robust's summary line: presents, instances, devices, swapchains (each created), and
# injected (the faults the layer logged). Always checked, beyond run_validated's clean exit, chain and
# silent validation:
# - the app got exactly the errors the layer injected, call for call: lowlat neither changed, added
#   nor swallowed one;
# - lowlat saw every present: its swapchain summaries add up to the app's successful presents, and
#   its failed presents to the presents the layer failed;
# - the run went on after each fault: whatever a failure took away was created again and presented;
# - lowlat kept no record of a failed create: it summarised as many swapchains and reported as many
#   devices as the app created.
. "$(dirname "$0")/../e2e/lib.sh"

E2E_LOWLAT=1
if [ "$1" = --no-layer ]; then
	E2E_LOWLAT=0
	shift
fi
app=$1 faults=$2 frames=$3 rounds=$4
shift 4

: "${FAULTS_MANIFEST_DIR:?set by meson: the directory holding the manifest of the faults layer}"
# Older loaders read explicit manifests only from the XDG directories (see lib.sh), so the faults
# layer is presented the same way as lowlat.
ln -s "$FAULTS_MANIFEST_DIR" "$e2e_tmp/xdg/vulkan/explicit_layer.d"
export LOWLAT_FAULTS=$faults
E2E_LAYERS_BELOW=VK_LAYER_LOWLAT_faults

run_validated faults "$app" faults "$frames" "$rounds"
out=$e2e_tmp/faults.out

grep -q 'Insert instance layer "VK_LAYER_LOWLAT_faults"' "$out" || fail "the faults layer was not in the chain"

# "FUNCTION RESULT" per error, as injected and as the app saw it.
injected=$(sed -n 's/^faults: \(vk[A-Za-z0-9]*\) call [0-9]* -> \([A-Z_0-9]*\)$/\1 \2/p' "$out" | sort)
seen=$(sed -n 's/^robust: \(vk[A-Za-z0-9]*\) -> \([A-Z_0-9]*\)$/\1 \2/p' "$out" | sort)
[ -n "$injected" ] || fail "the faults layer injected nothing"
[ "$injected" = "$seen" ] || fail "the app did not get exactly the injected errors:
injected:
$injected
the app got:
$seen"

summary=$(grep '^robust: [0-9]* presents in' "$out" | tail -n 1)
re='^robust: ([0-9]+) presents in ([0-9]+) rounds, ([0-9]+) instances, ([0-9]+) devices, ([0-9]+) swapchains created$'
[[ $summary =~ $re ]] || fail "no summary line from the app"
declare -A got=([presents]=${BASH_REMATCH[1]} [instances]=${BASH_REMATCH[3]} [devices]=${BASH_REMATCH[4]}
	[swapchains]=${BASH_REMATCH[5]} [injected]=$(wc -l <<<"$injected"))
for expect in "$@"; do
	key=${expect%=*}
	[ -n "${got[$key]:-}" ] || fail "unknown expectation $expect"
	[ "${got[$key]}" = "${expect#*=}" ] || fail "expected $expect, got ${got[$key]}: $summary"
done

if [ "$E2E_LOWLAT" = 0 ]; then
	echo "without lowlat: $summary"
	exit 0
fi
# lowlat's summaries (one per swapchain, at its destruction) against what the app and the layer did.
lowlat_presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
lowlat_failed=$(sed -n 's/^lowlat: swapchain .* presents in .*, \([0-9]*\) failed.*/\1/p' "$out" |
	awk '{ n += $1 } END { print n + 0 }')
present_faults=$(grep -c '^vkQueuePresentKHR ' <<<"$injected" || true)
# One summary per swapchain the app created and destroyed: a record kept for a failed create would be
# summarised too, when its device went; one device line per device that really came up.
lowlat_swapchains=$(summary_presents "$out" | wc -l)
[ "$lowlat_swapchains" = "${got[swapchains]}" ] ||
	fail "lowlat summarised $lowlat_swapchains swapchains, the app created ${got[swapchains]}"
lowlat_devices=$(grep -c '^lowlat: device "' "$out" || true)
[ "$lowlat_devices" = "${got[devices]}" ] ||
	fail "lowlat reported $lowlat_devices devices, the app created ${got[devices]}"
[ "$lowlat_presents" = "${got[presents]}" ] ||
	fail "lowlat counted $lowlat_presents presents, the app made ${got[presents]}"
[ "$lowlat_failed" = "$present_faults" ] ||
	fail "lowlat counted $lowlat_failed failed presents, the faults layer failed $present_faults"
echo "$summary; injected and seen: $(tr '\n' ';' <<<"$injected")"
