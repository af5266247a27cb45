/* d3d11_frames.cpp — a minimal D3D11 game loop, to run real DXVK through lowlat.
 *
 * One source, two builds: natively against DXVK-native (an SDL2 window, whose SDL_Window* DXVK
 * takes as the HWND when DXVK_WSI_DRIVER=SDL2), and with mingw-w64 as LowlatTest.exe for Wine +
 * DXVK, the path Proton games take. Each frame it reads the clock first (its frame start: the
 * moment a late limiter should move), clears the back buffer to a colour that changes every
 * frame, and presents through a DXGI flip-model swapchain. Clearing is enough: DXVK records the
 * clear, submits it and presents from its own threads exactly as it does for a real frame, and a
 * shader would need a compiler (d3dcompiler) or precompiled bytecode for no extra coverage.
 *
 *   d3d11_frames FRAMES [SYNC_INTERVAL [FRAME_START_FILE]]
 *
 * SYNC_INTERVAL is Present's first argument (default 1, V-Sync: DXVK asks for FIFO; 0 asks for
 * MAILBOX or IMMEDIATE). FRAME_START_FILE, when given, receives one line per frame: its start in
 * nanoseconds on the program's clock (CLOCK_MONOTONIC natively, QueryPerformanceCounter on
 * Windows and Wine), so only differences are meaningful across builds. At the end it prints
 *
 *   d3d11_frames: N frames in S s, F fps (sync interval I)
 *
 * where S runs from the first frame's start to the return of the last Present and F = N / S.
 * Exit status 0 on success; 1 with a `d3d11_frames: ...` message on stderr on any failure.
 */
#ifdef _WIN32
#include <windows.h>
#else
#include <SDL.h>
#include <time.h>
#endif
#include <d3d11.h>
#include <dxgi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

/* Small, so lavapipe's clears cost little and the frame rate is set by what is being tested. */
#define WIDTH  320
#define HEIGHT 240

static int fail(const char *what, long code)
{
	fprintf(stderr, "d3d11_frames: %s failed (0x%08lx)\n", what, (unsigned long)code);
	return 1;
}

#ifdef _WIN32
static int64_t now_ns(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER t;
	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&t);
	/* Whole seconds and the remainder apart, so ticks * 1e9 cannot overflow. */
	return t.QuadPart / freq.QuadPart * 1000000000ll +
	       t.QuadPart % freq.QuadPart * 1000000000ll / freq.QuadPart;
}

static LRESULT CALLBACK window_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
	return DefWindowProcA(hwnd, msg, wp, lp);
}

static HWND create_window(void)
{
	WNDCLASSA wc = {};
	wc.lpfnWndProc = window_proc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = "d3d11_frames";
	if (!RegisterClassA(&wc))
		return NULL;
	RECT r = {0, 0, WIDTH, HEIGHT};
	AdjustWindowRect(&r, WS_OVERLAPPEDWINDOW, FALSE);
	HWND hwnd = CreateWindowA("d3d11_frames", "d3d11_frames", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
	                          CW_USEDEFAULT, CW_USEDEFAULT, r.right - r.left, r.bottom - r.top, NULL,
	                          NULL, wc.hInstance, NULL);
	return hwnd;
}

/* A game keeps its window responsive; so does this loop, or Wine's window would stop updating. */
static void pump_events(void)
{
	MSG msg;
	while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE)) {
		TranslateMessage(&msg);
		DispatchMessageA(&msg);
	}
}
#else
static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static SDL_Window *sdl_window;

static HWND create_window(void)
{
	/* DXVK-native picks its window system from this; the SDL2 one is the one we link. */
	setenv("DXVK_WSI_DRIVER", "SDL2", 0);
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		fprintf(stderr, "d3d11_frames: SDL_Init: %s\n", SDL_GetError());
		return NULL;
	}
	sdl_window = SDL_CreateWindow("d3d11_frames", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, WIDTH,
	                              HEIGHT, SDL_WINDOW_VULKAN | SDL_WINDOW_SHOWN);
	if (!sdl_window)
		fprintf(stderr, "d3d11_frames: SDL_CreateWindow: %s\n", SDL_GetError());
	/* DXVK-native's SDL2 WSI takes the SDL_Window* as the HWND. */
	return (HWND)sdl_window;
}

static void pump_events(void)
{
	SDL_Event event;
	while (SDL_PollEvent(&event)) {
	}
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: d3d11_frames FRAMES [SYNC_INTERVAL [FRAME_START_FILE]]\n");
		return 2;
	}
	const int frames = atoi(argv[1]);
	const UINT interval = argc > 2 ? (UINT)atoi(argv[2]) : 1;
	const char *times_path = argc > 3 ? argv[3] : NULL;
	std::vector<int64_t> starts((size_t)frames);

	HWND hwnd = create_window();
	if (!hwnd)
		return fail("creating the window", 0);

	/* The flip model with two buffers: what current games use, and what DXVK maps most directly
	 * onto a Vulkan swapchain. */
	DXGI_SWAP_CHAIN_DESC desc = {};
	desc.BufferDesc.Width = WIDTH;
	desc.BufferDesc.Height = HEIGHT;
	desc.BufferDesc.Format = DXGI_FORMAT_B8G8R8A8_UNORM;
	desc.SampleDesc.Count = 1;
	desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
	desc.BufferCount = 2;
	desc.OutputWindow = hwnd;
	desc.Windowed = TRUE;
	desc.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;

	IDXGISwapChain *swapchain = NULL;
	ID3D11Device *device = NULL;
	ID3D11DeviceContext *context = NULL;
	const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
	HRESULT hr =
	        D3D11CreateDeviceAndSwapChain(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1,
	                                      D3D11_SDK_VERSION, &desc, &swapchain, &device, NULL, &context);
	if (FAILED(hr))
		return fail("D3D11CreateDeviceAndSwapChain", hr);

	ID3D11Texture2D *back = NULL;
	hr = swapchain->GetBuffer(0, __uuidof(ID3D11Texture2D), (void **)&back);
	if (FAILED(hr))
		return fail("IDXGISwapChain::GetBuffer", hr);
	/* With the flip model buffer 0 is always the one being drawn, so one view serves every frame. */
	ID3D11RenderTargetView *rtv = NULL;
	hr = device->CreateRenderTargetView(back, NULL, &rtv);
	back->Release();
	if (FAILED(hr))
		return fail("ID3D11Device::CreateRenderTargetView", hr);

	int64_t end_ns = 0;
	for (int i = 0; i < frames; i++) {
		starts[(size_t)i] = now_ns();
		pump_events();
		float t = (float)(i % 120) / 120.0f;
		const float colour[4] = {t, 1.0f - t, 0.5f, 1.0f};
		context->OMSetRenderTargets(1, &rtv, NULL);
		context->ClearRenderTargetView(rtv, colour);
		hr = swapchain->Present(interval, 0);
		if (FAILED(hr))
			return fail("IDXGISwapChain::Present", hr);
		end_ns = now_ns();
	}

	/* Release everything, so DXVK destroys its Vulkan swapchain and device before exit, as a game
	 * closing cleanly does (and lowlat prints its per-swapchain summary then). */
	context->ClearState();
	context->Flush();
	rtv->Release();
	swapchain->Release();
	context->Release();
	device->Release();
#ifndef _WIN32
	SDL_DestroyWindow(sdl_window);
	SDL_Quit();
#endif

	if (times_path) {
		FILE *f = fopen(times_path, "w");
		if (!f)
			return fail("opening the frame-start file", 0);
		for (int i = 0; i < frames; i++)
			fprintf(f, "%lld\n", (long long)starts[(size_t)i]);
		if (fclose(f) != 0)
			return fail("writing the frame-start file", 0);
	}
	double seconds = (double)(end_ns - starts[0]) * 1e-9;
	printf("d3d11_frames: %d frames in %.3f s, %.1f fps (sync interval %u)\n", frames, seconds,
	       seconds > 0 ? frames / seconds : 0.0, interval);
	fflush(stdout);
	return 0;
}
