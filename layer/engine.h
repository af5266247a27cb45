/* engine.h — what DXVK and vkd3d-proton do by themselves, read from their settings: whether they
 * limit the frame rate on their own (so lowlat must not add a second cap), and whether they run at
 * their default frame latency (so lowlat's late wait cannot reach the game thread).
 *
 * Pure: the caller passes the engine name (VkApplicationInfo::pEngineName) and the environment
 * variables' values (NULL when unset); nothing here reads the environment.
 */
#ifndef LOWLAT_ENGINE_H
#define LOWLAT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

struct lowlat_engine_env {
	const char *dxvk_config;      /* DXVK_CONFIG */
	const char *vkd3d_frame_rate; /* VKD3D_FRAME_RATE */
	const char *vkd3d_latency;    /* VKD3D_SWAPCHAIN_LATENCY_FRAMES */
};

/* "DXVK" or "vkd3d" (as they name themselves), else NULL. */
const char *lowlat_engine_kind(const char *engine_name);

/* Why the engine limits its own frame rate ("dxgi.maxFrameRate = 60 in DXVK_CONFIG",
 * "VKD3D_FRAME_RATE=60"), written into dst; false when it does not. DXVK_FRAME_RATE is not counted:
 * DXVK 3.1.1 does not read it (the string is in none of its libraries, and a DXVK-native program
 * with DXVK_FRAME_RATE=45 ran at 414 fps on lavapipe), and taking lowlat's cap away for a limiter
 * that is not there would leave the game with none. */
bool lowlat_engine_limiter(const char *engine_name, const struct lowlat_engine_env *env, char *dst,
                           size_t size);

/* The value DXVK_CONFIG gives `key` (the last assignment wins, as in DXVK), copied into dst with
 * surrounding spaces trimmed; false when it sets none. Entries are `key = value` separated by ';'. */
bool lowlat_dxvk_config_get(const char *config, const char *key, char *dst, size_t size);

/* The fix for an engine at its default frame latency (the settings the `lowlat` wrapper makes),
 * written into dst; false when the engine is none of these or already runs that way. */
bool lowlat_engine_latency_hint(const char *engine_name, const struct lowlat_engine_env *env, char *dst,
                                size_t size);

#endif
