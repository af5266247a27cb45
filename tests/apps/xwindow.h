/* xwindow.h — plain X11 windows for the test apps, through libxcb loaded at run time.
 *
 * The test root has libxcb.so.1 (Mesa's X11 WSI and Xvfb need it) but not its development headers,
 * and its package list is not ours to grow for one test app. So this file declares the few xcb
 * types that VK_KHR_xcb_surface names and xwindow.c dlopen()s the library; the X protocol fixes
 * these layouts, so they cannot drift from libxcb's. Include this before <vulkan/vulkan_xcb.h>.
 */
#ifndef LOWLAT_TEST_XWINDOW_H
#define LOWLAT_TEST_XWINDOW_H

#include <stdint.h>

typedef struct xcb_connection_t xcb_connection_t;
typedef uint32_t xcb_window_t;
typedef uint32_t xcb_visualid_t;

/* From xcb/xproto.h, for the apps that call libxcb themselves (xwindow.c, x_active.c); these
 * mirror the X11 connection setup reply, so their layout is fixed. */
typedef struct {
	xcb_window_t root;
	uint32_t default_colormap;
	uint32_t white_pixel;
	uint32_t black_pixel;
	uint32_t current_input_masks;
	uint16_t width_in_pixels;
	uint16_t height_in_pixels;
	uint16_t width_in_millimeters;
	uint16_t height_in_millimeters;
	uint16_t min_installed_maps;
	uint16_t max_installed_maps;
	xcb_visualid_t root_visual;
	uint8_t backing_stores;
	uint8_t save_unders;
	uint8_t root_depth;
	uint8_t allowed_depths_len;
} xcb_screen_t;

typedef struct {
	xcb_screen_t *data;
	int rem;
	int index;
} xcb_screen_iterator_t;

typedef struct {
	unsigned int sequence;
} xcb_void_cookie_t;

typedef struct xcb_setup_t xcb_setup_t;

struct xdisplay;

/* Opens the display named by $DISPLAY; NULL (with a message on stderr) when there is none. */
struct xdisplay *xdisplay_open(void);
xcb_connection_t *xdisplay_connection(const struct xdisplay *d);
/* Creates and maps a top-level window; 0 (with a message) on failure. */
xcb_window_t xdisplay_create_window(struct xdisplay *d, uint16_t width, uint16_t height);
void xdisplay_destroy_window(struct xdisplay *d, xcb_window_t window);
void xdisplay_close(struct xdisplay *d);

#endif
