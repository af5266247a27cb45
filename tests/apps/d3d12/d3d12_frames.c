/* d3d12_frames.c — a minimal D3D12 game loop on vkd3d-proton's own swapchain, to run the D3D12 code
 * Proton ships through lowlat.
 *
 * Built natively against vkd3d-proton (tests/vkd3d/build.sh), it presents the way Proton's DXGI does:
 * through IDXGIVkSwapChainFactory, which vkd3d-proton's command queue offers, onto an X window (a
 * surface factory of our own makes the VkSurfaceKHR). Each frame it waits for the swapchain's
 * frame-latency event (the waitable object of a DXGI flip-model swapchain), optionally sleeps through
 * ID3DLowLatencyDevice as dxvk-nvapi does for a Reflex game (vkd3d-proton turns that into
 * vkLatencySleepNV), reads the clock (its frame start), clears the back buffer to a colour that
 * changes every frame and presents. A clear is enough: vkd3d-proton records, submits and presents
 * it from its own queue thread exactly as it does a real frame.
 *
 *   d3d12_frames FRAMES [--sync-interval N] [--latency N] [--reflex] [--starts FILE]
 *
 * --sync-interval: Present's first argument (default 1; 0 asks for no V-Sync; 2 and more make
 * vkd3d-proton target every Nth refresh with present timing where the driver has it).
 * --latency: IDXGIVkSwapChain::SetFrameLatency (default 1, DXGI's 3 when 0).
 * --reflex: ID3DLowLatencyDevice::SetLatencySleepMode(on) once, then LatencySleep and the markers
 * every frame; fails when vkd3d-proton offers no low-latency device (no VK_NV_low_latency2).
 * --starts: one line per frame, its start in nanoseconds on CLOCK_MONOTONIC.
 * At the end it prints
 *
 *   d3d12_frames: N frames in S s, F fps (sync interval I)
 *
 * S runs from the first frame's start to the return of the last Present, F = N / S. Exit status 0
 * on success; 1 with a `d3d12_frames: ...` message on stderr on any failure; 2 on bad usage.
 */
/* The IIDs are defined here, once: the headers declare them. */
#define INITGUID
#define COBJMACROS
#define WIDL_C_INLINE_WRAPPERS
#define VK_USE_PLATFORM_XCB_KHR
#include <vkd3d.h>
#include <vkd3d_d3d12.h>
#include <vkd3d_device_vkd3d_ext.h>
#include <vkd3d_swapchain_factory.h>
#include <vkd3d_windows.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

#define WIDTH   320 /* small: lavapipe's clears cost little, the rate is what is tested */
#define HEIGHT  240
#define BUFFERS 3

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(const char *what, long code)
{
	fprintf(stderr, "d3d12_frames: %s failed (0x%08lx)\n", what, (unsigned long)code);
	exit(1);
}

#define CHECK(call)                                                                                          \
	do {                                                                                                 \
		HRESULT hr_ = (call);                                                                        \
		if (FAILED(hr_))                                                                             \
			fail(#call, hr_);                                                                    \
	} while (0)

/* ---- the surface factory: vkd3d-proton asks it for a VkSurfaceKHR on its own instance ---- */

struct surface_factory {
	IDXGIVkSurfaceFactory iface;
	LONG refs;
	xcb_connection_t *connection;
	xcb_window_t window;
	PFN_vkCreateXcbSurfaceKHR create;
};

static struct surface_factory *factory_of(IDXGIVkSurfaceFactory *iface)
{
	return (struct surface_factory *)((char *)iface - offsetof(struct surface_factory, iface));
}

static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IDXGIVkSurfaceFactory *iface, REFIID riid, void **out)
{
	if (IsEqualGUID(riid, &IID_IDXGIVkSurfaceFactory) || IsEqualGUID(riid, &IID_IUnknown)) {
		IDXGIVkSurfaceFactory_AddRef(iface);
		*out = iface;
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE factory_AddRef(IDXGIVkSurfaceFactory *iface)
{
	return (ULONG)__atomic_add_fetch(&factory_of(iface)->refs, 1, __ATOMIC_SEQ_CST);
}

static ULONG STDMETHODCALLTYPE factory_Release(IDXGIVkSurfaceFactory *iface)
{
	struct surface_factory *f = factory_of(iface);
	LONG refs = __atomic_sub_fetch(&f->refs, 1, __ATOMIC_SEQ_CST);

	if (!refs)
		free(f);
	return (ULONG)refs;
}

static VkResult STDMETHODCALLTYPE factory_CreateSurface(IDXGIVkSurfaceFactory *iface, VkInstance instance,
                                                        VkPhysicalDevice physical, VkSurfaceKHR *surface)
{
	struct surface_factory *f = factory_of(iface);
	const VkXcbSurfaceCreateInfoKHR info = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
	                                        .connection = f->connection,
	                                        .window = f->window};

	(void)physical;
	return f->create(instance, &info, NULL, surface);
}

static CONST_VTBL struct IDXGIVkSurfaceFactoryVtbl factory_vtbl = {
        factory_QueryInterface,
        factory_AddRef,
        factory_Release,
        factory_CreateSurface,
};

static IDXGIVkSurfaceFactory *surface_factory_create(xcb_connection_t *connection, xcb_window_t window)
{
	/* The loader vkd3d-proton itself loads, so the surface belongs to its instance's loader. */
	void *vulkan = dlopen("libvulkan.so.1", RTLD_NOW);
	struct surface_factory *f = calloc(1, sizeof(*f));

	if (!vulkan || !f)
		fail("loading libvulkan.so.1", 0);
	f->iface.lpVtbl = &factory_vtbl;
	f->refs = 1;
	f->connection = connection;
	f->window = window;
	if (!(f->create = (PFN_vkCreateXcbSurfaceKHR)dlsym(vulkan, "vkCreateXcbSurfaceKHR")))
		fail("dlsym(vkCreateXcbSurfaceKHR)", 0);
	return &f->iface;
}

static xcb_window_t window_create(xcb_connection_t *c)
{
	const xcb_setup_t *setup = xcb_get_setup(c);
	xcb_screen_t *screen = xcb_setup_roots_iterator(setup).data;
	xcb_window_t window = xcb_generate_id(c);

	xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, WIDTH, HEIGHT, 0,
	                  XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, NULL);
	xcb_map_window(c, window);
	xcb_flush(c);
	return window;
}

/* ---- the game loop ---- */

struct game {
	ID3D12Device *device;
	ID3D12CommandQueue *queue;
	IDXGIVkSwapChain *swapchain;
	ID3D12DescriptorHeap *rtv_heap;
	UINT rtv_size;
	ID3D12Resource *targets[BUFFERS];
	ID3D12CommandAllocator *allocators[BUFFERS];
	ID3D12GraphicsCommandList *list;
	ID3D12Fence *fence;
	UINT64 fence_value, submitted[BUFFERS];
	int fence_event, latency_event;
	ID3DLowLatencyDevice *low_latency;
};

static void wait_event(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		fail("read(eventfd)", 0);
}

static void setup(struct game *g, xcb_connection_t *c, xcb_window_t window, unsigned latency, bool reflex)
{
	const D3D12_COMMAND_QUEUE_DESC queue_desc = {.Type = D3D12_COMMAND_LIST_TYPE_DIRECT};
	IDXGIVkSwapChainFactory *factory;

	CHECK(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g->device));
	CHECK(ID3D12Device_CreateCommandQueue(g->device, &queue_desc, &IID_ID3D12CommandQueue,
	                                      (void **)&g->queue));
	CHECK(ID3D12CommandQueue_QueryInterface(g->queue, &IID_IDXGIVkSwapChainFactory, (void **)&factory));

	const DXGI_SWAP_CHAIN_DESC1 desc = {
	        .Width = WIDTH,
	        .Height = HEIGHT,
	        .Format = DXGI_FORMAT_B8G8R8A8_UNORM,
	        .SampleDesc = {.Count = 1},
	        .BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT,
	        .BufferCount = BUFFERS,
	        .Scaling = DXGI_SCALING_STRETCH,
	        .SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD,
	        .AlphaMode = DXGI_ALPHA_MODE_IGNORE,
	        .Flags = DXGI_SWAP_CHAIN_FLAG_FRAME_LATENCY_WAITABLE_OBJECT,
	};
	IDXGIVkSurfaceFactory *surfaces = surface_factory_create(c, window);
	CHECK(IDXGIVkSwapChainFactory_CreateSwapChain(factory, surfaces, &desc, &g->swapchain));
	IDXGIVkSurfaceFactory_Release(surfaces);
	IDXGIVkSwapChainFactory_Release(factory);
	if (latency)
		CHECK(IDXGIVkSwapChain_SetFrameLatency(g->swapchain, latency));
	g->latency_event = (int)(intptr_t)IDXGIVkSwapChain_GetFrameLatencyEvent(g->swapchain);

	const D3D12_DESCRIPTOR_HEAP_DESC heap_desc = {.Type = D3D12_DESCRIPTOR_HEAP_TYPE_RTV,
	                                              .NumDescriptors = BUFFERS};
	CHECK(ID3D12Device_CreateDescriptorHeap(g->device, &heap_desc, &IID_ID3D12DescriptorHeap,
	                                        (void **)&g->rtv_heap));
	g->rtv_size =
	        ID3D12Device_GetDescriptorHandleIncrementSize(g->device, D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
	D3D12_CPU_DESCRIPTOR_HANDLE rtv =
	        ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(g->rtv_heap);
	for (unsigned i = 0; i < BUFFERS; i++) {
		CHECK(IDXGIVkSwapChain_GetImage(g->swapchain, i, &IID_ID3D12Resource,
		                                (void **)&g->targets[i]));
		ID3D12Device_CreateRenderTargetView(g->device, g->targets[i], NULL, rtv);
		rtv.ptr += g->rtv_size;
		CHECK(ID3D12Device_CreateCommandAllocator(g->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
		                                          &IID_ID3D12CommandAllocator,
		                                          (void **)&g->allocators[i]));
	}
	CHECK(ID3D12Device_CreateCommandList(g->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocators[0],
	                                     NULL, &IID_ID3D12GraphicsCommandList, (void **)&g->list));
	CHECK(ID3D12GraphicsCommandList_Close(g->list));
	CHECK(ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
	                               (void **)&g->fence));
	if ((g->fence_event = eventfd(0, EFD_CLOEXEC)) < 0)
		fail("eventfd", 0);

	if (reflex) {
		if (FAILED(ID3D12Device_QueryInterface(g->device, &IID_ID3DLowLatencyDevice,
		                                       (void **)&g->low_latency)) ||
		    !ID3DLowLatencyDevice_SupportsLowLatency(g->low_latency))
			fail("ID3DLowLatencyDevice (vkd3d-proton without VK_NV_low_latency2)", 0);
		CHECK(ID3DLowLatencyDevice_SetLatencySleepMode(g->low_latency, TRUE, FALSE, 0));
	}
}

/* The allocator of back buffer I is free once the GPU finished its last frame. */
static void wait_allocator(struct game *g, unsigned i)
{
	if (ID3D12Fence_GetCompletedValue(g->fence) >= g->submitted[i])
		return;
	CHECK(ID3D12Fence_SetEventOnCompletion(g->fence, g->submitted[i], (HANDLE)(intptr_t)g->fence_event));
	wait_event(g->fence_event);
}

/* Records and submits frame N's clear of the current back buffer. */
static void render(struct game *g, unsigned n)
{
	unsigned i = IDXGIVkSwapChain_GetImageIndex(g->swapchain);
	D3D12_RESOURCE_BARRIER barrier = {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION};
	const float colour[4] = {(float)(n % 61) / 60.0f, (float)(n % 97) / 96.0f, 0.5f, 1.0f};
	D3D12_CPU_DESCRIPTOR_HANDLE rtv =
	        ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(g->rtv_heap);

	rtv.ptr += i * g->rtv_size;
	wait_allocator(g, i);
	CHECK(ID3D12CommandAllocator_Reset(g->allocators[i]));
	CHECK(ID3D12GraphicsCommandList_Reset(g->list, g->allocators[i], NULL));
	barrier.Transition.pResource = g->targets[i];
	barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
	barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_PRESENT;
	barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_RENDER_TARGET;
	ID3D12GraphicsCommandList_ResourceBarrier(g->list, 1, &barrier);
	ID3D12GraphicsCommandList_ClearRenderTargetView(g->list, rtv, colour, 0, NULL);
	barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_RENDER_TARGET;
	barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_PRESENT;
	ID3D12GraphicsCommandList_ResourceBarrier(g->list, 1, &barrier);
	CHECK(ID3D12GraphicsCommandList_Close(g->list));
	ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
	ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
	CHECK(ID3D12CommandQueue_Signal(g->queue, g->fence, ++g->fence_value));
	g->submitted[i] = g->fence_value;
}

/* dxvk-nvapi's order for a Reflex frame: sleep, then the markers around the frame's phases. */
static void marker(struct game *g, unsigned n, UINT32 type)
{
	if (g->low_latency)
		CHECK(ID3DLowLatencyDevice_SetLatencyMarker(g->low_latency, n + 1, type));
}

int main(int argc, char **argv)
{
	unsigned frames = 0, sync_interval = 1, latency = 1;
	const char *starts_path = NULL;
	bool reflex = false;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--sync-interval") && a + 1 < argc)
			sync_interval = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--latency") && a + 1 < argc)
			latency = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--starts") && a + 1 < argc)
			starts_path = argv[++a];
		else if (!strcmp(argv[a], "--reflex"))
			reflex = true;
		else if (!frames && atoi(argv[a]) > 0)
			frames = (unsigned)atoi(argv[a]);
		else
			frames = 0, a = argc;
	}
	if (!frames) {
		fprintf(stderr, "usage: d3d12_frames FRAMES [--sync-interval N] [--latency N] [--reflex] "
		                "[--starts FILE]\n");
		return 2;
	}
	FILE *starts = starts_path ? fopen(starts_path, "w") : NULL;
	if (starts_path && !starts)
		fail("fopen(--starts)", 0);
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c))
		fail("xcb_connect", 0);

	struct game g = {0};
	setup(&g, c, window_create(c), latency, reflex);
	int64_t first = 0, end;
	for (unsigned n = 0; n < frames; n++) {
		/* Where a DXGI game blocks before its frame: the swapchain's waitable object. */
		wait_event(g.latency_event);
		if (g.low_latency)
			CHECK(ID3DLowLatencyDevice_LatencySleep(g.low_latency));
		int64_t start = now_ns();
		if (!n)
			first = start;
		if (starts)
			fprintf(starts, "%lld\n", (long long)start);
		marker(&g, n, VK_LATENCY_MARKER_SIMULATION_START_NV);
		marker(&g, n, VK_LATENCY_MARKER_SIMULATION_END_NV);
		marker(&g, n, VK_LATENCY_MARKER_RENDERSUBMIT_START_NV);
		render(&g, n);
		marker(&g, n, VK_LATENCY_MARKER_RENDERSUBMIT_END_NV);
		marker(&g, n, VK_LATENCY_MARKER_PRESENT_START_NV);
		CHECK(IDXGIVkSwapChain_Present(g.swapchain, sync_interval, 0, NULL));
		marker(&g, n, VK_LATENCY_MARKER_PRESENT_END_NV);
	}
	end = now_ns();

	/* Let the GPU finish before the swapchain and device go away. */
	CHECK(ID3D12CommandQueue_Signal(g.queue, g.fence, ++g.fence_value));
	for (unsigned i = 0; i < BUFFERS; i++)
		g.submitted[i] = g.fence_value;
	wait_allocator(&g, 0);
	double seconds = (double)(end - first) / 1e9;
	printf("d3d12_frames: %u frames in %.3f s, %.2f fps (sync interval %u)\n", frames, seconds,
	       frames / seconds, sync_interval);
	if (starts)
		fclose(starts);
	if (g.low_latency)
		ID3DLowLatencyDevice_Release(g.low_latency);
	ID3D12Fence_Release(g.fence);
	ID3D12GraphicsCommandList_Release(g.list);
	for (unsigned i = 0; i < BUFFERS; i++) {
		ID3D12CommandAllocator_Release(g.allocators[i]);
		ID3D12Resource_Release(g.targets[i]);
	}
	ID3D12DescriptorHeap_Release(g.rtv_heap);
	IDXGIVkSwapChain_Release(g.swapchain);
	ID3D12CommandQueue_Release(g.queue);
	ID3D12Device_Release(g.device);
	close(g.fence_event);
	xcb_disconnect(c);
	return 0;
}
