#!/usr/bin/env bash
# Real DXVK, natively: our D3D11 program (tests/apps/d3d11) built against DXVK-native, on an SDL2
# window under Xvfb, on lavapipe, through lowlat with validation below it.
#
#   dxvk_native.sh PROGRAM [FPS]      with FPS, run with LOWLAT_FPS=FPS and check the cap
#
# Asserts: a clean exit; validation silent; lowlat saw engine "DXVK" in "d3d11_frames" (DXVK-native
# names the instance after the executable) and took its game key from that name; lowlat's
# summaries count all the program's presents; with FPS, the cap holds as dxvk_lib.sh's
# check_dxvk_cap defines it. Skips (77) where the program could not be built (meson sets E2E_SKIP
# to the reason).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dxvk_lib.sh"

[ -z "${E2E_SKIP:-}" ] || skip "$E2E_SKIP"
program=$1
cap=${2:-}
name=dxvk-native${cap:+-$cap}
[ -z "$cap" ] || export LOWLAT_FPS="$cap"

# SDL on X11 (Xvfb), whatever else the machine might offer.
export DXVK_WSI_DRIVER=SDL2 SDL_VIDEODRIVER=x11
dxvk_test "$name" "$(basename "$program")" "$program"
