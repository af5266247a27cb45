/* swapchain_life.h — a swapchain record's life (swapchain_life.c): created after the driver created
 * the swapchain, its pacing level chosen then, its settings brought up to date at each present,
 * destroyed with its summary line before the driver destroys it. The create, destroy and acquire
 * hooks are in hooks.h; the record itself is swapchain.h.
 */
#ifndef LOWLAT_SWAPCHAIN_LIFE_H
#define LOWLAT_SWAPCHAIN_LIFE_H

struct lowlat_device;
struct lowlat_swapchain;

/* Brings the swapchain's copy of the settings, and its pacer, up to the process's config. Called by
 * the thread presenting to it; costs an atomic load when nothing changed. */
void lowlat_swapchain_settings(struct lowlat_swapchain *sc);

/* DestroyDevice: frees the records of swapchains the app leaked. */
void lowlat_swapchain_device_teardown(struct lowlat_device *dev);

#endif
