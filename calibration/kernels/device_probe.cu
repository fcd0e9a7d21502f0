// Lists the CUDA devices with the properties a hardware profile needs (SMs, memory, clocks, L2).
// Exit 0 with a list; exit 4 with a clear message when no usable GPU or driver is present.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // Without a driver the runtime reports cudaErrorInsufficientDriver (35), not cudaErrorNoDevice.
    std::printf("no CUDA GPU available (%s); the simulator runs on its CPU models\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return 4;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    int clock_khz = 0, mem_clock_khz = 0, bus_width = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, d);
    cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, d);
    std::printf("device %d: %s, sm_%d%d, %d SMs, %.2f GiB, L2 %.1f MiB, SM clock %.0f MHz, memory %.0f MHz x %d bit\n",
                d, p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0,
                p.l2CacheSize / 1048576.0, clock_khz / 1000.0, mem_clock_khz / 1000.0, bus_width);
  }
  return 0;
}
