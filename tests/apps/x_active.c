/* x_active.c — stands in for a window manager in the tests of `lowlat ctl`'s foreground game
 * (cli/foreground.c): makes an X window whose _NET_WM_PID is the given pid and names it in the root
 * window's _NET_ACTIVE_WINDOW, as an EWMH window manager does for the focused window. Xvfb has no
 * window manager of its own.
 *
 *   x_active PID      prints "ready" once the properties are set, then holds the window until its
 *                     stdin closes (the properties go with it: the window is destroyed on exit).
 *
 * libxcb is loaded at run time (the test root has no xcb headers; see xwindow.h).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xwindow.h"

typedef uint32_t xcb_atom_t;
typedef xcb_void_cookie_t xcb_cookie_t; /* every request's cookie is its sequence number */

typedef struct {
	uint8_t response_type, pad0;
	uint16_t sequence;
	uint32_t length;
	xcb_atom_t atom;
} xcb_intern_atom_reply_t;

#define XCB_PROP_MODE_REPLACE       0
#define XCB_WINDOW_CLASS_INPUT_ONLY 2
#define XCB_ATOM_WINDOW             33
#define XCB_ATOM_CARDINAL           6

static struct {
	xcb_connection_t *(*connect)(const char *, int *);
	int (*has_error)(xcb_connection_t *);
	const xcb_setup_t *(*get_setup)(xcb_connection_t *);
	xcb_screen_iterator_t (*roots)(const xcb_setup_t *);
	void (*screen_next)(xcb_screen_iterator_t *);
	uint32_t (*generate_id)(xcb_connection_t *);
	xcb_cookie_t (*create_window)(xcb_connection_t *, uint8_t, xcb_window_t, xcb_window_t, int16_t,
	                              int16_t, uint16_t, uint16_t, uint16_t, uint16_t, uint32_t, uint32_t,
	                              const void *);
	xcb_cookie_t (*intern_atom)(xcb_connection_t *, uint8_t, uint16_t, const char *);
	xcb_intern_atom_reply_t *(*intern_atom_reply)(xcb_connection_t *, xcb_cookie_t, void **);
	xcb_cookie_t (*change_property)(xcb_connection_t *, uint8_t, xcb_window_t, xcb_atom_t, xcb_atom_t,
	                                uint8_t, uint32_t, const void *);
	int (*flush)(xcb_connection_t *);
	void (*disconnect)(xcb_connection_t *);
} x;

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r =
	        x.intern_atom_reply(c, x.intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : 0;

	free(r);
	return a;
}

int main(int argc, char **argv)
{
	void *lib = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
	xcb_screen_iterator_t it;
	int screen = 0;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: x_active PID\n");
		return 2;
	}
	if (!lib) {
		fprintf(stderr, "x_active: %s\n", dlerror());
		return 1;
	}
#define LOAD(field, name)                                                                                    \
	if (!(*(void **)&x.field = dlsym(lib, name))) {                                                      \
		fprintf(stderr, "x_active: libxcb.so.1 lacks %s\n", name);                                   \
		return 1;                                                                                    \
	}
	LOAD(connect, "xcb_connect");
	LOAD(has_error, "xcb_connection_has_error");
	LOAD(get_setup, "xcb_get_setup");
	LOAD(roots, "xcb_setup_roots_iterator");
	LOAD(screen_next, "xcb_screen_next");
	LOAD(generate_id, "xcb_generate_id");
	LOAD(create_window, "xcb_create_window");
	LOAD(intern_atom, "xcb_intern_atom");
	LOAD(intern_atom_reply, "xcb_intern_atom_reply");
	LOAD(change_property, "xcb_change_property");
	LOAD(flush, "xcb_flush");
	LOAD(disconnect, "xcb_disconnect");
#undef LOAD
	xcb_connection_t *c = x.connect(NULL, &screen);
	if (!c || x.has_error(c)) {
		fprintf(stderr, "x_active: cannot connect to the X display\n");
		return 1;
	}
	for (it = x.roots(x.get_setup(c)); it.rem && screen > 0; screen--)
		x.screen_next(&it);
	xcb_window_t root = it.data->root, window = x.generate_id(c);
	uint32_t pid = (uint32_t)atoi(argv[1]);

	x.create_window(c, 0, window, root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY, 0, 0, NULL);
	x.change_property(c, XCB_PROP_MODE_REPLACE, window, atom(c, "_NET_WM_PID"), XCB_ATOM_CARDINAL, 32, 1,
	                  &pid);
	x.change_property(c, XCB_PROP_MODE_REPLACE, root, atom(c, "_NET_ACTIVE_WINDOW"), XCB_ATOM_WINDOW, 32,
	                  1, &window);
	/* intern_atom's round trip above has flushed the window; this flushes the properties. */
	x.flush(c);
	atom(c, "_NET_WM_PID");
	printf("ready\n");
	fflush(stdout);
	while (getchar() != EOF)
		;
	x.disconnect(c);
	return 0;
}
