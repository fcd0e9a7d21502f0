// Co-run interference and time-slicing.
//
// - corun.stream: pairs of kernels of different compute/memory intensity (compute: FP32 FMA chains;
//   memory: a streaming copy; mixed: loads with FMAs near the ridge point), each alone and both at
//   once in two streams of one process (concurrent kernels, the closest a single process gets to MPS).
// - corun.process: the same pairs in two processes, which the GPU time-slices (no MPS daemon).
// - ctxswitch.timeline: two processes each spin one thread that reads %globaltimer and records every
//   gap; one process's gaps are the other's slices, and the dead time between them is the switch.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "calib.cuh"

namespace calib {
namespace {

constexpr int CR_BLOCK = 256;
constexpr int CR_BLOCKS_PER_SM = 4;  // 1024 threads per SM each: two kernels can be co-resident

__global__ void cr_compute(const float* __restrict__ in, int iters, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = in[(t * 8 + k) & 4095];
  const float b = 0.999f * in[4096], c = 0.001f * in[4097];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], b, c);
  }
  out[t] = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}
__global__ void cr_memory(const float4* __restrict__ in, float4* __restrict__ out, size_t n, int passes) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    const float4* src = (p & 1) ? out : in;
    float4* dst = (p & 1) ? const_cast<float4*>(in) : out;
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
      const float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
      dst[i] = a;
      dst[i + stride] = b;
      dst[i + 2 * stride] = c;
      dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
  }
}
// Reads each float4 once and runs `fmas` dependent FMAs per component on it: 8 x fmas flops per
// 16 bytes.
__global__ void cr_mixed(const float4* __restrict__ in, size_t n, int fmas, int passes, float* out) {
  float acc = 0;
  const float b = 0.999f, c = 0.001f;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
      float4 v = in[i];
      for (int k = 0; k < fmas; ++k) {
        v.x = fmaf(v.x, b, c);
        v.y = fmaf(v.y, b, c);
        v.z = fmaf(v.z, b, c);
        v.w = fmaf(v.w, b, c);
      }
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1234.5678f) out[0] = acc;
}

// One kernel of the co-run set with its buffers, sized by `size` (iterations or passes).
struct Runner {
  std::string name;
  int sms = 0;
  int size = 1;
  float* in = nullptr;
  float* out = nullptr;
  float4* a = nullptr;
  float4* b = nullptr;
  size_t n = 0;  // float4 elements of the memory buffers
  static constexpr int MIXED_FMAS = 32;
  Runner(const std::string& kname, int sm_count, size_t buffer_bytes) : name(kname), sms(sm_count) {
    n = buffer_bytes / sizeof(float4);
    CK(cudaMalloc(&in, 8192 * sizeof(float)));
    CK(cudaMalloc(&out, size_t(grid()) * CR_BLOCK * sizeof(float)));
    fill_random(in, 8192, 31, 0.5f, 1.f);
    if (name != "compute") {
      CK(cudaMalloc(&a, n * sizeof(float4)));
      fill_random(reinterpret_cast<float*>(a), n * 4, 32);
      if (name == "memory") {
        CK(cudaMalloc(&b, n * sizeof(float4)));
        fill_random(reinterpret_cast<float*>(b), n * 4, 33);
      }
    }
    CK(cudaDeviceSynchronize());
  }
  ~Runner() {
    cudaFree(in);
    cudaFree(out);
    if (a) cudaFree(a);
    if (b) cudaFree(b);
  }
  int grid() const { return sms * CR_BLOCKS_PER_SM; }
  void launch(cudaStream_t s) const {
    if (name == "compute")
      cr_compute<<<grid(), CR_BLOCK, 0, s>>>(in, size, out);
    else if (name == "memory")
      cr_memory<<<grid(), CR_BLOCK, 0, s>>>(a, b, n, size);
    else
      cr_mixed<<<grid(), CR_BLOCK, 0, s>>>(a, n, MIXED_FMAS, size, out);
    CK_LAUNCH();
  }
  double flops() const {
    if (name == "compute") return double(grid()) * CR_BLOCK * 8 * 2.0 * size;
    if (name == "mixed") return double(n) * 8.0 * MIXED_FMAS * size;
    return 0;
  }
  double bytes() const {
    if (name == "memory") return 2.0 * n * sizeof(float4) * size;
    if (name == "mixed") return double(n) * sizeof(float4) * size;
    return 0;
  }
  // Scales `size` so that one launch takes about `target` seconds alone.
  void size_for(double target) {
    size = name == "compute" ? 1024 : 1;
    for (int round = 0; round < 3; ++round) {
      auto t = time_events(1, 3, 0, [&] { launch(0); });
      std::sort(t.begin(), t.end());
      const double scale = target / std::max(t[1], 1e-6);
      size = std::max(1, static_cast<int>(std::lround(size * scale)));
      if (scale > 0.8 && scale < 1.25) break;
    }
  }
};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const std::vector<std::pair<std::string, std::string>>& pairs() {
  static const std::vector<std::pair<std::string, std::string>> p{{"compute", "compute"}, {"compute", "memory"},
                                                                  {"memory", "memory"},   {"compute", "mixed"},
                                                                  {"memory", "mixed"},    {"mixed", "mixed"}};
  return p;
}

size_t corun_buffer_bytes(const Context& c) {
  return std::min<size_t>(512ull << 20, c.mem_bytes / 16);
}

}  // namespace

void run_corun_streams(Context& c) {
  const double target = 2e-3;  // seconds per kernel alone
  const size_t buf = corun_buffer_bytes(c);
  std::map<std::string, Runner*> kernels;
  // Two instances of each kernel, so a pair of the same kind runs on separate buffers.
  std::vector<std::unique_ptr<Runner>> own;
  for (const char* k : {"compute", "memory", "mixed"})
    for (int copy = 0; copy < 2; ++copy) {
      own.emplace_back(new Runner(k, c.sms, buf));
      own.back()->size_for(target);
      kernels[std::string(k) + (copy ? "#2" : "")] = own.back().get();
    }
  // Both copies use the size of the first, so their work is identical.
  for (const char* k : {"compute", "memory", "mixed"}) kernels[std::string(k) + "#2"]->size = kernels[k]->size;
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t a0, a1, b0, b1;
  CK(cudaEventCreate(&a0));
  CK(cudaEventCreate(&a1));
  CK(cudaEventCreate(&b0));
  CK(cudaEventCreate(&b1));
  const int reps = c.reps(7, 25);
  for (const auto& [an, bn] : pairs()) {
    Runner* A = kernels[an];
    Runner* B = kernels[an == bn ? bn + "#2" : bn];
    auto& e = c.add("corun.stream", "s");
    e.str("a", an).str("b", bn).str("a_dtype", "fp32").str("b_dtype", "fp32");
    e.num("a_flops", A->flops()).num("a_bytes", A->bytes()).num("b_flops", B->flops()).num("b_bytes", B->bytes());
    e.num("grid", A->grid()).num("block", CR_BLOCK);
    e.str("method",
          "alone: events around each kernel; pair: both launched back to back on two non-blocking streams "
          "(launch order alternating), events per stream");
    e.add("a_alone") = time_events(2, reps, s1, [&] { A->launch(s1); });
    e.add("b_alone") = time_events(2, reps, s1, [&] { B->launch(s1); });
    auto& ap = e.add("a_pair");
    auto& bp = e.add("b_pair");
    auto& mk = e.add("makespan");
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
      CK(cudaDeviceSynchronize());
      if (r % 2 == 0) {
        CK(cudaEventRecord(a0, s1));
        A->launch(s1);
        CK(cudaEventRecord(b0, s2));
        B->launch(s2);
      } else {
        CK(cudaEventRecord(b0, s2));
        B->launch(s2);
        CK(cudaEventRecord(a0, s1));
        A->launch(s1);
      }
      CK(cudaEventRecord(a1, s1));
      CK(cudaEventRecord(b1, s2));
      CK(cudaDeviceSynchronize());
      if (r < 0) continue;
      float ta = 0, tb = 0, t0 = 0;
      CK(cudaEventElapsedTime(&ta, a0, a1));
      CK(cudaEventElapsedTime(&tb, b0, b1));
      CK(cudaEventElapsedTime(&t0, a0, b0));  // b0 - a0, may be negative
      ap.push_back(ta * 1e-3);
      bp.push_back(tb * 1e-3);
      mk.push_back((std::max(ta, t0 + tb) - std::min(0.f, t0)) * 1e-3);
    }
    log(c, "stream pair %s + %s: alone %.3f / %.3f ms, together %.3f / %.3f ms", an.c_str(), bn.c_str(),
        median_of(e.series[0].second) * 1e3, median_of(e.series[1].second) * 1e3, median_of(ap) * 1e3,
        median_of(bp) * 1e3);
  }
  CK(cudaEventDestroy(a0));
  CK(cudaEventDestroy(a1));
  CK(cudaEventDestroy(b0));
  CK(cudaEventDestroy(b1));
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s2));
}

namespace {

// Reads a child's output: lines "key v1 v2 ...".
std::map<std::string, std::vector<double>> read_child(const std::string& path) {
  std::map<std::string, std::vector<double>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    ss >> key;
    double v;
    auto& vec = out[key];
    while (ss >> v) vec.push_back(v);
  }
  return out;
}

void sleep_until_ns(int64_t t) {
  const int64_t now = realtime_ns();
  if (t > now) std::this_thread::sleep_for(std::chrono::nanoseconds(t - now));
}

__device__ __forceinline__ uint64_t gtimer_c() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// One thread spins on %globaltimer for `duration_ns`, recording every gap longer than `threshold_ns`
// as (before, after). meta: [0] start, [1] end, [2] gaps recorded, [3] largest ordinary step.
__global__ void timeline_kernel(uint64_t duration_ns, uint64_t threshold_ns, unsigned long long* gaps, int max_gaps,
                                unsigned long long* meta) {
  const uint64_t t0 = gtimer_c();
  uint64_t prev = t0, now = t0, max_step = 0;
  int count = 0;
  while (now - t0 < duration_ns) {
    now = gtimer_c();
    const uint64_t d = now - prev;
    if (d > threshold_ns) {
      if (count < max_gaps) {
        gaps[2 * count] = prev;
        gaps[2 * count + 1] = now;
      }
      ++count;
    } else if (d > max_step) {
      max_step = d;
    }
    prev = now;
  }
  meta[0] = t0;
  meta[1] = now;
  meta[2] = static_cast<unsigned long long>(count);
  meta[3] = max_step;
}

}  // namespace

// Child modes (run as `gputwin-calibrate-kernels --child MODE ...`):
//   loop KERNEL SIZE ITERS START_NS OUT      runs KERNEL ITERS times from START_NS, per-launch times
//   timeline DURATION_NS THRESHOLD_NS START_NS OUT
int child_main(int argc, char** argv, int device) {
  if (argc < 1) return EXIT_USAGE;
  const std::string mode = argv[0];
  CK(cudaSetDevice(device));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  if (mode == "loop" && argc >= 6) {
    Runner k(argv[1], sms, std::min<size_t>(512ull << 20, total_b / 16));
    k.size = std::atoi(argv[2]);
    const int iters = std::atoi(argv[3]);
    const int64_t start = std::atoll(argv[4]);
    k.launch(0);
    CK(cudaDeviceSynchronize());
    std::vector<cudaEvent_t> ev(iters + 1);
    for (auto& e : ev) CK(cudaEventCreate(&e));
    sleep_until_ns(start);
    const int64_t host0 = realtime_ns();
    CK(cudaEventRecord(ev[0], 0));
    for (int i = 0; i < iters; ++i) {
      k.launch(0);
      CK(cudaEventRecord(ev[i + 1], 0));
    }
    CK(cudaDeviceSynchronize());
    const int64_t host1 = realtime_ns();
    std::ofstream o(argv[5]);
    o << "launch";
    for (int i = 0; i < iters; ++i) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
      o << " " << ms * 1e-3;
    }
    float total = 0;
    CK(cudaEventElapsedTime(&total, ev[0], ev[iters]));
    o << "\ntotal " << total * 1e-3 << "\nhost_start " << double(host0) << "\nhost_end " << double(host1) << "\n";
    return o ? 0 : EXIT_CUDA;
  }
  if (mode == "timeline" && argc >= 5) {
    const uint64_t duration = std::strtoull(argv[1], nullptr, 10);
    const uint64_t threshold = std::strtoull(argv[2], nullptr, 10);
    const int64_t start = std::atoll(argv[3]);
    const int max_gaps = 200000;
    unsigned long long *gaps = nullptr, *meta = nullptr;
    CK(cudaMalloc(&gaps, 2 * size_t(max_gaps) * sizeof(unsigned long long)));
    CK(cudaMalloc(&meta, 4 * sizeof(unsigned long long)));
    timeline_kernel<<<1, 1>>>(1000000, threshold, gaps, max_gaps, meta);  // warm-up, 1 ms
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    sleep_until_ns(start);
    timeline_kernel<<<1, 1>>>(duration, threshold, gaps, max_gaps, meta);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    unsigned long long m[4];
    CK(cudaMemcpy(m, meta, sizeof m, cudaMemcpyDeviceToHost));
    const int n = static_cast<int>(std::min<unsigned long long>(m[2], max_gaps));
    std::vector<unsigned long long> g(2 * size_t(n));
    if (n) CK(cudaMemcpy(g.data(), gaps, g.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::ofstream o(argv[4]);
    // Absolute %globaltimer values do not fit a double exactly: print integers.
    o << "start " << m[0] << "\nend " << m[1] << "\ngaps_total " << m[2] << "\nmax_step " << m[3] << "\ngaps";
    for (auto v : g) o << " " << v;
    o << "\n";
    return o ? 0 : EXIT_CUDA;
  }
  std::fprintf(stderr, "gputwin-calibrate-kernels: unknown child mode\n");
  return EXIT_USAGE;
}

void run_corun_processes(Context& c) {
  const double target = 2e-3;
  const size_t buf = corun_buffer_bytes(c);
  std::map<std::string, int> sizes;
  std::map<std::string, std::pair<double, double>> work;  // flops, bytes
  for (const char* k : {"compute", "memory", "mixed"}) {
    Runner r(k, c.sms, buf);
    r.size_for(target);
    sizes[k] = r.size;
    work[k] = {r.flops(), r.bytes()};
  }
  const int iters = c.quick ? 100 : 400;  // 0.2 s (0.8 s) of work per process alone
  const std::string dir = c.tmp_dir;
  const std::string tag = std::to_string(getpid());
  auto run = [&](const std::vector<std::string>& names, std::vector<std::map<std::string, std::vector<double>>>& res) {
    const int64_t start = realtime_ns() + 2000000000;  // 2 s: both children have initialised CUDA by then
    std::vector<int> pids;
    std::vector<std::string> files;
    for (size_t i = 0; i < names.size(); ++i) {
      files.push_back(dir + "/gtw-calib-" + tag + "-" + std::to_string(i) + ".txt");
      pids.push_back(
          spawn_self(c, {"--device", std::to_string(c.device), "--child", "loop", names[i],
                         std::to_string(sizes[names[i]]), std::to_string(iters), std::to_string(start), files.back()}));
    }
    bool ok = true;
    for (int pid : pids) ok = (pid > 0 && wait_child(pid) == 0) && ok;
    res.clear();
    for (auto& f : files) {
      res.push_back(read_child(f));
      std::remove(f.c_str());
    }
    return ok;
  };
  std::map<std::string, std::vector<double>> alone_launch;
  for (const char* k : {"compute", "memory", "mixed"}) {
    std::vector<std::map<std::string, std::vector<double>>> res;
    if (!run({k}, res)) {
      c.skipped.push_back(std::string("corun.process: child for ") + k + " failed");
      return;
    }
    alone_launch[k] = res[0]["launch"];
  }
  for (const auto& [an, bn] : pairs()) {
    std::vector<std::map<std::string, std::vector<double>>> res;
    if (!run({an, bn}, res)) {
      c.skipped.push_back("corun.process " + an + "+" + bn + ": a child failed");
      continue;
    }
    auto& e = c.add("corun.process", "s");
    e.str("a", an).str("b", bn).str("a_dtype", "fp32").str("b_dtype", "fp32");
    e.num("a_flops", work[an].first).num("a_bytes", work[an].second);
    e.num("b_flops", work[bn].first).num("b_bytes", work[bn].second).num("iters", iters);
    e.str("method",
          "two processes (no MPS: the GPU time-slices them) each run ITERS launches back to back from a "
          "common start time; per-launch and total times from events");
    e.add("a_alone") = alone_launch[an];
    e.add("b_alone") = alone_launch[bn];
    e.add("a_pair") = res[0]["launch"];
    e.add("b_pair") = res[1]["launch"];
    e.add("a_total") = res[0]["total"];
    e.add("b_total") = res[1]["total"];
    e.add("start_skew") = {(res[1]["host_start"].empty() || res[0]["host_start"].empty())
                               ? 0.0
                               : (res[1]["host_start"][0] - res[0]["host_start"][0]) * 1e-9};
    log(c, "process pair %s + %s: per launch alone %.3f / %.3f ms, together %.3f / %.3f ms", an.c_str(), bn.c_str(),
        median_of(alone_launch[an]) * 1e3, median_of(alone_launch[bn]) * 1e3, median_of(res[0]["launch"]) * 1e3,
        median_of(res[1]["launch"]) * 1e3);
  }
}

void run_context_switch(Context& c) {
  const uint64_t duration = c.quick ? 1000000000ull : 3000000000ull;  // ns
  const uint64_t threshold = 4000;                                    // ns: longer steps are gaps
  const std::string tag = std::to_string(getpid());
  for (int procs : {1, 2}) {
    const int64_t start = realtime_ns() + 2000000000;
    std::vector<int> pids;
    std::vector<std::string> files;
    for (int i = 0; i < procs; ++i) {
      files.push_back(c.tmp_dir + "/gtw-calib-tl-" + tag + "-" + std::to_string(i) + ".txt");
      pids.push_back(
          spawn_self(c, {"--device", std::to_string(c.device), "--child", "timeline", std::to_string(duration),
                         std::to_string(threshold), std::to_string(start), files.back()}));
    }
    bool ok = true;
    for (int pid : pids) ok = (pid > 0 && wait_child(pid) == 0) && ok;
    if (!ok) {
      c.skipped.push_back("ctxswitch: a timeline child failed");
      return;
    }
    // Parse as integers; rebase on the earliest start so doubles hold them exactly.
    std::vector<std::vector<unsigned long long>> gaps(procs);
    std::vector<unsigned long long> starts(procs), ends(procs), totals(procs), steps(procs);
    for (int i = 0; i < procs; ++i) {
      std::ifstream in(files[i]);
      std::string key;
      while (in >> key) {
        if (key == "gaps") {
          unsigned long long v;
          while (in >> v) gaps[i].push_back(v);
        } else {
          unsigned long long v = 0;
          in >> v;
          if (key == "start") starts[i] = v;
          if (key == "end") ends[i] = v;
          if (key == "gaps_total") totals[i] = v;
          if (key == "max_step") steps[i] = v;
        }
      }
      std::remove(files[i].c_str());
    }
    const unsigned long long origin = *std::min_element(starts.begin(), starts.end());
    auto& e = c.add(procs == 1 ? "ctxswitch.solo" : "ctxswitch.timeline", "ns");
    e.num("processes", procs).num("duration_ns", double(duration)).num("threshold_ns", double(threshold));
    e.str("method",
          "one thread per process spins on %globaltimer and records each step longer than the threshold "
          "(gap); times in ns from the earliest start");
    for (int i = 0; i < procs; ++i) {
      const std::string p = i == 0 ? "a" : "b";
      e.add(p + "_span") = {double(starts[i] - origin), double(ends[i] - origin)};
      e.add(p + "_gaps_total") = {double(totals[i])};
      e.add(p + "_max_step") = {double(steps[i])};
      auto& gs = e.add(p + "_gap_start");
      auto& ge = e.add(p + "_gap_end");
      for (size_t k = 0; k + 1 < gaps[i].size(); k += 2) {
        gs.push_back(double(gaps[i][k] - origin));
        ge.push_back(double(gaps[i][k + 1] - origin));
      }
    }
    log(c, "context-switch timeline with %d process(es): %llu / %llu gaps", procs, totals[0],
        procs > 1 ? totals[1] : 0ull);
  }
}

}  // namespace calib
