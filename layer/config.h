/* config.h — lowlat's internal config API: the precedence chain, game-key detection, files, reload
 * and VK_EXT_layer_settings. The format itself (keys, types, defaults, the JSON parser) is public,
 * in include/lowlat_config.h.
 *
 * Precedence, lowest to highest, each applied over the one before:
 *   built-in defaults < default.json < game file (or the LOWLAT_CONFIG file, which replaces it)
 *   < VK_EXT_layer_settings < LOWLAT_* environment variables.
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

#include "lowlat_config.h"

/* One bit per key, 1u << LOWLAT_KEY_*: which keys a source set. */
#define LOWLAT_KEY_BIT(key) (1u << (key))

/* A source's name in messages: a file's path, or how the value arrived. */
enum lowlat_config_origin_kind {
	LOWLAT_ORIGIN_FILE,     /* `path: "key": value ...` */
	LOWLAT_ORIGIN_ENV,      /* `LOWLAT_KEY=value ...` */
	LOWLAT_ORIGIN_SETTINGS, /* `VK_EXT_layer_settings: "key": value ...` */
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

/* --- Game key (config_game.c) ---------------------------------------------------------------- */

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

#endif
