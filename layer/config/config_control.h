/* config_control.h — the control commands (config_control.c); the types are config.h's. */
#ifndef LOWLAT_CONFIG_CONTROL_H
#define LOWLAT_CONFIG_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

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

#endif
