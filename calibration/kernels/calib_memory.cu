// HBM bandwidth (read, write, copy over a size sweep), pointer-chase latency through L1, L2 and HBM
// (with a footprint sweep that finds the L2 size), and an L2 prime+probe (probe latency with the
// victim idle and active: the signal and noise of the leakage model's L2 channel).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "calib.cuh"

namespace calib {
namespace {

constexpr int BW_THREADS = 512;

// Streaming kernels: 16-byte accesses, 4 independent loads in flight per thread, grid-stride.
__global__ void read_kernel(const float4* __restrict__ in, size_t n, float* out) {
  float4 acc = make_float4(0, 0, 0, 0);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc.x += a.x + b.x + c.x + d.x;
    acc.y += a.y + b.y + c.y + d.y;
    acc.z += a.z + b.z + c.z + d.z;
    acc.w += a.w + b.w + c.w + d.w;
  }
  for (; i < n; i += stride) {
    const float4 a = in[i];
    acc.x += a.x;
    acc.y += a.y;
    acc.z += a.z;
    acc.w += a.w;
  }
  if (acc.x + acc.y + acc.z + acc.w == 1234.5678f) out[0] = acc.x;  // keeps the loads alive
}
__global__ void write_kernel(float4* __restrict__ out, size_t n, float v) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
    out[i] = make_float4(v, v + 1.f, v + 2.f, float(i & 1023));
}
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    out[i] = a;
    out[i + stride] = b;
    out[i + 2 * stride] = c;
    out[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) out[i] = in[i];
}

// Pointer chase: one thread follows next[] for `steps` loads; cycles and ns per load.
__device__ __forceinline__ unsigned ld_ca(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void chase_kernel(const unsigned* __restrict__ next, int warm_steps, int steps, double* out,
                             unsigned* sink) {
  unsigned j = 0;
  for (int s = 0; s < warm_steps; ++s) j = ld_ca(next + j);
  j = 0;
  const long long c0 = clock64();
  const uint64_t t0 = gtimer();
  for (int s = 0; s < steps; ++s) j = ld_ca(next + j);
  const long long c1 = clock64();
  const uint64_t t1 = gtimer();
  out[0] = double(c1 - c0) / steps;
  out[1] = double(t1 - t0) / steps;
  sink[0] = j;
}
__global__ void touch_kernel(const unsigned* __restrict__ p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    acc += ld_cg(p + i);
  if (acc == 0xDEADBEEFu) sink[1] = acc;
}

// Builds a cyclic chain over the 128-byte lines of `bytes`: random order inside windows of 64 KiB
// (no stride for a prefetcher, few TLB misses), windows in sequence. next[] holds element indices.
std::vector<unsigned> build_chain(size_t bytes, std::mt19937_64& rng) {
  const size_t line = 32;  // elements of 4 bytes = 128 B
  const size_t lines = std::max<size_t>(bytes / 128, 2);
  const size_t window = 512;  // lines
  std::vector<size_t> order(lines);
  std::iota(order.begin(), order.end(), size_t(0));
  for (size_t w = 0; w < lines; w += window) {
    const size_t end = std::min(lines, w + window);
    std::shuffle(order.begin() + static_cast<long>(w) + (w == 0 ? 1 : 0), order.begin() + static_cast<long>(end),
                 rng);  // line 0 stays first
  }
  std::vector<unsigned> next(lines * line, 0);
  for (size_t k = 0; k < lines; ++k) next[order[k] * line] = static_cast<unsigned>(order[(k + 1) % lines] * line);
  return next;
}

}  // namespace

void run_memory(Context& c) {
  // ---- HBM bandwidth: read, write and copy; several sizes, all far above L2 ----
  const size_t max_bytes = std::min<size_t>(c.quick ? (2ull << 30) : (4ull << 30), c.mem_bytes / 4);
  float4 *a = nullptr, *b = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&a, max_bytes));
  CK(cudaMalloc(&b, max_bytes));
  CK(cudaMalloc(&sink, 64));
  fill_random(reinterpret_cast<float*>(a), max_bytes / 4, 11);
  fill_random(reinterpret_cast<float*>(b), max_bytes / 4, 12);
  CK(cudaDeviceSynchronize());
  const int grid = c.sms * 4;
  std::vector<size_t> sizes;
  for (size_t s = max_bytes / 8; s <= max_bytes; s *= 2) sizes.push_back(s);
  const int reps = c.reps(10, 50);
  for (size_t bytes : sizes) {
    const size_t n = bytes / sizeof(float4);
    auto& r = c.add("hbm.read", "s");
    r.num("bytes", double(bytes)).num("traffic_bytes", double(bytes)).num("grid", grid).num("block", BW_THREADS);
    r.add("t") = time_events(3, reps, 0, [&] { read_kernel<<<grid, BW_THREADS>>>(a, n, sink); });
    auto& w = c.add("hbm.write", "s");
    w.num("bytes", double(bytes)).num("traffic_bytes", double(bytes)).num("grid", grid).num("block", BW_THREADS);
    w.add("t") = time_events(3, reps, 0, [&] { write_kernel<<<grid, BW_THREADS>>>(b, n, 0.5f); });
    auto& cp = c.add("hbm.copy", "s");
    cp.num("bytes", double(bytes)).num("traffic_bytes", 2.0 * double(bytes)).num("grid", grid).num("block", BW_THREADS);
    // Alternate direction so no launch re-reads what the previous one left in L2.
    int dir = 0;
    cp.add("t") = time_events(3, reps, 0, [&] {
      if ((dir++ & 1) == 0)
        copy_kernel<<<grid, BW_THREADS>>>(a, b, n);
      else
        copy_kernel<<<grid, BW_THREADS>>>(b, a, n);
    });
  }
  log(c, "HBM bandwidth done (%zu sizes up to %.1f GiB)", sizes.size(), max_bytes / 1073741824.0);
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(sink));

  // ---- Pointer chase over a footprint sweep: L1, L2, HBM latency and the L2 size ----
  std::vector<size_t> foot;
  for (size_t f = 4u << 10; f <= (512u << 20); f *= 2) foot.push_back(f);
  // Finer steps around the L2 size reported by the device (1/4 .. 2 x L2 in 1/8 steps of L2).
  for (size_t k = 2; k <= 16; ++k) foot.push_back(c.l2_bytes * k / 8);
  std::sort(foot.begin(), foot.end());
  foot.erase(std::unique(foot.begin(), foot.end()), foot.end());
  const size_t max_foot = foot.back();
  unsigned* chain = nullptr;
  unsigned* csink = nullptr;
  double* dout = nullptr;
  CK(cudaMalloc(&chain, max_foot));
  CK(cudaMalloc(&csink, 64));
  CK(cudaMalloc(&dout, 2 * sizeof(double)));
  std::mt19937_64 rng(20261130);
  const int steps = c.quick ? 4096 : 16384;
  const int samples = c.reps(5, 15);
  for (size_t f : foot) {
    const auto next = build_chain(f, rng);
    CK(cudaMemcpy(chain, next.data(), next.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
    const size_t lines = next.size() / 32;
    // Small footprints warm L1 of the chasing SM with one full lap; larger ones are brought into L2
    // by a parallel read of the whole footprint before every sample.
    const int warm = lines <= 4096 ? static_cast<int>(lines) : 0;
    auto& e = c.add("latency.chase", "cycles");
    e.num("footprint_bytes", double(f)).num("line_bytes", 128).num("steps", steps).num("sm_clock_hz", c.sm_clock_hz);
    e.str("method", "one thread, dependent ld.global.ca, random order in 64 KiB windows; cycles and ns per load");
    auto& cyc = e.add("cycles");
    auto& ns = e.add("ns");
    for (int s = 0; s < samples + 1; ++s) {
      if (!warm) touch_kernel<<<c.sms * 4, 256>>>(chain, next.size(), csink);
      chase_kernel<<<1, 1>>>(chain, warm, steps, dout, csink);
      CK_LAUNCH();
      double h[2];
      CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
      if (s == 0) continue;  // first sample: code and TLB warm-up
      cyc.push_back(h[0]);
      ns.push_back(h[1]);
    }
  }
  log(c, "pointer chase done (%zu footprints)", foot.size());
  CK(cudaFree(chain));
  CK(cudaFree(csink));
  CK(cudaFree(dout));
}

// ---- L2 prime+probe ----
namespace {
// One block re-reads its probe set (L2 only, ld.cg) `probes` times and records the cycles of each pass;
// at the end it raises `stop` for the victim.
__global__ void probe_kernel(const unsigned* __restrict__ set, size_t n, int probes, unsigned* cycles, unsigned* sink,
                             volatile int* stop) {
  unsigned acc = 0;
  __shared__ long long t0;
  for (int p = 0; p < probes; ++p) {
    __syncthreads();
    if (threadIdx.x == 0) t0 = clock64();
    __syncthreads();
    for (size_t i = threadIdx.x * 32; i < n; i += size_t(blockDim.x) * 32) acc += ld_cg(set + i);
    __syncthreads();
    if (threadIdx.x == 0) cycles[p] = static_cast<unsigned>(clock64() - t0);
  }
  if (acc == 0xDEADBEEFu) sink[0] = acc;
  if (threadIdx.x == 0) {
    __threadfence();
    *stop = 1;
  }
}
// Victim: streams a large buffer (evicting L2) pass after pass until `stop` is raised (at most
// `max_passes` passes).
__global__ void victim_kernel(const float4* __restrict__ in, size_t n, int max_passes, float* out, volatile int* stop) {
  float acc = 0;
  for (int p = 0; p < max_passes && *stop == 0; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
      const float4 v = in[i];
      acc += v.x + v.w;
    }
  if (acc == 1234.5678f) out[0] = acc;
}
}  // namespace

void run_primeprobe(Context& c) {
  const size_t set_bytes = std::max<size_t>(c.l2_bytes / 32, 1u << 20);  // well inside L2 when alone
  const size_t victim_bytes = std::min<size_t>(1ull << 30, c.mem_bytes / 8);
  const int probes = c.quick ? 2000 : 10000;
  unsigned *set = nullptr, *cycles = nullptr, *sink = nullptr;
  int* stop = nullptr;
  CK(cudaMalloc(&stop, sizeof(int)));
  float4* victim = nullptr;
  float* vout = nullptr;
  CK(cudaMalloc(&set, set_bytes));
  CK(cudaMalloc(&cycles, probes * sizeof(unsigned)));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&victim, victim_bytes));
  CK(cudaMalloc(&vout, 64));
  fill_random(reinterpret_cast<float*>(set), set_bytes / 4, 21, 0.f, 1.f);
  fill_random(reinterpret_cast<float*>(victim), victim_bytes / 4, 22);
  CK(cudaDeviceSynchronize());
  cudaStream_t so, sv;
  CK(cudaStreamCreateWithFlags(&so, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&sv, cudaStreamNonBlocking));
  auto& e = c.add("primeprobe.l2", "cycles");
  e.num("set_bytes", double(set_bytes)).num("victim_bytes", double(victim_bytes)).num("probes", probes);
  e.num("sm_clock_hz", c.sm_clock_hz).num("block", 256);
  e.str("method",
        "one block re-reads an L2-resident set (ld.cg) and times each pass; a victim in another "
        "stream of the same process streams 1 GiB (active) or is absent (idle)");
  std::vector<unsigned> h(probes);
  for (int rep = 0; rep < c.reps(2, 5); ++rep) {
    for (int active = 0; active < 2; ++active) {
      CK(cudaMemset(stop, 0, sizeof(int)));
      CK(cudaDeviceSynchronize());
      if (active) {
        // Runs until the probe kernel raises `stop`, so it covers every probe.
        victim_kernel<<<c.sms * 2, 512, 0, sv>>>(victim, victim_bytes / 16, 20000, vout, stop);
        CK_LAUNCH();
      }
      probe_kernel<<<1, 256, 0, so>>>(set, set_bytes / 4, probes, cycles, sink, stop);
      CK_LAUNCH();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), cycles, probes * sizeof(unsigned), cudaMemcpyDeviceToHost));
      auto& s = e.add(active ? "active" : "idle");
      // The first probes prime the set; keep the rest.
      for (int p = probes / 10; p < probes; ++p) s.push_back(h[p]);
    }
  }
  log(c, "L2 prime+probe done");
  CK(cudaStreamDestroy(so));
  CK(cudaStreamDestroy(sv));
  CK(cudaFree(set));
  CK(cudaFree(cycles));
  CK(cudaFree(sink));
  CK(cudaFree(victim));
  CK(cudaFree(vout));
  CK(cudaFree(stop));
}

}  // namespace calib
