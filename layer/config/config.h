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

/* Its functions: config_game.h. */

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

/* Its functions: config_files.h. */

/* --- VK_EXT_layer_settings (config_settings.c) ----------------------------------------------- */

/* The layer name settings are addressed to (the manifest's). */
#define LOWLAT_LAYER_NAME "VK_LAYER_LOWLAT_limiter"

/* Its functions: config_settings.h. */

/* --- Control commands (config_control.c) ----------------------------------------------------- */

/* Its functions: config_control.h. */

/* --- The process's config (config_global.c): the only part that reads the real process ------- */

/* Its functions: config_global.h. */

#endif
