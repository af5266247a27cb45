/* cli.h — the parts of the `lowlat` command: the wrapper (lowlat.c), `lowlat ctl` and
 * `lowlat status` (ctl.c), and how the game in the foreground is found (foreground.c). */
#ifndef LOWLAT_CLI_H
#define LOWLAT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* `lowlat ctl ...` and `lowlat status ...`, argv after the subcommand's name; exit status. */
int lowlat_ctl(int argc, char **argv);
int lowlat_status(int argc, char **argv);

/* The pid of the X11 window that has the focus (the root window's _NET_ACTIVE_WINDOW, that
 * window's _NET_WM_PID), through libxcb loaded at run time; 0 when there is no X display, no
 * libxcb, no window manager that sets the property, or no pid on the window. */
pid_t lowlat_x11_active_pid(void);

/* Whether `text` is a cap the layer takes for fps: a number from 0 to 10000, "refresh",
 * "refresh/N" (N a whole number from 1 to 100) or "refresh-N" (N from 0 to 10000). */
bool lowlat_cli_fps_ok(const char *text);

#endif
