/* xwindow.c — see xwindow.h. Owns the libxcb handle and the connection. */
#include "xwindow.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CONNECT_TRIES    5
#define CONNECT_RETRY_NS 200000000 /* 200 ms */

#define XCB_COPY_FROM_PARENT          0
#define XCB_WINDOW_CLASS_INPUT_OUTPUT 1
#define XCB_CW_BACK_PIXEL             2

struct xdisplay {
	void *lib;
	xcb_connection_t *conn;
	xcb_screen_t *screen;

	xcb_connection_t *(*connect)(const char *name, int *screen);
	int (*connection_has_error)(xcb_connection_t *c);
	const xcb_setup_t *(*get_setup)(xcb_connection_t *c);
	xcb_screen_iterator_t (*setup_roots_iterator)(const xcb_setup_t *setup);
	void (*screen_next)(xcb_screen_iterator_t *i);
	uint32_t (*generate_id)(xcb_connection_t *c);
	xcb_void_cookie_t (*create_window)(xcb_connection_t *c, uint8_t depth, xcb_window_t wid,
	                                   xcb_window_t parent, int16_t x, int16_t y, uint16_t width,
	                                   uint16_t height, uint16_t border_width, uint16_t class_,
	                                   xcb_visualid_t visual, uint32_t value_mask, const void *values);
	xcb_void_cookie_t (*map_window)(xcb_connection_t *c, xcb_window_t window);
	xcb_void_cookie_t (*destroy_window)(xcb_connection_t *c, xcb_window_t window);
	int (*flush)(xcb_connection_t *c);
	void (*disconnect)(xcb_connection_t *c);
};

static int load(struct xdisplay *d)
{
	/* POSIX guarantees dlsym's void * holds a function pointer; storing through void ** keeps ISO
	 * C's object-to-function pointer cast warning quiet. */
#define LOAD(field, name)                                                                                    \
	do {                                                                                                 \
		*(void **)&d->field = dlsym(d->lib, name);                                                   \
		if (!d->field) {                                                                             \
			fprintf(stderr, "xwindow: libxcb.so.1 lacks %s\n", name);                            \
			return -1;                                                                           \
		}                                                                                            \
	} while (0)
	LOAD(connect, "xcb_connect");
	LOAD(connection_has_error, "xcb_connection_has_error");
	LOAD(get_setup, "xcb_get_setup");
	LOAD(setup_roots_iterator, "xcb_setup_roots_iterator");
	LOAD(screen_next, "xcb_screen_next");
	LOAD(generate_id, "xcb_generate_id");
	LOAD(create_window, "xcb_create_window");
	LOAD(map_window, "xcb_map_window");
	LOAD(destroy_window, "xcb_destroy_window");
	LOAD(flush, "xcb_flush");
	LOAD(disconnect, "xcb_disconnect");
#undef LOAD
	return 0;
}

struct xdisplay *xdisplay_open(void)
{
	struct xdisplay *d = calloc(1, sizeof(*d));
	xcb_screen_iterator_t it;
	int screen = 0;

	if (!d) {
		fprintf(stderr, "xwindow: out of memory\n");
		return NULL;
	}
	d->lib = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		fprintf(stderr, "xwindow: %s\n", dlerror());
		goto fail;
	}
	if (load(d))
		goto fail;
	/* On the shared test machines a connection to a live Xvfb now and then fails at once (xcb error 1,
	 * a socket error) when many tests start together; a few tries keep that from failing a test,
	 * and each is reported so it stays visible. */
	for (int attempt = 1;; attempt++) {
		const char *name = getenv("DISPLAY");
		int error;

		d->conn = d->connect(NULL, &screen);
		error = d->conn ? d->connection_has_error(d->conn) : -1;
		if (!error)
			break;
		fprintf(stderr, "xwindow: cannot connect to X display %s (xcb error %d)%s\n",
		        name ? name : "(DISPLAY unset)", error,
		        attempt < CONNECT_TRIES ? "; trying again" : "");
		if (d->conn)
			d->disconnect(d->conn); /* frees a failed connection too */
		d->conn = NULL;
		if (attempt == CONNECT_TRIES)
			goto fail;
		nanosleep(&(struct timespec){.tv_nsec = CONNECT_RETRY_NS}, NULL);
	}
	for (it = d->setup_roots_iterator(d->get_setup(d->conn)); it.rem && screen > 0; screen--)
		d->screen_next(&it);
	if (!it.rem) {
		fprintf(stderr, "xwindow: the X server has no screen %d\n", screen);
		goto fail;
	}
	d->screen = it.data;
	return d;

fail:
	xdisplay_close(d);
	return NULL;
}

xcb_connection_t *xdisplay_connection(const struct xdisplay *d)
{
	return d->conn;
}

xcb_window_t xdisplay_create_window(struct xdisplay *d, uint16_t width, uint16_t height)
{
	xcb_window_t window = d->generate_id(d->conn);
	uint32_t background = d->screen->black_pixel;

	d->create_window(d->conn, XCB_COPY_FROM_PARENT, window, d->screen->root, 0, 0, width, height, 0,
	                 XCB_WINDOW_CLASS_INPUT_OUTPUT, d->screen->root_visual, XCB_CW_BACK_PIXEL,
	                 &background);
	d->map_window(d->conn, window);
	/* Requests are buffered; the window must exist at the server before Vulkan's WSI asks about it. */
	if (d->flush(d->conn) <= 0) {
		fprintf(stderr, "xwindow: the X connection failed creating a window\n");
		return 0;
	}
	return window;
}

void xdisplay_destroy_window(struct xdisplay *d, xcb_window_t window)
{
	if (!window)
		return;
	d->destroy_window(d->conn, window);
	d->flush(d->conn);
}

void xdisplay_close(struct xdisplay *d)
{
	if (!d)
		return;
	if (d->conn)
		d->disconnect(d->conn);
	if (d->lib)
		dlclose(d->lib);
	free(d);
}
