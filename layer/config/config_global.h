/* config_global.h — the process's config, the only part that reads the real process
 * (config_global.c); the types are config.h's. */
#ifndef LOWLAT_CONFIG_GLOBAL_H
#define LOWLAT_CONFIG_GLOBAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Load the config once per process, at the first vkCreateInstance (its VkApplicationInfo names
 * the game for DXVK/vkd3d, its pNext may carry VK_EXT_layer_settings): `instance_create_info` is a
 * const VkInstanceCreateInfo *, NULL for none. Later calls do nothing. Messages go to lowlat_msg. */
void lowlat_config_global_init(const void *instance_create_info);

/* The reload check, on lowlat's control thread (control.h): when due (a second after the last
 * look), a stat of the files in use and a reload of what changed. now_ns: CLOCK_MONOTONIC. Returns
 * when it is next due (INT64_MAX before the config is loaded). Never on the present path: a stat
 * on a network or FUSE file system can stall. */
int64_t lowlat_config_global_tick(int64_t now_ns);

/* The config's generation: 0 before load, +1 on every change. When it differs from `seen`, copies
 * the current config into *out (under the config lock, held only for the copy); either way returns
 * the current generation, for the caller to pass as `seen` next time. A caller starts with
 * seen = 0 and *out = lowlat_config_defaults(), which is what it keeps until the config is loaded. */
uint64_t lowlat_config_global_get(uint64_t seen, struct lowlat_config *out);

/* The process became a game: it created its first swapchain. Says the messages held until then
 * (message.h) and starts the control thread (reload checks) with its socket, so that `lowlat ctl`
 * and `lowlat status` list only processes that present. Once per process; later calls do nothing. */
void lowlat_config_global_started(void);

/* The game key the config matched ("" when none), for names such as log files. Fixed once the first
 * instance exists. */
const char *lowlat_config_global_game_key(void);

/* Execute a control command (lowlat_config_control) on the process's config, under its lock;
 * bumps the generation when the config changed. Called by the control socket's thread. */
void lowlat_config_global_control(const char *line, char *reply, size_t size);

#endif
