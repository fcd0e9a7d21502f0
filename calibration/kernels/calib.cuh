// gputwin-calibrate-kernels: shared declarations of the calibration microkernels.
//
// The executable runs on the GPU machine and writes raw samples (JSON, format
// "gputwin-calibration-raw" v1, docs/calibration.md); it depends on the CUDA runtime only (cuBLAS is
// loaded with dlopen when present), so it builds with nvcc alone: `nvcc -O3 -std=c++17
// -gencode arch=compute_90,code=sm_90 calibration/kernels/*.cu -o gputwin-calibrate-kernels -ldl`.
// `gputwin calibrate` runs it as a child process and does the fitting on the CPU.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace calib {

// Exit codes: 0 ok, 2 usage, 3 CUDA or I/O error, 4 no usable GPU (documented in docs/calibration.md).
constexpr int EXIT_USAGE = 2;
constexpr int EXIT_CUDA = 3;
constexpr int EXIT_NO_GPU = 4;

[[noreturn]] void cuda_fail(cudaError_t e, const char* what, const char* file, int line);
#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) ::calib::cuda_fail(e_, #call, __FILE__, __LINE__); \
  } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())

/// One experiment: named numeric series (seconds, cycles or ns, as `unit` says) and parameters.
struct Experiment {
  std::string name;
  std::string unit;
  std::vector<std::pair<std::string, std::string>> params;  // key -> JSON literal
  // deques: add() hands out references that stay valid while more series are added
  std::deque<std::pair<std::string, std::vector<double>>> series;
  Experiment& num(const std::string& k, double v);
  Experiment& str(const std::string& k, const std::string& v);
  std::vector<double>& add(const std::string& series_name);
};

struct Context {
  int device = 0;
  bool quick = false;
  bool verbose = true;
  int sms = 0;
  size_t l2_bytes = 0;
  size_t mem_bytes = 0;
  double sm_clock_hz = 0;              // measured (clock64 against %globaltimer), 0 until measured
  std::string self;                    // this executable, for child processes
  std::string tmp_dir;                 // where children write their samples
  std::deque<Experiment> experiments;  // references from add() stay valid
  std::vector<std::string> skipped;    // "what: why"
  Experiment& add(const std::string& name, const std::string& unit);
  int reps(int quick_n, int full_n) const { return quick ? quick_n : full_n; }
};

void log(const Context& c, const char* fmt, ...);

/// Times `launch` (which enqueues work on `stream`) with CUDA events: `warmup` untimed runs, then
/// `reps` timed ones; `before` (not timed) runs before each timed one (fresh inputs). Seconds.
template <class Launch, class Before>
std::vector<double> time_events(int warmup, int reps, cudaStream_t stream, Launch&& launch, Before&& before) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) {
    before(i);
    launch();
    CK_LAUNCH();
  }
  CK(cudaStreamSynchronize(stream));
  std::vector<double> out;
  for (int i = 0; i < reps; ++i) {
    before(warmup + i);
    CK(cudaEventRecord(a, stream));
    launch();
    CK_LAUNCH();
    CK(cudaEventRecord(b, stream));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    out.push_back(ms * 1e-3);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return out;
}
template <class Launch>
std::vector<double> time_events(int warmup, int reps, cudaStream_t stream, Launch&& launch) {
  return time_events(warmup, reps, stream, launch, [](int) {});
}

/// Fills `n` floats with uniform values in [lo, hi) from a counter hash of (seed, index).
void fill_random(float* p, size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f, cudaStream_t s = 0);
/// The same hash on the host and device: uniform in [0, 1).
__host__ __device__ inline float hash_uniform(uint64_t seed, uint64_t i) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<float>(x >> 40) * (1.0f / 16777216.0f);
}

// Suites, one per translation unit.
void measure_clock(Context& c);                     // calib_main.cu: SM clock from clock64 vs %globaltimer
void run_host_device(Context& c);                   // calib_main.cu: H2D/D2H pinned and pageable, launch overhead, P2P
void run_memory(Context& c);                        // calib_memory.cu: HBM read/write/copy, pointer chase, L2 size
void run_primeprobe(Context& c);                    // calib_memory.cu: L2 prime+probe latency, victim idle/active
void run_compute(Context& c);                       // calib_compute.cu: FMA chains fp32/fp16/bf16, tensor GEMM
void run_corun_streams(Context& c);                 // calib_corun.cu: co-run pairs in two streams
void run_corun_processes(Context& c);               // calib_corun.cu: co-run pairs in two processes (time-sliced)
void run_context_switch(Context& c);                // calib_corun.cu: time-slice timeline of two processes
int child_main(int argc, char** argv, int device);  // calib_corun.cu: `--child ...` modes

// Co-run kernels shared by the stream and process pairs (calib_corun.cu).
struct CorunKernel {
  std::string name;   // compute | memory | mixed
  std::string dtype;  // fp32
  double flops = 0;   // counted
  double bytes = 0;   // counted device-memory traffic
};

/// Runs a child process (this executable with `args`) and returns its pid; -1 on failure.
int spawn_self(const Context& c, const std::vector<std::string>& args);
/// Waits for `pid`; returns its exit code (or 128 + signal).
int wait_child(int pid);
/// Wall-clock time (CLOCK_REALTIME) in ns, for aligning children.
int64_t realtime_ns();

}  // namespace calib
