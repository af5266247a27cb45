/* engine.h — what other frame limiters in the process do by themselves, read from their settings:
 * whether DXVK, vkd3d-proton or MangoHud limit the frame rate on their own (so lowlat must not add
 * a second cap by surprise), and whether the engines run at their default frame latency (so
 * lowlat's late wait cannot reach the game thread).
 *
 * Pure: the caller passes the engine name (VkApplicationInfo::pEngineName), the environment
 * variables' values (NULL when unset) and the text of the files; nothing here reads the
 * environment or a file. engine_env.c gathers them (engine_env.h, lowlat_engine_check).
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

/* Why the engine limits its own frame rate ("DXVK limits its own frame rate (dxgi.maxFrameRate =
 * 60 in DXVK_CONFIG)", "vkd3d limits its own frame rate (VKD3D_FRAME_RATE=60)"), written into dst;
 * false when it does not. DXVK_FRAME_RATE is not counted:
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

/* --- MangoHud 0.8's frame limiter, as its Vulkan layer reads its settings ------------------------ */

/* MangoHud's settings. With MANGOHUD_CONFIG set (even empty) MangoHud reads its config file only
 * when that variable says read_cfg, and the variable's options win; MANGOHUD_FPS_LIMIT goes in
 * front of the fps_limit list, whose first value is the limit in force (0: none). */
struct lowlat_mangohud_env {
	const char *config;    /* MANGOHUD_CONFIG */
	const char *fps_limit; /* MANGOHUD_FPS_LIMIT */
	const char *file;      /* the config file MangoHud reads (lowlat_mangohud_config_paths), or NULL */
	const char *file_text; /* its contents, NULL when there is none */
};

/* Why MangoHud limits the frame rate ("MangoHud limits the frame rate (fps_limit=30 in
 * MANGOHUD_CONFIG)"), written into dst; false when its settings give no limit. */
bool lowlat_mangohud_limiter(const struct lowlat_mangohud_env *env, char *dst, size_t size);

/* Where MangoHud looks for its config file. */
struct lowlat_mangohud_where {
	const char *config_file; /* MANGOHUD_CONFIGFILE: that file alone */
	const char *config_dir;  /* $XDG_CONFIG_HOME, else $HOME/.config; NULL: neither is set */
	const char *exe;         /* /proc/self/exe's target, NULL if unknown */
	const char *comm;        /* /proc/self/comm, without its newline */
	const char *cmdline;     /* /proc/self/cmdline: arguments each ended by a NUL */
	size_t cmdline_size;     /* bytes */
};

#define LOWLAT_MANGOHUD_PATHS_MAX 5
#define LOWLAT_MANGOHUD_PATH_MAX  4096 /* bytes, PATH_MAX on Linux */

/* The files MangoHud tries, in its order: it reads the first that opens and no other. Without
 * MANGOHUD_CONFIGFILE: CONFIG_DIR/MangoHud/wine-<game>.conf (under Wine's preloader), the
 * executable's folder's MangoHud.conf, CONFIG_DIR/MangoHud/<executable>.conf, /etc/MangoHud.conf,
 * CONFIG_DIR/MangoHud/MangoHud.conf; none without a CONFIG_DIR. Returns how many were written. */
unsigned lowlat_mangohud_config_paths(const struct lowlat_mangohud_where *where,
                                      char paths[LOWLAT_MANGOHUD_PATHS_MAX][LOWLAT_MANGOHUD_PATH_MAX]);

#endif
