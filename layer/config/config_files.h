/* config_files.h — the files, the whole chain and reload (config_files.c); the types are
 * config.h's. */
#ifndef LOWLAT_CONFIG_FILES_H
#define LOWLAT_CONFIG_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

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

#endif
