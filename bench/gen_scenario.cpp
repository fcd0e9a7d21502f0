// gputwin-bench-gen: writes a benchmark scenario for N GPUs (N a multiple of 8) to stdout or a file.
//
//   gputwin-bench-gen --gpus 128 [--duration 60] [--seed 1] [--compliance] [--day-load] [-o FILE]
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
//
// --compliance adds what a regulated platform declares (docs/PERFORMANCE.md, "Compliance, identity and
// audit"): the nodes split between eu-west and us-east (two pools, the first half in eu-west), a
// parallel file system per region (encrypted at rest, bandwidth scaled with the region's nodes), tagged
// data with owners, regions and classifications (the training corpus and checkpoints per region, each
// inference tenant's weights and request stream), network policies, spec.audit (delay, jitter, a shipper
// throughput), a spec.identity graph that grows with the tenants (per inference tenant: a service
// account, a user, an API service, a secret fetched by every replica, grants; a shared evaluation agent
// calling every API, one hop in eight replacing the caller's identity) and all 16 compliance rules in
// audit mode. The default output (without --compliance) does not change.
//
// --enforce gives the tenants classifications (as --compliance does) and enforces the two placement rules,
// co-tenancy and scrub-between-tenants: every placement decision asks them about every eligible device (the cost
// of enforcement at scale, docs/PERFORMANCE.md). With --compliance, those two of its 16 rules enforce.
//
// --day-load sets the density of issue 21's goal instead (a simulated day of a 10,000-GPU cluster with 10 M
// inference requests and 1 M batch jobs), scaled to N GPUs: per node 10 M / 86,400 s x 8 / 10,000 requests/s
// (Poisson) and a tenth of that in batch jobs (Poisson, 10 kernels each); the training job's steps are one
// minute each (the step's work x ~100: nothing observes inside a step), the training jobs start spread over one
// step, and the SLO window is 5 minutes.
//
// --continuous serves the inference services with continuous batching instead of dynamic static batches (Llama
// 3.1 8B from the model catalogue, vLLM's defaults, a paged KV cache of 45 % of the GPU: the time-sliced GPU is
// shared with a 30 GiB batch job), as issue 21's goal asks where the serving model has it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

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
  bool compliance = false;
  bool enforce = false;     // co-tenancy and scrub-between-tenants with action enforce
  bool day_load = false;    // issue 21's goal density instead of the stress load
  bool continuous = false;  // inference with continuous batching (model catalogue) instead of static batches
};

// Issue 21's goal, per GPU and second: 10 M requests and 1 M jobs per 10,000 GPUs per day.
constexpr double DAY_REQUESTS_PER_GPU_S = 10e6 / 86400.0 / 10000.0;
constexpr double DAY_JOBS_PER_GPU_S = 1e6 / 86400.0 / 10000.0;
constexpr double DAY_STEP_SECONDS = 60;  // one training step of the day load, alone

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: gputwin-bench-gen --gpus N [--duration SECONDS] [--seed S] [--compliance] [--enforce] "
               "[--day-load] [--continuous] [-o FILE]\n"
               "  N: a multiple of 8 (nodes of 8 H100-80GB-SXM GPUs); duration default 60, seed default 1\n"
               "  --compliance: two regions, tagged data, audit, identity graph and the 16 compliance rules\n"
               "  --enforce: tenants' classifications; the co-tenancy and scrub-between-tenants rules enforce\n"
               "  --day-load: the density of 10 M requests and 1 M jobs per 10,000 GPUs per day, 1-minute "
               "training steps\n"
               "  --continuous: inference with continuous batching (Llama 3.1 8B, paged KV cache) instead of static "
               "batches\n");
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
    } else if (a == "--compliance") {
      o.compliance = true;
    } else if (a == "--enforce") {
      o.enforce = true;
    } else if (a == "--day-load") {
      o.day_load = true;
    } else if (a == "--continuous") {
      o.continuous = true;
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

// --compliance: the first half of the nodes (rounded up) is in eu-west, the rest in us-east.
constexpr const char* EU = "eu-west";
constexpr const char* US = "us-east";

int eu_nodes(int nodes) {
  return (nodes + 1) / 2;
}

const char* node_region(int nodes, int k) {
  return k < eu_nodes(nodes) ? EU : US;
}

const char* region_store(std::string_view region) {
  return region == EU ? "eu-lustre" : "us-lustre";
}

// A mix of classifications over the inference tenants, so that every rule has something to match.
const char* inference_classification(int k) {
  static const char* const classes[] = {"restricted", "confidential", "internal", "public"};
  return classes[k % 4];
}

// A pool of HGX H100 nodes: GPUs 0-3 exclusive (training), 4-7 time-sliced two ways (inference, batch).
void write_pool(std::ostream& y, const std::string& name, int count, const std::string& region) {
  y << "      - name: " << name << "\n"
    << "        count: " << count << "\n"
    << "        gpu: H100-80GB-SXM\n"
    << "        gpusPerNode: 8\n"
    << "        region: " << region << "\n"
    << "        sharing:\n"
    << "          mode: exclusive\n"
    << "        gpuSharing:\n"
    << "          - gpus: [4, 5, 6, 7]\n"
    << "            mode: timeSlicing\n"
    << "            replicas: 2\n"
    << "            timeSlice: Short\n";
}

// The pools, one per region, each with the default's sharing layout.
void compliance_pools(std::ostringstream& y, int nodes) {
  const int eu = eu_nodes(nodes);
  for (const auto& [name, count, region] : {std::tuple{"hgx-eu", eu, EU}, std::tuple{"hgx-us", nodes - eu, US}}) {
    if (count == 0) continue;
    write_pool(y, name, count, region);
  }
  // A parallel file system per region, sized so that each node's training job can read its step data
  // (4 x 256 MiB per ~0.65 s step, about 1.7 GB/s) without the store becoming the bottleneck.
  y << "    storage:\n";
  for (const auto& [region, count] : {std::pair{EU, eu}, std::pair{US, nodes - eu}}) {
    if (count == 0) continue;
    y << "      - name: " << region_store(region) << "\n"
      << "        kind: parallelFs\n"
      << "        region: " << region << "\n"
      << "        readBandwidth: " << std::max(40, 4 * count) << "GB/s\n"
      << "        writeBandwidth: " << std::max(20, 2 * count) << "GB/s\n"
      << "        servers: " << std::max(4, count / 2) << "\n"
      << "        encryptedAtRest: true\n";
  }
}

// Co-tenancy and scrub-between-tenants: the compliance rules that refuse placements when enforced.
std::string placement_rules(bool enforce) {
  const std::string action = enforce ? ", action: enforce" : "";
  return "      - {name: co-tenancy, rule: co-tenancy" + action + "}\n" +
         "      - {name: scrub, rule: scrub-between-tenants" + action + "}\n";
}

// spec.data, spec.networkPolicies, spec.identity, spec.audit and spec.compliance.
void compliance_sections(std::ostringstream& y, int nodes, double duration, bool enforce) {
  const bool us = nodes - eu_nodes(nodes) > 0;
  y << "  data:\n";
  for (const char* region : {EU, US}) {
    if (std::string_view(region) == US && !us) continue;
    y << "    - {name: corpus-" << region << ", kind: dataset, tenant: train, store: " << region_store(region)
      << ", region: " << region << "}\n"
      << "    - {name: ckpt-" << region << ", kind: checkpoint, tenant: train, store: " << region_store(region)
      << ", region: " << region << "}\n";
  }
  for (int k = 0; k < nodes; ++k) {
    const char* region = node_region(nodes, k);
    y << "    - {name: inf-" << k << "-weights, kind: weights, tenant: inf-" << k << ", store: " << region_store(region)
      << "}\n"
      << "    - {name: inf-" << k << "-requests, kind: requests, tenant: inf-" << k << "}\n";
  }
  // The training tenant and the restricted inference tenants have segments of their own; every
  // regulated tenant encrypts in transit.
  y << "  networkPolicies:\n"
    << "    - {tenant: train, isolated: true, encryptInTransit: true}\n";
  for (int k = 0; k < nodes; ++k) {
    const std::string cls = inference_classification(k);
    if (cls == "restricted")
      y << "    - {tenant: inf-" << k << ", isolated: true, encryptInTransit: true}\n";
    else if (cls == "confidential")
      y << "    - {tenant: inf-" << k << ", encryptInTransit: true}\n";
  }
  y << "  identity:\n"
    << "    principals:\n"
    << "      - {name: sa-train, tenant: train, kind: serviceAccount}\n"
    << "      - {name: sa-eval, tenant: train, kind: serviceAccount}\n";
  for (int k = 0; k < nodes; ++k)
    y << "      - {name: sa-inf-" << k << ", tenant: inf-" << k << ", kind: serviceAccount}\n"
      << "      - {name: user-inf-" << k << ", tenant: inf-" << k << ", kind: user}\n";
  y << "    services:\n"
    << "      - {name: eval-agent, tenant: train, kind: agent, identity: sa-eval}\n";
  for (int k = 0; k < nodes; ++k)
    y << "      - {name: inf-" << k << "-api, tenant: inf-" << k << ", workload: inf-" << k << "-svc}\n";
  y << "    secrets:\n";
  for (int k = 0; k < nodes; ++k)
    y << "      - {name: inf-" << k << "-key, tenant: inf-" << k << ", path: secret/data/inf-" << k << "/key"
      << (std::string(inference_classification(k)) == "restricted" ? ", requiresAttestation: true" : "") << "}\n";
  // Users call their own API; the evaluation agent calls every API, exchanging its token except on one
  // hop in eight, which replaces it (a confused deputy the identity-path search reports).
  y << "    edges:\n"
    << "      - {from: sa-eval, to: eval-agent}\n";
  for (int k = 0; k < nodes; ++k)
    y << "      - {from: user-inf-" << k << ", to: inf-" << k << "-api, propagation: passthrough}\n"
      << "      - {from: eval-agent, to: inf-" << k << "-api, propagation: " << (k % 8 == 7 ? "replace" : "exchange")
      << "}\n";
  y << "    grants:\n";
  for (const char* region : {EU, US}) {
    if (std::string_view(region) == US && !us) continue;
    y << "      - {principal: sa-train, resource: corpus-" << region << ", actions: [read]}\n"
      << "      - {principal: sa-train, resource: ckpt-" << region << ", actions: [write]}\n";
  }
  for (int k = 0; k < nodes; ++k)
    y << "      - {principal: sa-inf-" << k << ", resource: inf-" << k << "-weights, actions: [read]}\n"
      << "      - {principal: sa-inf-" << k << ", resource: inf-" << k << "-requests, actions: [read, write]}\n"
      << "      - {principal: sa-inf-" << k << ", resource: inf-" << k << "-key, actions: [use]}\n"
      << "      - {principal: user-inf-" << k << ", resource: inf-" << k << "-requests, actions: [read]}\n";
  // A service account of one tenant in sixteen is revoked half-way through while its replicas keep running
  // (the timely-revocation rule checks their later accesses against its grace period).
  y << "    revocations:\n";
  for (int k = 0; k < nodes; k += 16)
    y << "      - {principal: sa-inf-" << k << ", at: " << num(duration / 2) << "s}\n";
  // The shipper: 1 s delay, up to 0.5 s jitter, a throughput with headroom over the audited rate.
  y << "  audit:\n"
    << "    delay: 1s\n"
    << "    jitter: 500ms\n"
    << "    throughput: " << 200 * nodes << "/s\n"
    << "    retention: 2200d\n"
    << "    separateStore: true\n"
    << "    hashChained: true\n";
  y << "  compliance:\n"
    << "    rules:\n"
    << "      - {name: residency, rule: residency, match: {classifications: [restricted, confidential]}}\n"
    << placement_rules(enforce) << "      - {name: in-transit, rule: encryption-in-transit}\n"
    << "      - {name: at-rest, rule: encryption-at-rest}\n"
    << "      - {name: segments, rule: network-segregation, match: {tenants: [train]}}\n"
    << "      - {name: covert-budget, rule: leakage-budget, match: {classifications: [restricted]}}\n"
    << "      - {name: audit-complete, rule: audit-completeness}\n"
    << "      - {name: audit-content, rule: audit-content}\n"
    << "      - {name: audit-chain, rule: audit-integrity}\n"
    << "      - {name: audit-kept, rule: audit-retention, parameters: {regimes: [hipaa, pci]}}\n"
    << "      - {name: audit-gaps, rule: logging-gap-alarm, parameters: {maxGap: 10, alertWithin: 60, alerting: "
       "true}}\n"
    << "      - {name: named-principals, rule: unique-identity}\n"
    << "      - {name: least-privilege, rule: authorisation}\n"
    << "      - {name: leavers, rule: timely-revocation}\n"
    << "      - {name: keys, rule: attestation-before-key-release}\n";
}

std::string scenario(const Options& o) {
  const int nodes = o.gpus / GPUS_PER_NODE;
  const double capacity = MAX_BATCH / full_batch_time();  // requests/s per replica at full batches
  const double rate = o.day_load ? DAY_REQUESTS_PER_GPU_S * GPUS_PER_NODE : TARGET_LOAD * TS_GPUS_PER_NODE * capacity;
  // The day load's steps do ~100x the work of one stress step, so that one lasts a minute.
  const double step_scale = o.day_load ? std::round(DAY_STEP_SECONDS / training_step_time()) : 1.0;
  const double step_time =
      o.day_load ? training_step_time() + (step_scale - 1) * roofline(STEP_FLOPS, STEP_BYTES) : training_step_time();
  const int iterations = std::max(1, static_cast<int>(0.9 * o.duration / step_time));
  // SLO windows of 10 s (or the whole run when shorter) so that short runs still have windows; 5 minutes for
  // the day load.
  const double window = std::min(o.day_load ? 300.0 : 10.0, o.duration);

  std::ostringstream y;
  y << "# Generated by gputwin-bench-gen --gpus " << o.gpus << " --duration " << num(o.duration) << " --seed " << o.seed
    << (o.compliance ? " --compliance" : "") << (o.enforce ? " --enforce" : "") << (o.day_load ? " --day-load" : "")
    << (o.continuous ? " --continuous" : "") << "\n"
    << "# " << nodes << " HGX H100 node(s): GPUs 0-3 exclusive (training), 4-7 time-sliced x2 (inference + batch).\n"
    << (o.day_load
            ? "# Day load (issue 21's goal density): " + num(rate) + " req/s per tenant, " +
                  num(DAY_JOBS_PER_GPU_S * GPUS_PER_NODE) + " batch jobs/s per node, 1-minute training steps.\n"
            : "# Inference: " + num(rate) + " req/s per tenant = " + num(100 * TARGET_LOAD) + "% of 4 replicas x " +
                  num(capacity) + " req/s (full batches of " + std::to_string(MAX_BATCH) + ").\n")
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
    << "    nodePools:\n";
  if (o.compliance) {
    compliance_pools(y, nodes);
  } else {
    write_pool(y, "hgx", nodes, "eu-west");
  }

  y << "  tenants:\n"
    << "    - name: train\n"
    << "      region: eu-west\n"
    << (o.compliance || o.enforce ? "      classification: restricted\n" : "") << "      slos:\n"
    << "        - name: slowdown\n"
    << "          kind: slowdown\n"
    << "          maxSlowdown: 1.1\n"
    << "    - name: batch\n"
    << "      region: eu-west\n"
    << (o.compliance || o.enforce ? "      classification: internal\n" : "") << "      slos:\n"
    << "        - name: turnaround\n"
    << "          kind: completionTime\n"
    << "          threshold: 30s\n"
    << "          target: 0.9\n";
  for (int k = 0; k < nodes; ++k) {
    y << "    - name: inf-" << k << "\n"
      << "      region: " << (o.compliance ? node_region(nodes, k) : EU) << "\n";
    if (o.compliance || o.enforce) y << "      classification: " << inference_classification(k) << "\n";
    y << "      slos:\n"
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
      << "      iterations: " << iterations << "\n";
    // The day load's jobs start spread over one step, as independent jobs do; identical jobs started together
    // would all move their data and gradients at the same instants (see docs/PERFORMANCE.md, "A simulated day").
    if (o.day_load) y << "      start: " << num(step_time * k / nodes) << "s\n";
    y << "      placement:\n"
      << "        sharing: [exclusive]\n"
      << "      step:\n"
      << "        flops: " << num(400 * step_scale) << "TFLOP\n"
      << "        bytes: " << num(200 * step_scale) << "GB\n"
      << "        data: 256MiB\n"
      << "        gradients: 16GB\n";
    if (o.compliance) {
      const std::string region = node_region(nodes, k);
      y << "      io:\n"
        << "        dataset: corpus-" << region << "\n"
        << "        checkpoint: {data: ckpt-" << region << ", every: 20, bytes: 2GB}\n"
        << "        identity: sa-train\n";
    }
  }
  for (int k = 0; k < nodes; ++k) {
    y << "    - name: inf-" << k << "-svc\n"
      << "      kind: inference\n"
      << "      tenant: inf-" << k << "\n"
      << "      replicas: " << TS_GPUS_PER_NODE << "\n"
      << "      placement:\n"
      << "        sharing: [timeSlicing]\n";
    if (o.continuous)
      y << "      model: {id: llama-3.1-8b}\n"
        << "      kvCache: {gpuMemoryUtilization: 0.45}\n";
    else
      y << "      model:\n"
        << "        parameters: 8B\n"
        << "        dtype: fp16\n";
    y << "      arrival:\n"
      << "        process: poisson\n"
      << "        rate: " << num(rate) << "/s\n";
    if (o.continuous)
      y << "      batching: {mode: continuous}\n";
    else
      y << "      batching:\n"
        << "        maxBatch: " << MAX_BATCH << "\n"
        << "        timeout: 20ms\n";
    y << "      request:\n"
      << "        promptTokens: " << PROMPT_TOKENS << "\n"
      << "        outputTokens: " << OUTPUT_TOKENS << "\n";
    if (o.compliance)
      y << "      io:\n"
        << "        weights: inf-" << k << "-weights\n"
        << "        requestBytes: 4KiB\n"
        << "        responseBytes: 1KiB\n"
        << "        identity: sa-inf-" << k << "\n"
        << "      secrets: [inf-" << k << "-key]\n";
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
      << "      arrival:\n";
    if (o.day_load)
      y << "        process: poisson\n"
        << "        rate: " << num(DAY_JOBS_PER_GPU_S * GPUS_PER_NODE) << "/s\n";
    else
      y << "        process: bursty\n"
        << "        rate: 0/s\n"
        << "        burstRate: 2/s\n"
        << "        meanBurst: 5s\n"
        << "        meanGap: 15s\n";
    y << "      job:\n"
      << "        kernels: 10\n"
      << "        flops: 100TFLOP\n"
      << "        bytes: 50GB\n";
  }
  y << "  policies:\n"
    << "    placement:\n"
    << "      name: spread\n";
  if (o.compliance) {
    compliance_sections(y, nodes, o.duration, o.enforce);
  } else if (o.enforce) {
    y << "  compliance:\n"
      << "    rules:\n"
      << placement_rules(true);
  }
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
