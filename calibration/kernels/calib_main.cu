// gputwin-calibrate-kernels: entry point, raw-sample writer, clock, host-device and launch suites.
//
//   gputwin-calibrate-kernels --probe [--device N]            device list; exit 4 without a GPU
//   gputwin-calibrate-kernels -o raw.json [--device N] [--quick] [--suites a,b,...] [--tmp DIR]
//
// Suites: clock, memory, latency, compute, hostdevice, primeprobe, corun, process, ctxswitch (all by
// default). Exit 0 ok, 2 usage, 3 CUDA or I/O error, 4 no usable GPU.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "calib.cuh"

extern char** environ;

namespace calib {

void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
  std::fprintf(stderr, "gputwin-calibrate-kernels: CUDA error %d (%s) in %s at %s:%d\n", static_cast<int>(e),
               cudaGetErrorString(e), what, file, line);
  std::exit(EXIT_CUDA);
}

void log(const Context& c, const char* fmt, ...) {
  if (!c.verbose) return;
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "calib: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
}

namespace {
std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o;
}
std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

Experiment& Experiment::num(const std::string& k, double v) {
  params.emplace_back(k, json_num(v));
  return *this;
}
Experiment& Experiment::str(const std::string& k, const std::string& v) {
  params.emplace_back(k, "\"" + json_escape(v) + "\"");
  return *this;
}
std::vector<double>& Experiment::add(const std::string& series_name) {
  series.emplace_back(series_name, std::vector<double>{});
  return series.back().second;
}
Experiment& Context::add(const std::string& name, const std::string& unit) {
  experiments.push_back(Experiment{name, unit, {}, {}});
  return experiments.back();
}

__global__ void fill_kernel(float* p, size_t n, uint64_t seed, float lo, float span) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = lo + span * hash_uniform(seed, i);
}
void fill_random(float* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s) {
  fill_kernel<<<1024, 256, 0, s>>>(p, n, seed, lo, hi - lo);
  CK_LAUNCH();
}

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int spawn_self(const Context& c, const std::vector<std::string>& args) {
  std::vector<std::string> all{c.self};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, c.self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  return pid;
}
int wait_child(int pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// ---- clock: SM cycles against the global nanosecond timer ----
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void clock_kernel(uint64_t spin_ns, unsigned long long* out) {
  const uint64_t t0 = globaltimer();
  const long long c0 = clock64();
  uint64_t t = t0;
  while (t - t0 < spin_ns) t = globaltimer();
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t - t0;
}
void measure_clock(Context& c) {
  unsigned long long* d = nullptr;
  CK(cudaMalloc(&d, 2 * sizeof(unsigned long long)));
  auto& e = c.add("clock.sm", "Hz");
  e.str("method", "clock64 cycles over %globaltimer ns in one spinning thread, 20 ms per sample");
  auto& hz = e.add("hz");
  clock_kernel<<<1, 1>>>(5000000, d);  // warm-up, lets the clock ramp
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < c.reps(5, 11); ++i) {
    clock_kernel<<<1, 1>>>(20000000, d);
    CK_LAUNCH();
    unsigned long long h[2];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    hz.push_back(h[1] ? double(h[0]) / (double(h[1]) * 1e-9) : 0);
  }
  std::vector<double> s = hz;
  std::sort(s.begin(), s.end());
  c.sm_clock_hz = s[s.size() / 2];
  log(c, "SM clock under load: %.0f MHz", c.sm_clock_hz / 1e6);
  CK(cudaFree(d));
}

// ---- host <-> device copies, launch overhead, peer-to-peer ----
__global__ void empty_kernel() {}

void run_host_device(Context& c) {
  const std::vector<size_t> sizes =
      c.quick ? std::vector<size_t>{1u << 20, 16u << 20, 64u << 20, 256u << 20}
              : std::vector<size_t>{1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20, 1024u << 20};
  const size_t max_size = sizes.back();
  void* dev = nullptr;
  void* pinned = nullptr;
  CK(cudaMalloc(&dev, max_size));
  CK(cudaMallocHost(&pinned, max_size));
  std::vector<char> pageable(max_size);
  std::memset(pinned, 1, max_size);
  std::memset(pageable.data(), 1, max_size);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  struct Case {
    const char* name;
    bool h2d;
    bool is_pinned;
  };
  for (const Case& k : {Case{"pcie.h2d.pinned", true, true}, Case{"pcie.d2h.pinned", false, true},
                        Case{"pcie.h2d.pageable", true, false}, Case{"pcie.d2h.pageable", false, false}}) {
    for (size_t bytes : sizes) {
      auto& e = c.add(k.name, "s");
      e.num("bytes", double(bytes)).str("method", "cudaMemcpyAsync timed with events");
      void* host = k.is_pinned ? pinned : static_cast<void*>(pageable.data());
      e.add("t") = time_events(2, c.reps(5, 20), s, [&] {
        if (k.h2d)
          CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
        else
          CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
      });
    }
    log(c, "%s done", k.name);
  }
  // Launch overhead: back-to-back empty launches (throughput) and launch + synchronize (latency).
  {
    const int n = 1000;
    auto& e = c.add("launch.throughput", "s");
    e.num("launches", n).str("method", "1000 back-to-back empty kernels between two events, per launch");
    auto t = time_events(2, c.reps(5, 20), s, [&] {
      for (int i = 0; i < n; ++i) empty_kernel<<<1, 32, 0, s>>>();
    });
    for (auto& v : t) v /= n;
    e.add("t") = t;
    auto& l = c.add("launch.latency", "s");
    l.str("method", "host wall time of one empty launch plus cudaStreamSynchronize");
    auto& lt = l.add("t");
    for (int i = 0; i < 20; ++i) empty_kernel<<<1, 32, 0, s>>>();
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < c.reps(200, 2000); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      empty_kernel<<<1, 32, 0, s>>>();
      CK_LAUNCH();
      CK(cudaStreamSynchronize(s));
      lt.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  CK(cudaStreamDestroy(s));
  CK(cudaFreeHost(pinned));
  CK(cudaFree(dev));

  // Peer-to-peer between this device and every other one that allows peer access.
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (count < 2) {
    c.skipped.push_back("p2p: one GPU only");
    return;
  }
  const size_t bytes = c.quick ? (256u << 20) : (1024u << 20);
  for (int peer = 0; peer < count; ++peer) {
    if (peer == c.device) continue;
    int can = 0;
    CK(cudaDeviceCanAccessPeer(&can, c.device, peer));
    if (!can) {
      c.skipped.push_back("p2p " + std::to_string(c.device) + "->" + std::to_string(peer) + ": no peer access");
      continue;
    }
    cudaDeviceEnablePeerAccess(peer, 0);
    cudaGetLastError();  // already enabled is fine
    void *src = nullptr, *dst = nullptr;
    CK(cudaMalloc(&src, bytes));
    CK(cudaSetDevice(peer));
    CK(cudaMalloc(&dst, bytes));
    CK(cudaSetDevice(c.device));
    cudaStream_t ps;
    CK(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking));
    auto& e = c.add("p2p.copy", "s");
    e.num("bytes", double(bytes)).num("src", c.device).num("dst", peer).str("method", "cudaMemcpyPeerAsync");
    e.add("t") =
        time_events(2, c.reps(5, 20), ps, [&] { CK(cudaMemcpyPeerAsync(dst, peer, src, c.device, bytes, ps)); });
    CK(cudaStreamDestroy(ps));
    CK(cudaFree(src));
    CK(cudaSetDevice(peer));
    CK(cudaFree(dst));
    CK(cudaSetDevice(c.device));
  }
}

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

int usage(const char* msg) {
  std::fprintf(stderr,
               "gputwin-calibrate-kernels: %s\n"
               "usage: gputwin-calibrate-kernels --probe [--device N]\n"
               "       gputwin-calibrate-kernels -o RAW.json [--device N] [--quick] [--suites LIST] [--tmp DIR]\n"
               "suites: clock,memory,latency,compute,hostdevice,primeprobe,corun,process,ctxswitch\n",
               msg);
  return EXIT_USAGE;
}

bool write_raw(const Context& c, const std::string& path, const std::string& meta_json) {
  const std::string tmp = path + ".tmp";
  std::ofstream o(tmp, std::ios::binary);
  if (!o) return false;
  o << "{\n  \"format\": \"gputwin-calibration-raw\",\n  \"version\": 1,\n  \"synthetic\": false,\n";
  o << "  \"metadata\": " << meta_json << ",\n  \"skipped\": [";
  for (size_t i = 0; i < c.skipped.size(); ++i) o << (i ? ", " : "") << "\"" << json_escape(c.skipped[i]) << "\"";
  o << "],\n  \"experiments\": [\n";
  for (size_t i = 0; i < c.experiments.size(); ++i) {
    const auto& e = c.experiments[i];
    o << "    {\"name\": \"" << json_escape(e.name) << "\", \"unit\": \"" << json_escape(e.unit) << "\", \"params\": {";
    for (size_t j = 0; j < e.params.size(); ++j)
      o << (j ? ", " : "") << "\"" << json_escape(e.params[j].first) << "\": " << e.params[j].second;
    o << "}, \"series\": {";
    for (size_t j = 0; j < e.series.size(); ++j) {
      o << (j ? ", " : "") << "\"" << json_escape(e.series[j].first) << "\": [";
      const auto& v = e.series[j].second;
      for (size_t k = 0; k < v.size(); ++k) o << (k ? ", " : "") << json_num(v[k]);
      o << "]";
    }
    o << "}}" << (i + 1 < c.experiments.size() ? "," : "") << "\n";
  }
  o << "  ]\n}\n";
  o.close();
  if (!o) return false;
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace
}  // namespace calib

using namespace calib;

int main(int argc, char** argv) {
  Context c;
  std::string out, suites = "clock,memory,latency,compute,hostdevice,primeprobe,corun,process,ctxswitch";
  bool probe = false;
  c.tmp_dir = "/tmp";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--probe") {
      probe = true;
    } else if (a == "--quick") {
      c.quick = true;
    } else if (a == "--quiet") {
      c.verbose = false;
    } else if (a == "--device") {
      const char* v = next();
      if (!v) return usage("--device needs a number");
      c.device = std::atoi(v);
    } else if (a == "-o" || a == "--output") {
      const char* v = next();
      if (!v) return usage("-o needs a file");
      out = v;
    } else if (a == "--suites") {
      const char* v = next();
      if (!v) return usage("--suites needs a list");
      suites = v;
    } else if (a == "--tmp") {
      const char* v = next();
      if (!v) return usage("--tmp needs a directory");
      c.tmp_dir = v;
    } else if (a == "--child") {
      return child_main(argc - i - 1, argv + i + 1, c.device);
    } else {
      return usage(("unknown argument " + a).c_str());
    }
  }
  if (!probe && out.empty()) return usage("give --probe or -o RAW.json");

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // Without a driver the runtime answers cudaErrorInsufficientDriver (35), not cudaErrorNoDevice.
    std::printf("no CUDA GPU available (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return EXIT_NO_GPU;
  }
  if (c.device < 0 || c.device >= count) {
    std::printf("no CUDA device %d (this machine has %d)\n", c.device, count);
    return EXIT_NO_GPU;
  }
  CK(cudaSetDevice(c.device));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, c.device));
  int clock_khz = 0, mem_clock_khz = 0, bus_width = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, c.device);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, c.device);
  cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, c.device);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  c.sms = p.multiProcessorCount;
  c.l2_bytes = static_cast<size_t>(p.l2CacheSize);
  c.mem_bytes = p.totalGlobalMem;
  if (probe) {
    std::printf(
        "device %d: %s, sm_%d%d, %d SMs, %.2f GiB, L2 %.1f MiB, SM clock %.0f MHz, memory %.0f MHz x %d bit, "
        "driver %d, runtime %d, %d device(s)\n",
        c.device, p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0,
        p.l2CacheSize / 1048576.0, clock_khz / 1000.0, mem_clock_khz / 1000.0, bus_width, driver, runtime, count);
    return 0;
  }
  {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    c.self = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv[0]);
  }
  char uuid[64] = {0};
  for (int i = 0; i < 16; ++i) std::snprintf(uuid + 2 * i, 3, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
  char pci[32];
  std::snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);

  std::set<std::string> want;
  {
    std::stringstream ss(suites);
    std::string s;
    while (std::getline(ss, s, ',')) want.insert(s);
  }
  const std::string started = utc_now();
  const auto wall0 = std::chrono::steady_clock::now();
  log(c, "device %d: %s, %d SMs, L2 %.1f MiB, %s suite", c.device, p.name, c.sms, c.l2_bytes / 1048576.0,
      c.quick ? "quick" : "full");
  measure_clock(c);  // always: the latency suites convert cycles with it
  if (want.count("memory") || want.count("latency")) run_memory(c);
  if (want.count("compute")) run_compute(c);
  if (want.count("hostdevice")) run_host_device(c);
  if (want.count("primeprobe")) run_primeprobe(c);
  if (want.count("corun")) run_corun_streams(c);
  if (want.count("process")) run_corun_processes(c);
  if (want.count("ctxswitch")) run_context_switch(c);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  std::ostringstream m;
  m << "{\"device\": \"" << json_escape(p.name) << "\", \"device_index\": " << c.device
    << ", \"device_count\": " << count << ", \"uuid\": \"" << uuid << "\", \"pci_bus_id\": \"" << pci
    << "\", \"compute_capability\": \"" << p.major << "." << p.minor << "\", \"sms\": " << p.multiProcessorCount
    << ", \"memory_bytes\": " << json_num(double(p.totalGlobalMem)) << ", \"l2_bytes\": " << p.l2CacheSize
    << ", \"shared_per_sm_bytes\": " << p.sharedMemPerMultiprocessor
    << ", \"sm_clock_max_mhz\": " << json_num(clock_khz / 1000.0)
    << ", \"sm_clock_measured_mhz\": " << json_num(c.sm_clock_hz / 1e6)
    << ", \"memory_clock_mhz\": " << json_num(mem_clock_khz / 1000.0) << ", \"memory_bus_bits\": " << bus_width
    << ", \"driver_version\": " << driver << ", \"runtime_version\": " << runtime << ", \"host\": \""
    << json_escape(host_name()) << "\", \"started_utc\": \"" << started << "\", \"wall_seconds\": " << json_num(wall)
    << ", \"quick\": " << (c.quick ? "true" : "false") << ", \"suites\": \"" << json_escape(suites)
    << "\", \"kernels_version\": 1}";
  if (!write_raw(c, out, m.str())) {
    std::fprintf(stderr, "gputwin-calibrate-kernels: cannot write %s\n", out.c_str());
    return EXIT_CUDA;
  }
  log(c, "wrote %zu experiments to %s in %.1f s", c.experiments.size(), out.c_str(), wall);
  return 0;
}
