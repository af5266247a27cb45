/* foreground.c — the process of the X11 window that has the focus, for `lowlat ctl` without a
 * game named (ctl.c).
 *
 * Window managers that follow EWMH (KDE's KWin, GNOME's Mutter for X11 and XWayland windows, most
 * others) keep the focused window in the root window's _NET_ACTIVE_WINDOW, and toolkits (SDL, Wine,
 * GTK, Qt) put their pid in the window's _NET_WM_PID. libxcb is loaded at run time, so `lowlat`
 * needs no X library to build or run; the few types it needs are declared here, their layout being
 * the X protocol's (as tests/apps/xwindow.c does).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct xcb_connection_t xcb_connection_t;
typedef struct xcb_setup_t xcb_setup_t;
typedef uint32_t xcb_window_t;
typedef uint32_t xcb_atom_t;

typedef struct {
	xcb_window_t root;
	/* ... the rest of xcb_screen_t, unused */
} xcb_screen_t;

typedef struct {
	xcb_screen_t *data;
	int rem;
	int index;
} xcb_screen_iterator_t;

typedef struct {
	unsigned int sequence;
} xcb_cookie_t;

typedef struct {
	uint8_t response_type;
	uint8_t pad0;
	uint16_t sequence;
	uint32_t length;
	xcb_atom_t atom;
} xcb_intern_atom_reply_t;

typedef struct {
	uint8_t response_type;
	uint8_t format;
	uint16_t sequence;
	uint32_t length;
	xcb_atom_t type;
	uint32_t bytes_after;
	uint32_t value_len;
	uint8_t pad0[12];
} xcb_get_property_reply_t;

#define XCB_ATOM_WINDOW   33
#define XCB_ATOM_CARDINAL 6

struct xcb {
	void *lib;
	xcb_connection_t *(*connect)(const char *name, int *screen);
	int (*connection_has_error)(xcb_connection_t *c);
	void (*disconnect)(xcb_connection_t *c);
	const xcb_setup_t *(*get_setup)(xcb_connection_t *c);
	xcb_screen_iterator_t (*setup_roots_iterator)(const xcb_setup_t *setup);
	void (*screen_next)(xcb_screen_iterator_t *i);
	xcb_cookie_t (*intern_atom)(xcb_connection_t *c, uint8_t only_if_exists, uint16_t len,
	                            const char *name);
	xcb_intern_atom_reply_t *(*intern_atom_reply)(xcb_connection_t *c, xcb_cookie_t cookie, void **e);
	xcb_cookie_t (*get_property)(xcb_connection_t *c, uint8_t del, xcb_window_t window,
	                             xcb_atom_t property, xcb_atom_t type, uint32_t offset, uint32_t length);
	xcb_get_property_reply_t *(*get_property_reply)(xcb_connection_t *c, xcb_cookie_t cookie, void **e);
	void *(*get_property_value)(const xcb_get_property_reply_t *r);
};

static bool load(struct xcb *x)
{
	/* POSIX makes dlsym's void * hold a function pointer; storing through void ** keeps ISO C's
	 * object-to-function cast warning quiet. */
#define LOAD(field, name)                                                                                    \
	if (!(*(void **)&x->field = dlsym(x->lib, name)))                                                    \
		return false;
	LOAD(connect, "xcb_connect");
	LOAD(connection_has_error, "xcb_connection_has_error");
	LOAD(disconnect, "xcb_disconnect");
	LOAD(get_setup, "xcb_get_setup");
	LOAD(setup_roots_iterator, "xcb_setup_roots_iterator");
	LOAD(screen_next, "xcb_screen_next");
	LOAD(intern_atom, "xcb_intern_atom");
	LOAD(intern_atom_reply, "xcb_intern_atom_reply");
	LOAD(get_property, "xcb_get_property");
	LOAD(get_property_reply, "xcb_get_property_reply");
	LOAD(get_property_value, "xcb_get_property_value");
#undef LOAD
	return true;
}

static xcb_atom_t atom(struct xcb *x, xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r =
	        x->intern_atom_reply(c, x->intern_atom(c, 1, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : 0;

	free(r);
	return a;
}

/* One 32-bit value of `window`'s property of that type, 0 when there is none. */
static uint32_t property(struct xcb *x, xcb_connection_t *c, xcb_window_t window, xcb_atom_t prop,
                         xcb_atom_t type)
{
	xcb_get_property_reply_t *r =
	        x->get_property_reply(c, x->get_property(c, 0, window, prop, type, 0, 1), NULL);
	uint32_t v = 0;

	if (r && r->type == type && r->format == 32 && r->value_len >= 1)
		memcpy(&v, x->get_property_value(r), sizeof(v));
	free(r);
	return v;
}

pid_t lowlat_x11_active_pid(void)
{
	struct xcb x = {0};
	xcb_connection_t *c;
	xcb_screen_iterator_t it;
	int screen = 0;
	pid_t pid = 0;

	if (!getenv("DISPLAY") || !(x.lib = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL)))
		return 0;
	if (!load(&x)) {
		dlclose(x.lib);
		return 0;
	}
	c = x.connect(NULL, &screen);
	if (c && !x.connection_has_error(c)) {
		for (it = x.setup_roots_iterator(x.get_setup(c)); it.rem && screen > 0; screen--)
			x.screen_next(&it);
		xcb_atom_t active = atom(&x, c, "_NET_ACTIVE_WINDOW"), wm_pid = atom(&x, c, "_NET_WM_PID");
		xcb_window_t window =
		        it.rem && active ? property(&x, c, it.data->root, active, XCB_ATOM_WINDOW) : 0;
		if (window && wm_pid)
			pid = (pid_t)property(&x, c, window, wm_pid, XCB_ATOM_CARDINAL);
	}
	if (c)
		x.disconnect(c);
	dlclose(x.lib);
	return pid;
}
