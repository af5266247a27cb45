/* control.h — the control socket (control.c). */
#ifndef LOWLAT_CONTROL_H
#define LOWLAT_CONTROL_H

/* Create $XDG_RUNTIME_DIR/lowlat/<game_key>-<pid>.sock and the thread serving it; says in one
 * line where it is, or why there is none. Once per process; later calls do nothing. */
void lowlat_control_start(const char *game_key);

/* Stop the thread, remove the socket. The library's destructor; callable directly by tests. */
void lowlat_control_stop(void);

#endif
