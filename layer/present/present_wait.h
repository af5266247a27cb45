/* present_wait.h — the app's own present wait as lowlat's wait point for a swapchain.
 *
 * Why: DXVK and vkd3d-proton present on a submit thread and release their game thread from another
 * one, after vkWaitForPresentKHR (or vkWaitForPresent2KHR) says frame N - L was shown. A wait inside
 * vkQueuePresentKHR stalls every submission queued behind it on the submit thread; the same wait
 * placed at the return of the app's present wait reaches the game thread just as late and stalls
 * nothing else. So once the app waits for presents on a swapchain (in FIFO modes, the only ones
 * where DXVK does), lowlat's presents on it compute their release as before but no longer wait;
 * the app's next successful present wait for that present's id (or a later one) waits until that
 * release before returning.
 *
 * The present thread pushes (present id, release) pairs; the waiting thread pops those its id
 * covers and waits for the latest of them; the waits it made go back to the present thread, which
 * writes them into the present log (the log belongs to the presenting thread). One mutex per
 * swapchain guards the two queues; it is never held while sleeping or calling down.
 *
 * On the display grid (VK_EXT_present_timing) a claimed release is not the one its present queued:
 * with an engine frame latency L above 1, the wait for frame N releases frame N + L, whose present
 * comes after those of N + 1 .. N + L - 1, so it is meant for the target that frame will get. Each
 * present plans two releases, a lead before the next present's target and before the one after it;
 * the claims count which frame each releases (lowlat_display_claims, pace_display.h) and give it
 * its own target's release, the second one in steady state. That keeps the engine's queue of L
 * frames from standing in the display's queue. A present's frame started
 * when its claim's wait ended: that is the start of its ready-time sample (present_timing.c), not
 * the return of the present before it.
 *
 * An app that stops waiting (DXVK in MAILBOX or IMMEDIATE; a game that turns its frame latency
 * off) leaves releases unclaimed: after LOWLAT_PW_UNCLAIMED of them the wait point goes back to
 * the present, said once, and that present waits as before.
 */
#ifndef LOWLAT_PRESENT_WAIT_H
#define LOWLAT_PRESENT_WAIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "present_wait_state.h"
#include "vk_compat.h"

struct lowlat_device;
struct lowlat_swapchain;

void lowlat_pw_init(struct lowlat_present_wait *pw);
void lowlat_pw_fini(struct lowlat_present_wait *pw);

/* Present thread, for a swapchain presented in a FIFO mode with release_ns computed: true when the
 * release was queued for the app's present wait (the present then does not wait); false when the
 * present is to wait itself (the wait point is the present, or just went back to it).
 * after_ns: on the display grid, the release a lead before the target after the next one; 0 on
 * the CPU grid. */
bool lowlat_pw_queue(struct lowlat_swapchain *sc, uint64_t present_id, int64_t release_ns, int64_t after_ns,
                     int64_t log_frame);

/* Present thread, for a present whose release is waited for in the present itself (a mode the app
 * does not wait in, such as DXVK's IMMEDIATE, or no release queued): the frame after it starts at
 * the present's return, not at a claim, so the claims stop until a present plans releases for them
 * again. Without this, the presents of an IMMEDIATE stretch each took the last claim's end as
 * their frame's start (the claims' offset grew by one a present), and their ready times, up to the
 * whole stretch long, put lowlat's lead at 0.65 s once FIFO came back. */
void lowlat_pw_waits_here(struct lowlat_swapchain *sc);

/* Present thread, on entry: true when the swapchain's releases are claimed by the app's present
 * wait on the display grid; *start_ns is then when the frame now presented started (its claim's
 * wait's end), LOWLAT_LOG_UNKNOWN when no claim released it. */
bool lowlat_pw_frame_start(struct lowlat_swapchain *sc, int64_t *start_ns);

/* Present thread, once the present is logged: the log row of the release it just queued. */
void lowlat_pw_set_log_frame(struct lowlat_swapchain *sc, int64_t log_frame);

/* Present thread: writes the waits the app's present waits made into the present log. */
void lowlat_pw_log(struct lowlat_swapchain *sc);

VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresentKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        uint64_t present_id, uint64_t timeout);
#ifdef VK_KHR_present_wait2
VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresent2KHR(VkDevice device, VkSwapchainKHR swapchain,
                                                         const VkPresentWait2InfoKHR *info);
#endif

#endif
