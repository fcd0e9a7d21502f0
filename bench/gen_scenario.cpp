// gputwin-bench-gen: writes a benchmark scenario for N GPUs (N a multiple of 8) to stdout or a file.
//
//   gputwin-bench-gen --gpus 128 [--duration 60] [--seed 1] [-o FILE]
//
// Every node is an HGX H100 (8 x H100-80GB-SXM): GPUs 0-3 exclusive, GPUs 4-7 time-sliced with 2
// replicas (2 ms quantum). Per node:
//   - a training job of the tenant `train` on the 4 exclusive GPUs, sized to end at ~90% of the run;
//   - one inference tenant `inf-K` with 4 replicas, one per time-sliced GPU, Poisson arrivals at 60% of
//     the replicas' full-batch throughput;
//   - a bursty batch workload of the tenant `batch` with 4 workers, one per time-sliced GPU, so the
//     batch jobs time-slice with the inference replicas.
// Placement is `spread`, and the workloads are listed training, then inference, then batch: spread
// then puts the K-th workload of each kind on node K (ties go to the lowest index), so every node
// carries the same mix whatever N is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

// H100-80GB-SXM numbers from calibration/profiles/H100-80GB-SXM.yaml, used only to size the load;
// the simulator reads the profile itself.
constexpr double FP16_ACHIEVABLE = 989.4e12 * 0.70;  // fp16Tensor x computeEfficiency, FLOP/s
constexpr double HBM_ACHIEVABLE = 2.57e12;           // B/s
constexpr double PCIE_H2D = 35e9;                    // B/s
constexpr double NVLINK = 380e9;                     // B/s

constexpr int GPUS_PER_NODE = 8;
constexpr int TS_GPUS_PER_NODE = 4;  // GPUs 4-7

// Inference: the default scenario's chat model (8B fp16, 512 prompt + 128 output tokens).
constexpr double PARAMS = 8e9;
constexpr double DTYPE_BYTES = 2;
constexpr int PROMPT_TOKENS = 512;
constexpr int OUTPUT_TOKENS = 128;
constexpr int MAX_BATCH = 16;
constexpr double TARGET_LOAD = 0.60;

// Training step per GPU (as the default scenario's fine-tune).
constexpr double STEP_FLOPS = 400e12;
constexpr double STEP_BYTES = 200e9;
constexpr double STEP_DATA = 256.0 * 1024 * 1024;
constexpr double STEP_GRADIENTS = 16e9;
constexpr int TRAIN_GPUS = 4;

double roofline(double flops, double bytes) {
  return std::max(flops / FP16_ACHIEVABLE, bytes / HBM_ACHIEVABLE);
}

// Service time of a full batch: prefill then decode, each a decoupled-roofline kernel.
double full_batch_time() {
  const double weights = PARAMS * DTYPE_BYTES;
  const double prefill = roofline(2.0 * PARAMS * MAX_BATCH * PROMPT_TOKENS, weights);
  const double decode = roofline(2.0 * PARAMS * MAX_BATCH * OUTPUT_TOKENS, weights * OUTPUT_TOKENS);
  return prefill + decode;
}

double training_step_time() {
  const double allreduce = 2.0 * (TRAIN_GPUS - 1) / TRAIN_GPUS * STEP_GRADIENTS / NVLINK;
  return STEP_DATA / PCIE_H2D + roofline(STEP_FLOPS, STEP_BYTES) + allreduce;
}

struct Options {
  int gpus = 8;
  double duration = 60;  // seconds of arrivals (the engine adds max(30 s, 25%) of drain)
  unsigned long long seed = 1;
  std::string output;  // empty: stdout
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: gputwin-bench-gen --gpus N [--duration SECONDS] [--seed S] [-o FILE]\n"
               "  N: a multiple of 8 (nodes of 8 H100-80GB-SXM GPUs); duration default 60, seed default 1\n");
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gputwin-bench-gen: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--gpus") {
      if (!(v = value("--gpus"))) return false;
      o.gpus = std::atoi(v);
    } else if (a == "--duration") {
      if (!(v = value("--duration"))) return false;
      o.duration = std::atof(v);
    } else if (a == "--seed") {
      if (!(v = value("--seed"))) return false;
      o.seed = std::strtoull(v, nullptr, 10);
    } else if (a == "-o" || a == "--output") {
      if (!(v = value("-o"))) return false;
      o.output = v;
    } else {
      std::fprintf(stderr, "gputwin-bench-gen: unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (o.gpus < GPUS_PER_NODE || o.gpus % GPUS_PER_NODE != 0) {
    std::fprintf(stderr, "gputwin-bench-gen: --gpus must be a positive multiple of %d\n", GPUS_PER_NODE);
    return false;
  }
  if (!(o.duration >= 1)) {
    std::fprintf(stderr, "gputwin-bench-gen: --duration must be at least 1 (seconds)\n");
    return false;
  }
  return true;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string scenario(const Options& o) {
  const int nodes = o.gpus / GPUS_PER_NODE;
  const double capacity = MAX_BATCH / full_batch_time();  // requests/s per replica at full batches
  const double rate = TARGET_LOAD * TS_GPUS_PER_NODE * capacity;
  const int iterations = std::max(1, static_cast<int>(0.9 * o.duration / training_step_time()));
  // SLO windows of 10 s (or the whole run when shorter) so that short runs still have windows.
  const double window = std::min(10.0, o.duration);

  std::ostringstream y;
  y << "# Generated by gputwin-bench-gen --gpus " << o.gpus << " --duration " << num(o.duration) << " --seed " << o.seed
    << "\n"
    << "# " << nodes << " HGX H100 node(s): GPUs 0-3 exclusive (training), 4-7 time-sliced x2 (inference + batch).\n"
    << "# Inference: " << num(rate) << " req/s per tenant = " << num(100 * TARGET_LOAD) << "% of 4 replicas x "
    << num(capacity) << " req/s (full batches of " << MAX_BATCH << ").\n"
    << "apiVersion: gputwin.dev/v1alpha1\n"
    << "kind: Scenario\n"
    << "metadata:\n"
    << "  name: bench-" << o.gpus << "\n"
    << "  description: Benchmark scenario, " << o.gpus << " GPUs (bench/gen_scenario.cpp).\n"
    << "spec:\n"
    << "  seed: " << o.seed << "\n"
    << "  duration: " << num(o.duration) << "s\n"
    << "  slaWindow: " << num(window) << "s\n"
    << "  cluster:\n"
    << "    nodePools:\n"
    << "      - name: hgx\n"
    << "        count: " << nodes << "\n"
    << "        gpu: H100-80GB-SXM\n"
    << "        gpusPerNode: 8\n"
    << "        region: eu-west\n"
    << "        sharing:\n"
    << "          mode: exclusive\n"
    << "        gpuSharing:\n"
    << "          - gpus: [4, 5, 6, 7]\n"
    << "            mode: timeSlicing\n"
    << "            replicas: 2\n"
    << "            timeSlice: Short\n";

  y << "  tenants:\n"
    << "    - name: train\n"
    << "      region: eu-west\n"
    << "      slos:\n"
    << "        - name: slowdown\n"
    << "          kind: slowdown\n"
    << "          maxSlowdown: 1.1\n"
    << "    - name: batch\n"
    << "      region: eu-west\n"
    << "      slos:\n"
    << "        - name: turnaround\n"
    << "          kind: completionTime\n"
    << "          threshold: 30s\n"
    << "          target: 0.9\n";
  for (int k = 0; k < nodes; ++k) {
    y << "    - name: inf-" << k << "\n"
      << "      region: eu-west\n"
      << "      slos:\n"
      << "        - name: p99-latency\n"
      << "          kind: latency\n"
      << "          percentile: 99\n"
      << "          threshold: 5s\n"
      << "          target: 0.9\n";
  }

  // Order matters for placement (see the header comment): training, inference, batch.
  y << "  workloads:\n";
  for (int k = 0; k < nodes; ++k) {
    y << "    - name: train-" << k << "\n"
      << "      kind: training\n"
      << "      tenant: train\n"
      << "      gpus: " << TRAIN_GPUS << "\n"
      << "      memory: 60GiB\n"
      << "      iterations: " << iterations << "\n"
      << "      placement:\n"
      << "        sharing: [exclusive]\n"
      << "      step:\n"
      << "        flops: 400TFLOP\n"
      << "        bytes: 200GB\n"
      << "        data: 256MiB\n"
      << "        gradients: 16GB\n";
  }
  for (int k = 0; k < nodes; ++k) {
    y << "    - name: inf-" << k << "-svc\n"
      << "      kind: inference\n"
      << "      tenant: inf-" << k << "\n"
      << "      replicas: " << TS_GPUS_PER_NODE << "\n"
      << "      placement:\n"
      << "        sharing: [timeSlicing]\n"
      << "      model:\n"
      << "        parameters: 8B\n"
      << "        dtype: fp16\n"
      << "      arrival:\n"
      << "        process: poisson\n"
      << "        rate: " << num(rate) << "/s\n"
      << "      batching:\n"
      << "        maxBatch: " << MAX_BATCH << "\n"
      << "        timeout: 20ms\n"
      << "      request:\n"
      << "        promptTokens: " << PROMPT_TOKENS << "\n"
      << "        outputTokens: " << OUTPUT_TOKENS << "\n";
  }
  for (int k = 0; k < nodes; ++k) {
    // Bursts of ~10 jobs every ~20 s: the time-sliced GPUs are contended about a third of the time.
    y << "    - name: batch-" << k << "\n"
      << "      kind: batch\n"
      << "      tenant: batch\n"
      << "      replicas: " << TS_GPUS_PER_NODE << "\n"
      << "      memory: 30GiB\n"
      << "      placement:\n"
      << "        sharing: [timeSlicing]\n"
      << "      arrival:\n"
      << "        process: bursty\n"
      << "        rate: 0/s\n"
      << "        burstRate: 2/s\n"
      << "        meanBurst: 5s\n"
      << "        meanGap: 15s\n"
      << "      job:\n"
      << "        kernels: 10\n"
      << "        flops: 100TFLOP\n"
      << "        bytes: 50GB\n";
  }
  y << "  policies:\n"
    << "    placement:\n"
    << "      name: spread\n";
  return y.str();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    usage(stderr);
    return 2;
  }
  const std::string text = scenario(o);
  if (o.output.empty()) {
    std::cout << text;
    return std::cout ? 0 : 1;
  }
  std::ofstream out(o.output, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "gputwin-bench-gen: cannot write %s\n", o.output.c_str());
    return 1;
  }
  return 0;
}
