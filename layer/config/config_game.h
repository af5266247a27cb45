/* config_game.h — the game key (config_game.c); the types are config.h's. */
#ifndef LOWLAT_CONFIG_GAME_H
#define LOWLAT_CONFIG_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

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
