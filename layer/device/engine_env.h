/* engine_env.h — where engine.h's inputs are read (engine_env.c): the engines' and MangoHud's
 * settings from the environment, files and the process, for each instance and device. */
#ifndef LOWLAT_ENGINE_ENV_H
#define LOWLAT_ENGINE_ENV_H

#include <stdbool.h>

/* Reads the engines' and MangoHud's settings, and whether MangoHud's Vulkan layer is
 * in the process, into the instance (by_engine, by_mangohud and why); says once when DXVK or
 * vkd3d-proton run at their default frame latency. */
struct lowlat_instance;
void lowlat_engine_check(struct lowlat_instance *inst);

/* Which of those limiters hold on a device (engine_limits, engine_limit): vkd3d-proton's
 * VKD3D_FRAME_RATE only where the app enabled present wait (VK_KHR_present_wait or present_wait2),
 * since vkd3d-proton's swapchain keeps that rate after a present wait and nowhere else
 * (vkd3d-proton's libs/vkd3d/swapchain.c, dxgi_vk_swap_chain_delay_next_frame); says once when it does not
 * hold. */
struct lowlat_device;
void lowlat_engine_device(struct lowlat_device *dev, bool present_wait);

#endif
