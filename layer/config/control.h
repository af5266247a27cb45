/* control.h — lowlat's background thread and its control socket (control.c). */
#ifndef LOWLAT_CONTROL_H
#define LOWLAT_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "lowlat_config.h"

/* The longest command line: a key, a space and the longest log_dir. */
#define LOWLAT_CONTROL_LINE_MAX (LOWLAT_CONFIG_PATH_MAX + 64) /* bytes */

/* What the thread serves: each command line gets a one-line reply (command), and the periodic work
 * runs when due (tick, given CLOCK_MONOTONIC now, returns when it is next due; INT64_MAX: never). */
struct lowlat_control_hooks {
	const char *game_key; /* names the socket */
	void (*command)(const char *line, char *reply, size_t size);
	int64_t (*tick)(int64_t now_ns);
};

/* Starts the thread, and creates $XDG_RUNTIME_DIR/lowlat/<game_key>-<pid>.sock for it to serve;
 * says in one line where the socket is, or why there is none (the thread runs without). Once per
 * process; later calls do nothing. */
void lowlat_control_start(const struct lowlat_control_hooks *hooks);

/* Stop the thread, remove the socket. The library's destructor; callable directly by tests. */
void lowlat_control_stop(void);

#endif
