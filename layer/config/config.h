/* config.h — lowlat's internal config API: the precedence chain, game-key detection, files, reload
 * and VK_EXT_layer_settings. The format itself (keys, types, defaults, the JSON parser) is public,
 * in include/lowlat_config.h.
 *
 * Precedence, lowest to highest, each applied over the one before:
 *   built-in defaults < default.json < game file (or the LOWLAT_CONFIG file, which replaces it)
 *   < VK_EXT_layer_settings < LOWLAT_* environment variables < control-socket commands.
 *
 * Everything here but lowlat_config_global_* is a pure function of injected inputs (environment
 * getter, /proc contents, VkApplicationInfo names, now_ns), so tests fake them all. config_global.c
 * is the thin part that reads the real process and talks through lowlat_msg().
 */
#ifndef LOWLAT_CONFIG_H
#define LOWLAT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.h"
#include "lowlat_config.h"

/* One bit per key, 1u << LOWLAT_KEY_*: which keys a source set. */
#define LOWLAT_KEY_BIT(key) (1u << (key))

/* A source's name in messages: a file's path, or how the value arrived. */
enum lowlat_config_origin_kind {
	LOWLAT_ORIGIN_FILE,     /* `path: "key": value ...` */
	LOWLAT_ORIGIN_ENV,      /* `LOWLAT_KEY=value ...` */
	LOWLAT_ORIGIN_SETTINGS, /* `VK_EXT_layer_settings: "key": value ...` */
	LOWLAT_ORIGIN_CONTROL,  /* `key value ...` (a control-socket command) */
};

struct lowlat_config_origin {
	enum lowlat_config_origin_kind kind;
	const char *file; /* LOWLAT_ORIGIN_FILE only */
	const struct lowlat_config_sink *sink;
};

/* A value as it arrived, before it is checked against its key. */
struct lowlat_config_value {
	enum { LOWLAT_VALUE_NUMBER, LOWLAT_VALUE_BOOL, LOWLAT_VALUE_STRING, LOWLAT_VALUE_OTHER } type;
	double number;
	bool boolean;
	const char *string;
	const char *shown; /* how messages show it (JSON text for files, the raw text otherwise) */
};

/* The key named `name` (JSON key or layer-setting name), or -1. */
int lowlat_config_key_lookup(const char *name);

/* The LOWLAT_* environment variable of a key, e.g. "LOWLAT_FPS". */
const char *lowlat_config_key_env(enum lowlat_config_key key);

/* Check `value` against `key` and store it in *cfg, setting the key's bit in *set (may be NULL).
 * When it is invalid, says so through origin->sink, naming the value used instead, and returns
 * false leaving *cfg as it was. */
bool lowlat_config_set(const struct lowlat_config_origin *origin, enum lowlat_config_key key,
                       const struct lowlat_config_value *value, struct lowlat_config *cfg, uint32_t *set);

/* Text (an environment variable, a STRING layer setting) read as the key's type: "60" is a number
 * for fps, "1"/"0"/"true"/"false"/"yes"/"no"/"on"/"off" a bool for log and enabled. Text that is
 * not the key's type stays a string, so lowlat_config_set reports it. */
void lowlat_config_value_from_text(enum lowlat_config_key key, const char *text,
                                   struct lowlat_config_value *out);

/* The environment, injected: returns the variable's value or NULL. */
struct lowlat_env {
	const char *(*get)(void *user, const char *name);
	void *user;
};

/* Apply every set, non-empty LOWLAT_* variable of the keys (an empty one counts as unset, so
 * `LOWLAT_FPS= game` means "not set"). */
void lowlat_config_apply_env(const struct lowlat_env *env, struct lowlat_config *inout,
                             const struct lowlat_config_sink *sink);

/* Copy the keys in `set` from `src` into `dst`: how a captured source (the layer settings) is
 * applied again on reload. */
void lowlat_config_apply_mask(struct lowlat_config *dst, const struct lowlat_config *src, uint32_t set);

/* One line to the sink, printf-style; nothing when the sink is NULL. The config module's one way of
 * saying something. */
void lowlat_config_emit(const struct lowlat_config_sink *sink, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The same for news rather than problems: to the sink's `info`, else its `line`. */
void lowlat_config_emit_info(const struct lowlat_config_sink *sink, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* --- Game key (config_game.c) ---------------------------------------------------------------- */

/* /proc/self/cmdline is read up to this much (config_global.c, engine_env.c): the .exe is among
 * the first arguments, and a game's command line is far shorter. */
#define LOWLAT_CMDLINE_MAX 16384 /* bytes */

/* What lowlat knows of the process, injected so tests fake it. */
struct lowlat_process {
	struct lowlat_env env;
	const char *cmdline;                /* /proc/self/cmdline: arguments each ended by a NUL */
	size_t cmdline_size;                /* bytes */
	const char *exe;                    /* basename of /proc/self/exe's target; NULL if unknown */
	const char *app_name, *engine_name; /* VkApplicationInfo; NULL if none */
};

enum lowlat_game_source {
	LOWLAT_GAME_NONE,
	LOWLAT_GAME_STEAM_APP_ID,  /* SteamAppId */
	LOWLAT_GAME_STEAM_GAME_ID, /* SteamGameId */
	LOWLAT_GAME_TRANSLATED,    /* pApplicationName of DXVK or vkd3d: the game's .exe name */
	LOWLAT_GAME_WINE_CMDLINE,  /* the first .exe in /proc/self/cmdline */
	LOWLAT_GAME_EXECUTABLE,    /* the native executable's name */
	LOWLAT_GAME_APP_NAME,      /* VkApplicationInfo.pApplicationName */
};

/* A key is a file name in games/ (".json" is appended), so it stays well under NAME_MAX. */
#define LOWLAT_GAME_KEY_MAX 200 /* bytes */

struct lowlat_game {
	char key[LOWLAT_GAME_KEY_MAX + 1]; /* "" when nothing matched */
	enum lowlat_game_source source;
};

/* The first source that exists, in the order of enum lowlat_game_source. Returns false (source
 * NONE, key "") when none does. */
bool lowlat_game_detect(const struct lowlat_process *proc, struct lowlat_game *out);

/* Make `len` bytes of `in` a safe file name: '/', '\\' and control characters become '_', and so
 * does a '.' that starts the name or follows another '.', so the key can name no other directory
 * and no hidden file. Cut at LOWLAT_GAME_KEY_MAX bytes, never inside a UTF-8 character. Returns
 * false when nothing is left. */
bool lowlat_game_key_sanitize(const char *in, size_t len, char out[LOWLAT_GAME_KEY_MAX + 1]);

/* "SteamAppId", "Wine command line", ... for messages. */
const char *lowlat_game_source_name(enum lowlat_game_source source);

/* --- Files, the whole chain, reload (config_files.c) ----------------------------------------- */

/* A path as open(2) takes it. */
#define LOWLAT_CONFIG_FILE_PATH_MAX 4096 /* bytes, PATH_MAX on Linux */

/* A config file is a few hundred bytes; anything much bigger is not one. */
#define LOWLAT_CONFIG_FILE_SIZE_MAX (64 * 1024) /* bytes */

/* How often the present path may look at the files: the "takes effect within 1 s". */
#define LOWLAT_CONFIG_CHECK_INTERVAL_NS 1000000000ll /* 1 s */

/* A file in use, and what stat(2) said of it when it was last read: any change of existence,
 * device, inode (an editor's rename-over), size or mtime means "read it again". */
struct lowlat_config_file {
	char path[LOWLAT_CONFIG_FILE_PATH_MAX]; /* "" = no such file in the chain */
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
};

/* A source applied between the game file and the environment (the VK_EXT_layer_settings of the
 * instance): called once at load with a sink, its result kept as values + a mask of the keys it
 * set, and applied again from those on every reload. */
struct lowlat_config_source {
	void (*apply)(const void *user, struct lowlat_config *cfg, uint32_t *set,
	              const struct lowlat_config_sink *sink);
	const void *user;
};

enum { LOWLAT_CONFIG_FILE_DEFAULT, LOWLAT_CONFIG_FILE_GAME, LOWLAT_CONFIG_FILE_COUNT };

struct lowlat_config_state {
	struct lowlat_config config; /* the result of the whole chain */
	struct lowlat_config base;   /* the same without the control overrides */
	struct lowlat_game game;
	/* [DEFAULT] $XDG_CONFIG_HOME/lowlat/default.json; [GAME] games/<key>.json, or LOWLAT_CONFIG's
	 * file, which replaces it. */
	struct lowlat_config_file files[LOWLAT_CONFIG_FILE_COUNT];
	bool game_file_from_env;       /* files[GAME] is LOWLAT_CONFIG's */
	struct lowlat_config settings; /* the captured source's values ... */
	uint32_t settings_set;         /* ... and the keys it set */
	/* Runtime overrides from the control socket: above everything, kept across reloads until
	 * `reset` or the end of the process. */
	struct lowlat_config control;
	uint32_t control_set;
	/* The cap `toggle` turned off (its fps, fps_base and fps_n), for the next `toggle` to restore. */
	bool toggled_off;
	struct lowlat_config toggled;
	struct lowlat_env env;
	int64_t next_check_ns; /* CLOCK_MONOTONIC */
};

/* Detect the game, find the files, apply the whole chain into st->config, and say once which key
 * matched, which files were read and the result (two lines). `settings` may be NULL. Every
 * message about a bad value goes to `sink` too. */
void lowlat_config_load(struct lowlat_config_state *st, const struct lowlat_process *proc,
                        const struct lowlat_config_source *settings, int64_t now_ns,
                        const struct lowlat_config_sink *sink);

/* The present path's check, at most once per LOWLAT_CONFIG_CHECK_INTERVAL_NS (by now_ns, which
 * the caller reads: nothing here reads a clock): stat the files in use and, when one changed (or
 * appeared, or went), apply the whole chain again. Messages are given only for the files that
 * changed, plus one line with the new result. Returns true when st->config changed. */
bool lowlat_config_reload(struct lowlat_config_state *st, int64_t now_ns,
                          const struct lowlat_config_sink *sink);

/* "fps 60, method late, present_mode auto, max_latency_frames 1, log false, log_dir default,
 * enabled true" */
void lowlat_config_describe(const struct lowlat_config *cfg, char *dst, size_t size);

/* Field by field (the struct has padding, so no memcmp). */
bool lowlat_config_equal(const struct lowlat_config *a, const struct lowlat_config *b);

/* --- VK_EXT_layer_settings (config_settings.c) ----------------------------------------------- */

/* The layer name settings are addressed to (the manifest's). */
#define LOWLAT_LAYER_NAME "VK_LAYER_LOWLAT_limiter"

/* Apply the settings for LOWLAT_LAYER_NAME of every VkLayerSettingsCreateInfoEXT in the pNext chain
 * of `instance_create_info` (a const VkInstanceCreateInfo *), in chain order, onto *cfg, setting
 * each applied key's bit in *set (may be NULL). Any key takes its natural type (fps: FLOAT32/64 or
 * any integer type; method, present_mode, log_dir: STRING; max_latency_frames: an integer type;
 * log, enabled: BOOL32) or a STRING read like its environment variable. The first value counts.
 * Has the signature of lowlat_config_source.apply, with the create info as `user`. */
void lowlat_config_apply_layer_settings(const void *instance_create_info, struct lowlat_config *cfg,
                                        uint32_t *set, const struct lowlat_config_sink *sink);

/* --- Control commands (config_control.c) ----------------------------------------------------- */

/* Execute one command line (a trailing "\n" or "\r\n" is allowed) onto st's runtime overrides:
 *   status                 -> "ok game \"<key>\"; fps 60, method late, ..."
 *   <key> <value>          -> "ok fps 60"   (any key, its value written as for LOWLAT_<KEY>)
 *   toggle                 -> "ok fps 0"    (the cap off; the next toggle -> "ok fps 60", back on)
 *   cycle 60,90,0          -> "ok fps 90"   (the cap after the one in force, in the list's order;
 *                                            the first when the one in force is not in the list)
 *   reset                  -> "ok fps 141, ..."  (overrides dropped: files and environment again)
 * Anything else gets "error: ..." naming the problem and what stays in force; nothing is changed.
 * `reply` is one line without a newline. Returns true when st->config changed. */
bool lowlat_config_control(struct lowlat_config_state *st, const char *line, char *reply, size_t size);

/* --- The process's config (config_global.c): the only part that reads the real process ------- */

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
