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

struct xdisplay;

/* Opens the display named by $DISPLAY; NULL (with a message on stderr) when there is none. */
struct xdisplay *xdisplay_open(void);
xcb_connection_t *xdisplay_connection(const struct xdisplay *d);
/* Creates and maps a top-level window; 0 (with a message) on failure. */
xcb_window_t xdisplay_create_window(struct xdisplay *d, uint16_t width, uint16_t height);
void xdisplay_destroy_window(struct xdisplay *d, xcb_window_t window);
void xdisplay_close(struct xdisplay *d);

#endif
