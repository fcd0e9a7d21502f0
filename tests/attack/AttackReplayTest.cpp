// Attack replay: the attacks of scenarios/attacks/ run inside the simulation (gputwin run as a child
// process, one engine per process) and report what they achieved beside the analytic bound. Published
// targets and tolerances: ../shared/reference/validation-targets.md (V5) and attacks.md (A1, A5, A6, A17).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "Attack.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

const std::string MIG_LAYOUT = "spec.cluster.nodePools[0].sharing={mode: mig, migLayout: [3g.40gb, 3g.40gb]}";

// Runs scenarios/attacks/<name>.yaml with the given --set overrides; returns report.json.
json run_attack(const std::string& name, const std::vector<std::string>& sets = {}) {
  TempDir dir;
  std::vector<std::string> argv{
      GTW_BINARY, "run",      std::string(GTW_SOURCE_DIR) + "/scenarios/attacks/" + name + ".yaml",
      "-o",       dir.path(), "--progress",
      "none",     "--format", "json"};
  for (const auto& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  const auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file("report.json")));
}

json attack_named(const json& report, const std::string& name) {
  for (const auto& a : report["leakage"]["attacks"])
    if (a["name"] == name) return a;
  ADD_FAILURE() << "no attack " << name << " in " << report["leakage"]["attacks"].dump();
  return json::object();
}

double num(const json& j, const char* key) {
  return j.at("achieved").at(key).get<double>();
}

// The capacity of a published measurement: rate x (1 - H(p)).
double capacity(double rate, double p) {
  const double h = p <= 0 ? 0 : -p * std::log2(p) - (1 - p) * std::log2(1 - p);
  return rate * (1 - h);
}

// V5: Beyond the Bridge, 45.5 kbit/s at 3.22% (arXiv 2404.03877); capacity +-20%, error +-2 pp.
TEST(AttackReplay, NvlinkCovertChannelReproducesBeyondTheBridge) {
  const json a = attack_named(run_attack("nvlink-covert-beyond-the-bridge"), "covert");
  EXPECT_TRUE(a["ran"].get<bool>());
  EXPECT_EQ(a["resource"], "nvlink");
  EXPECT_EQ(a["relation"], "separateGpus");
  EXPECT_EQ(a["victim"], "insider");
  EXPECT_EQ(num(a, "bits"), 4096);
  EXPECT_NEAR(num(a, "bit_rate_bps"), 45.5e3, 0.20 * 45.5e3);
  EXPECT_NEAR(num(a, "error_rate"), 0.0322, 0.02);
  EXPECT_NEAR(num(a, "information_rate_bps"), capacity(45.5e3, 0.0322), 0.20 * capacity(45.5e3, 0.0322));
  // The channel's analytic bound is the best published NVLink attack (NVBleed); the replay stays under it.
  EXPECT_NEAR(a["bound_bps"].get<double>(), capacity(70e3, 0.0478), 1.0);
  EXPECT_LE(num(a, "achieved_bps"), a["bound_bps"].get<double>());
  EXPECT_TRUE(a["within_bound"].get<bool>());
}

// V5: NVBleed, > 70 kbit/s at 4.78% (arXiv 2503.17847).
TEST(AttackReplay, NvlinkCovertChannelReproducesNvbleed) {
  const json a = attack_named(run_attack("nvlink-covert-nvbleed"), "covert");
  EXPECT_EQ(a, attack_named(run_attack("nvlink-covert-nvbleed"), "covert")) << "same seed, same replay";
  EXPECT_NE(num(a, "bit_errors"),
            num(attack_named(run_attack("nvlink-covert-nvbleed", {"spec.seed=9"}), "covert"), "bit_errors"))
      << "the noise comes from the seeded streams";
  EXPECT_NEAR(num(a, "bit_rate_bps"), 70e3, 0.20 * 70e3);
  EXPECT_NEAR(num(a, "error_rate"), 0.0478, 0.02);
  EXPECT_NEAR(num(a, "information_rate_bps"), capacity(70e3, 0.0478), 0.20 * capacity(70e3, 0.0478));
  EXPECT_LE(num(a, "achieved_bps"), a["bound_bps"].get<double>());
}

// Validation, predicted (a documented bad pair): each NVLink paper's operating point from the noise of the other.
// The noise is calibrated per paper; whether it carries over is the question. It does not: A6's operating point
// from A5's noise errs 2.4x as often as published (11.4 % against 4.78 %, information rate -32 %), and A5's from
// A6's noise a seventh as often (0.46 % against 3.22 %, +20 %). The papers measured on their own machines (A5 on
// V100s); a probe noise calibrated on one does not carry over to the other. The rates are the papers' own (inputs);
// the prediction is the error at that rate.
TEST(AttackReplay, NvlinkProbeNoiseOfOnePaperPredictsTheOthersOperatingPointBadly) {
  const auto with_noise = [](const char* scenario, double noise) {
    std::ostringstream set;
    set.precision(17);
    set << "spec.workloads[covert].attack.noise=" << noise * 1e6 << "us";
    return attack_named(run_attack(scenario, {set.str()}), "covert");
  };
  const json a6 = with_noise("nvlink-covert-nvbleed", calibrated_probe_noise(45.5e3, 0.0322));
  EXPECT_NEAR(num(a6, "bit_rate_bps"), 70e3, 1.0);
  EXPECT_GT(num(a6, "error_rate"), 0.09) << "published 4.78 %";
  EXPECT_LT(num(a6, "error_rate"), 0.14);
  const double a6_published = capacity(70e3, 0.0478);
  EXPECT_GT(num(a6, "information_rate_bps"), 0.60 * a6_published);
  EXPECT_LT(num(a6, "information_rate_bps"), 0.75 * a6_published);

  const json a5 = with_noise("nvlink-covert-beyond-the-bridge", calibrated_probe_noise(70e3, 0.0478));
  EXPECT_NEAR(num(a5, "bit_rate_bps"), 45.5e3, 1.0);
  EXPECT_LT(num(a5, "error_rate"), 0.012) << "published 3.22 %";
  const double a5_published = capacity(45.5e3, 0.0322);
  EXPECT_GT(num(a5, "information_rate_bps"), 1.12 * a5_published);
  EXPECT_LT(num(a5, "information_rate_bps"), 1.28 * a5_published);
}

// A1 (MICRO 2017): error-free > 4 Mbit/s between co-resident kernels (MPS).
TEST(AttackReplay, L2CovertChannelUnderMpsReproducesA1) {
  const json a = attack_named(run_attack("l2-covert-mps"), "covert");
  EXPECT_EQ(a["relation"], "mps");
  EXPECT_NEAR(num(a, "bit_rate_bps"), 4e6, 0.20 * 4e6);
  EXPECT_LE(num(a, "error_rate"), 0.01);
  EXPECT_LE(num(a, "achieved_bps"), a["bound_bps"].get<double>());
}

// MIG closes the L2/HBM channels: the same attack on two MIG instances decodes noise.
TEST(AttackReplay, MigClosesTheL2AndHbmChannels) {
  for (const char* resource : {"l2", "hbm"}) {
    const json a = attack_named(
        run_attack("l2-covert-mps", {MIG_LAYOUT, std::string("spec.workloads[covert].attack.channel=") + resource}),
        "covert");
    EXPECT_EQ(a["relation"], "mig") << resource;
    EXPECT_EQ(a["bound_state"], "closed") << resource;
    EXPECT_GT(num(a, "error_rate"), 0.4) << resource;
    EXPECT_LT(num(a, "error_rate"), 0.6) << resource;
    EXPECT_LE(num(a, "achieved_bps"), 0.0) << resource;
    EXPECT_TRUE(a["within_bound"].get<bool>()) << resource;
  }
}

// ... but not PCIe (one link per physical GPU; A17: 13.02 kbit/s), nor NVLink, whose copies between
// instances go through host memory over that same PCIe link.
TEST(AttackReplay, MigLeavesPcieAndNvlinkOpen) {
  const json pcie = attack_named(run_attack("pcie-covert-mig"), "covert");
  EXPECT_EQ(pcie["relation"], "mig");
  EXPECT_EQ(pcie["bound_state"], "open");
  EXPECT_NEAR(num(pcie, "bit_rate_bps"), 13.02e3, 0.20 * 13.02e3);
  EXPECT_LE(num(pcie, "error_rate"), 0.02);
  EXPECT_LE(num(pcie, "achieved_bps"), pcie["bound_bps"].get<double>());
  const json nvlink =
      attack_named(run_attack("pcie-covert-mig", {"spec.workloads[covert].attack.channel=nvlink"}), "covert");
  EXPECT_EQ(nvlink["resource"], "pcie");
  EXPECT_LE(num(nvlink, "error_rate"), 0.02);
  EXPECT_GT(num(nvlink, "achieved_bps"), 5e3);
  EXPECT_TRUE(nvlink["within_bound"].get<bool>());
}

// The attacker's achieved rate never exceeds the analytic bound of its channel, whatever it asks for
// (a faster bit rate than the published probe loop is refused; more noise only lowers it).
TEST(AttackReplay, AchievedRateNeverExceedsTheBound) {
  struct Case {
    const char* scenario;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases{
      {"nvlink-covert-nvbleed", {"spec.seed=1"}},
      {"nvlink-covert-nvbleed", {"spec.seed=2"}},
      {"nvlink-covert-nvbleed", {"spec.seed=3", "spec.workloads[covert].attack.bitRate=200000/s"}},
      {"nvlink-covert-beyond-the-bridge", {"spec.seed=4", "spec.workloads[covert].attack.bitRate=20000/s"}},
      {"l2-covert-mps", {"spec.seed=5", "spec.workloads[covert].attack.bits=1024"}},
      {"pcie-covert-mig", {"spec.seed=6", "spec.workloads[covert].attack.bits=1024"}},
  };
  for (const auto& c : cases) {
    const json a = attack_named(run_attack(c.scenario, c.sets), "covert");
    EXPECT_TRUE(a["within_bound"].get<bool>()) << c.scenario << ": " << a.dump();
    EXPECT_LE(num(a, "achieved_bps"), a["bound_bps"].get<double>()) << c.scenario;
    EXPECT_LE(num(a, "bit_rate_bps"), 70e3 * 1.01 + (std::string(c.scenario) == "l2-covert-mps" ? 4e6 : 0))
        << c.scenario;
  }
}

// Mitigations lower what the replayed attack gets: coarser timers and injected noise.
TEST(AttackReplay, TimerCoarseningAndNoiseInjectionLowerTheNvlinkChannel) {
  const double base = num(attack_named(run_attack("nvlink-covert-nvbleed"), "covert"), "achieved_bps");
  const json coarse =
      attack_named(run_attack("nvlink-covert-nvbleed", {"spec.policies.isolation={timerResolution: 20us}"}), "covert");
  EXPECT_LT(num(coarse, "achieved_bps"), 0.5 * base);
  EXPECT_LE(coarse["bound_bps"].get<double>(), capacity(1 / 20e-6, 0.0478) + 1);
  const json noisy =
      attack_named(run_attack("nvlink-covert-nvbleed", {"spec.policies.isolation={noiseInjection: 2us}"}), "covert");
  EXPECT_GT(num(noisy, "error_rate"), 0.15);
  EXPECT_LT(num(noisy, "achieved_bps"), 0.5 * base);
}

// The threshold detector's error on an uncontended link at `rate` with probe noise `sigma`: the probe takes
// 0.2 T alone and 0.4 T beside the sender, the threshold is halfway (docs/models/leakage.md).
double detector_error(double rate, double sigma) {
  return 0.5 * std::erfc(0.1 / (sigma * rate) / std::sqrt(2.0));
}

std::vector<json> rate_trials(const json& attack) {
  return attack.at("achieved").at("rate_search").at("trials");
}

// bitRate auto, analytic: with a probe noise of 2 us every trial errs as the detector formula says, and the
// search settles within 5% of the best information rate any rung of its ladder (70 kbit/s down in half
// octaves) could carry. A mechanism check: nothing published is compared.
TEST(AttackReplay, AnAdaptiveChannelSettlesWhereItsNoiseAllows) {
  const double sigma = 2e-6;
  const json a = attack_named(
      run_attack("nvlink-covert-nvbleed",
                 {"spec.duration=3s", "spec.workloads[covert].attack.bitRate=auto",
                  "spec.workloads[covert].attack.trainingBits=4096", "spec.workloads[covert].attack.noise=2us"}),
      "covert");
  const auto trials = rate_trials(a);
  ASSERT_GE(trials.size(), 3U) << a.dump();
  for (const auto& t : trials) {
    const double rate = t["bit_rate_bps"].get<double>(), p = detector_error(rate, sigma);
    EXPECT_NEAR(t["error_rate"].get<double>(), p, 0.02 + 4 * std::sqrt(p * (1 - p) / 4096)) << rate;
  }
  double best = 0;
  for (double rate = 70e3; rate >= 70e3 / 1024; rate /= std::sqrt(2.0))
    best = std::max(best, capacity(rate, detector_error(rate, sigma)));
  const double chosen = num(a, "bit_rate_bps");
  EXPECT_GE(capacity(chosen, detector_error(chosen, sigma)), 0.95 * best) << a.dump();
  EXPECT_LT(chosen, 70e3 * 0.9) << "2 us of noise makes slower signalling pay";
  EXPECT_NEAR(num(a, "error_rate"), detector_error(chosen, sigma), 0.02);
  EXPECT_GT(a["achieved"]["rate_search"]["seconds"].get<double>(), 0);
  EXPECT_TRUE(a["within_bound"].get<bool>());
}

// A 20 us timer closes the channel to an attacker who keeps the published rate, not to one who searches: it
// slows down until a contended probe (0.4 T) spans a timer tick. Injected noise of 2 us costs the searcher
// less than the fixed-rate attacker too. Both stay within the analytic bound.
TEST(AttackReplay, ACoarseTimerSlowsAnAdaptiveChannelButDoesNotCloseIt) {
  const std::string timer = "spec.policies.isolation={timerResolution: 20us}";
  const std::string noise = "spec.policies.isolation={noiseInjection: 2us}";
  const std::string adaptive = "spec.workloads[covert].attack.bitRate=auto";
  const json fixed_timer = attack_named(run_attack("nvlink-covert-nvbleed", {timer}), "covert");
  const json auto_timer = attack_named(run_attack("nvlink-covert-nvbleed", {timer, adaptive}), "covert");
  EXPECT_LT(num(fixed_timer, "achieved_bps"), 1e3);
  EXPECT_GT(num(auto_timer, "achieved_bps"), 10e3) << auto_timer.dump();
  EXPECT_LE(num(auto_timer, "bit_rate_bps"), 0.4 / 20e-6 * 1.001);
  EXPECT_LE(num(auto_timer, "achieved_bps"), auto_timer["bound_bps"].get<double>());
  const json fixed_noise = attack_named(run_attack("nvlink-covert-nvbleed", {noise}), "covert");
  const json auto_noise = attack_named(run_attack("nvlink-covert-nvbleed", {noise, adaptive}), "covert");
  EXPECT_GT(num(auto_noise, "achieved_bps"), 1.2 * num(fixed_noise, "achieved_bps")) << auto_noise.dump();
  EXPECT_LE(num(auto_noise, "achieved_bps"), auto_noise["bound_bps"].get<double>());
}

// Noise from a co-runner: a fine-tune's gradient all-reduce into the GPU both ends write to contends with
// the probes, and the channel the search settles on carries less than on a quiet link.
TEST(AttackReplay, ACoRunnersAllReduceOnTheSharedLinkCostsTheAdaptiveChannel) {
  const json busy = attack_named(run_attack("nvlink-covert-adaptive"), "covert");
  const json quiet =
      attack_named(run_attack("nvlink-covert-adaptive", {"spec.workloads[finetune].step.gradients=0B"}), "covert");
  EXPECT_FALSE(rate_trials(busy).empty());
  EXPECT_GT(num(busy, "error_rate"), num(quiet, "error_rate") + 0.02) << busy.dump() << quiet.dump();
  EXPECT_LT(num(busy, "achieved_bps"), 0.9 * num(quiet, "achieved_bps"));
}

// Remanence: without scrubbing the scraper reads the fine-tune's 30 GiB back; scrub on free closes it
// and costs an HBM write of the freed bytes (30 GiB / 2.57 TB/s on an idle H100).
TEST(AttackReplay, ScrubbingClosesRemanenceAndCostsTheHbmWriteTime) {
  const double freed = 30.0 * 1024 * 1024 * 1024;
  const json open = run_attack("remanence-scrape");
  const json a = attack_named(open, "scrape");
  EXPECT_DOUBLE_EQ(num(a, "bytes_recovered"), freed);
  EXPECT_DOUBLE_EQ(num(a, "bound_bytes"), freed);
  EXPECT_EQ(a["victim"], "finetune");
  bool exposure = false;
  for (const auto& d : open["leakage"]["discrete"])
    if (d["observer"] == "scraper" && d["source"] == "research" && d["kind"] == "unscrubbedMemory") {
      exposure = true;
      EXPECT_FALSE(d["closed"].get<bool>());
      EXPECT_DOUBLE_EQ(d["bytes"].get<double>(), freed);
    }
  EXPECT_TRUE(exposure);
  EXPECT_EQ(open["leakage"]["mitigation_costs"]["scrub_seconds"].get<double>(), 0.0);

  const json scrubbed = run_attack("remanence-scrape", {"spec.policies.isolation.scrubOnFree=true"});
  const json s = attack_named(scrubbed, "scrape");
  EXPECT_EQ(num(s, "bytes_recovered"), 0.0);
  EXPECT_TRUE(s["ran"].get<bool>());
  for (const auto& d : scrubbed["leakage"]["discrete"]) {
    if (d["kind"] == "unscrubbedMemory") {
      EXPECT_TRUE(d["closed"].get<bool>()) << d.dump();
    }
  }
  const auto& cost = scrubbed["leakage"]["mitigation_costs"];
  // The fine-tune's 30 GiB are scrubbed (the scraper holds its memory to the end), alone on an idle
  // GPU: 30 GiB / 2.57 TB/s.
  EXPECT_DOUBLE_EQ(cost["scrubbed_bytes"].get<double>(), freed);
  EXPECT_NEAR(cost["scrub_seconds"].get<double>(), freed / 2.57e12, 1e-9);
}

TEST(AttackReplay, PrimeProbeFingerprintsTheCoLocatedModelUnderMpsNotMig) {
  const json mps = attack_named(run_attack("prime-probe"), "fingerprint");
  EXPECT_GE(num(mps, "observations"), 10);
  // Per burst: two batches back to back look like one batch of a model twice as large.
  EXPECT_GE(num(mps, "accuracy"), 0.7);
  EXPECT_TRUE(mps["achieved"]["identified"].get<bool>());
  EXPECT_EQ(mps["achieved"]["answer"], "llama-3.1-8b");
  const json mig = attack_named(run_attack("prime-probe", {MIG_LAYOUT}), "fingerprint");
  EXPECT_EQ(num(mig, "observations"), 0);
  EXPECT_EQ(num(mig, "accuracy"), 0);
  EXPECT_EQ(mig["bound_state"], "closed");
}

TEST(AttackReplay, ModelExtractionEstimatesTheParameterCount) {
  const json a = attack_named(run_attack("model-extraction"), "extract");
  EXPECT_GE(num(a, "observations"), 10);
  EXPECT_DOUBLE_EQ(num(a, "parameters"), 8e9);
  EXPECT_LT(num(a, "relative_error"), 0.25);
}

// The model-IP view follows the attack: an extraction that observed nothing (MIG) closed the architecture
// channel; one that observed the victim demonstrated it.
TEST(AttackReplay, ModelIpStatusOfAnExtractionFollowsWhatItObserved) {
  const auto status = [](const json& report) {
    for (const auto& m : report["leakage"]["models"])
      for (const auto& x : m["exposures"])
        if (x["channel"] == "contentionTiming" && x["detail"].get<std::string>().rfind("extract", 0) == 0)
          return x["status"].get<std::string>();
    return std::string("(none)");
  };
  EXPECT_EQ(status(run_attack("model-extraction")), "demonstrated");
  const json mig = run_attack("model-extraction", {MIG_LAYOUT});
  EXPECT_EQ(num(attack_named(mig, "extract"), "observations"), 0);
  EXPECT_EQ(status(mig), "closed");
}

// Layer structure (the issue: "model extraction timing (layer structure from contention)"): the victim's
// 32 layers each show as a run of slow probes; Leaky DNN (A3) and DeepSniffer (A9) report layer recovery
// "accurately" without a number, EZClone (A10) 100% architecture prediction: the attacker's answer must
// be 32, right in at least half the batches (a batch that starts right after the previous one's decode
// merges its first layer into it), and the layers' shares within 5%. MIG leaves nothing to see; a 20 us
// timer garbles the runs, a 50 us one hides the 10 us probe's contention.
TEST(AttackReplay, ModelExtractionRecoversTheLayerStructureUnderMpsNotMigOrCoarseTimers) {
  const json mps = attack_named(run_attack("layer-extraction"), "extract");
  const json& layers = mps["achieved"]["layers"];
  EXPECT_DOUBLE_EQ(layers["truth"].get<double>(), 32);
  EXPECT_GE(layers["batches"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(layers["estimate"].get<double>(), 32);
  EXPECT_GE(layers["exact"].get<double>(), 0.5 * layers["batches"].get<double>());
  EXPECT_LT(layers["error_mean"].get<double>(), 0.05);
  EXPECT_GT(layers["error_mean"].get<double>(), 0) << "calibrated noise and the probe grid leave an error";
  const json mig = attack_named(run_attack("layer-extraction", {MIG_LAYOUT}), "extract");
  EXPECT_EQ(mig["achieved"]["layers"]["batches"].get<double>(), 0);
  EXPECT_EQ(num(mig, "observations"), 0);
  const json garbled =
      attack_named(run_attack("layer-extraction", {"spec.policies.isolation.timerResolution=20us"}), "extract");
  EXPECT_EQ(garbled["achieved"]["layers"]["exact"].get<double>(), 0);
  EXPECT_NE(garbled["achieved"]["layers"]["estimate"].get<double>(), 32);
  const json coarse =
      attack_named(run_attack("layer-extraction", {"spec.policies.isolation.timerResolution=50us"}), "extract");
  EXPECT_EQ(coarse["achieved"]["layers"]["batches"].get<double>(), 0);
}

// spec.policies.isolation.queryRateLimit: a token bucket per client at the service's front end. The
// attacker's 300 queries at 50/s take 6 s unlimited; at 5/s it gets 5 + 5 t admitted by t and does not
// finish in the run. The service's own clients are not limited: it serves as many of their requests.
TEST(AttackReplay, QueryRateLimitCapsTheAnsweredQueriesAndCostsTheAttackerTime) {
  const json free_run = run_attack("query-extraction");
  const json limited_run = run_attack("query-extraction", {"spec.policies.isolation.queryRateLimit=5/s"});
  const json free = attack_named(free_run, "steal");
  const json limited = attack_named(limited_run, "steal");
  EXPECT_EQ(num(free, "queries_admitted"), 300);
  EXPECT_EQ(num(free, "queries_answered"), 300);
  EXPECT_EQ(num(free, "queries_rate_limited"), 0);
  EXPECT_TRUE(free["achieved"]["goal_reached"].get<bool>());
  EXPECT_NEAR(num(free, "query_seconds"), 300 / 50.0, 0.1);
  EXPECT_FALSE(limited["achieved"]["goal_reached"].get<bool>());
  EXPECT_GT(num(limited, "queries_rate_limited"), 0);
  const double t = num(limited, "query_seconds");
  EXPECT_LE(num(limited, "queries_admitted"), 5 + 5 * t + 1e-6);
  EXPECT_GE(num(limited, "queries_admitted"), 5 * t - 1);
  EXPECT_LT(num(limited, "queries_answered"), 0.5 * num(free, "queries_answered"));
  EXPECT_TRUE(limited["within_bound"].get<bool>());
  // Answers of the service's own clients: all its completions minus the attacker's answers.
  auto own_served = [](const json& report, const json& attack) {
    for (const auto& tenant : report["tenants"])
      for (const auto& w : tenant["workloads"])
        if (w["name"] == "chat-svc") return w["requests"]["completed"].get<double>() - num(attack, "queries_answered");
    ADD_FAILURE() << "no chat-svc in " << report["tenants"].dump();
    return 0.0;
  };
  EXPECT_GT(own_served(free_run, free), 0);
  EXPECT_GE(own_served(limited_run, limited), own_served(free_run, free));
}

// "CC closes plaintext PCIe exposure but not timing channels": a covert channel from a trojan on a
// confidential GPU to a neighbour behind the same PCIe switch still carries bits (A17's 13.02 kbit/s),
// while the CC service's weights are not exposed in plaintext. Without the shared switch (the flat
// topology: a PCIe link per GPU) the same channel carries nothing.
TEST(AttackReplay, ConfidentialClosesPlaintextPcieButAPcieTimingChannelStillCarriesBits) {
  const json report = run_attack("pcie-covert-confidential");
  const json a = attack_named(report, "covert");
  EXPECT_EQ(a["resource"], "pcie");
  EXPECT_EQ(a["relation"], "separateGpus");
  EXPECT_NEAR(num(a, "bit_rate_bps"), 13.02e3, 0.20 * 13.02e3);
  EXPECT_LT(num(a, "error_rate"), 0.02);
  EXPECT_GT(num(a, "achieved_bps"), 0.8 * 13.02e3);
  EXPECT_TRUE(a["within_bound"].get<bool>());
  const json flat =
      attack_named(run_attack("pcie-covert-confidential", {"spec.cluster.nodePools[0].topology=flat"}), "covert");
  EXPECT_GT(num(flat, "error_rate"), 0.4);
  EXPECT_EQ(num(flat, "achieved_bps"), 0);
  bool plain = false;
  for (const auto& d : report["leakage"]["discrete"])
    if (d["kind"] == "plaintextPcie" && d["source"] == "insider") {
      plain = true;
      EXPECT_TRUE(d["closed"].get<bool>()) << d.dump();
    }
  EXPECT_TRUE(plain);
}

TEST(AttackReplay, NoisyNeighbourDegradesTheVictimUnderMpsNotMig) {
  const json mps = attack_named(run_attack("noisy-neighbour"), "hammer");
  EXPECT_GT(num(mps, "victim_p99_during_s"), 1.3 * num(mps, "victim_p99_before_s"));
  const json mig = attack_named(run_attack("noisy-neighbour", {MIG_LAYOUT}), "hammer");
  EXPECT_LT(num(mig, "victim_p99_during_s"), 1.05 * num(mig, "victim_p99_before_s"));
}

TEST(AttackReplay, MpsKillEndsTheNeighboursOnlyUnderMps) {
  const json mps = attack_named(run_attack("mps-kill"), "kill");
  EXPECT_EQ(num(mps, "victim_replicas_ended"), 1);
  EXPECT_GT(num(mps, "victim_throughput_before_per_s"), 1);
  EXPECT_EQ(num(mps, "victim_throughput_during_per_s"), 0);
  const json mig = attack_named(run_attack("mps-kill", {MIG_LAYOUT}), "kill");
  EXPECT_EQ(num(mig, "victim_replicas_ended"), 0);
  EXPECT_GT(num(mig, "victim_throughput_during_per_s"), 1);
}

// findings.sarif: one result per attack, at the line of its `attack:` mapping, tagged with ATLAS ids;
// an error when it achieved something, a note when the design stopped it.
TEST(AttackReplay, FindingsPointAtTheAttackLine) {
  for (const bool scrub : {false, true}) {
    TempDir dir;
    const std::string file = std::string(GTW_SOURCE_DIR) + "/scenarios/attacks/remanence-scrape.yaml";
    const auto r =
        run_process({GTW_BINARY, "run", file, "-o", dir.path(), "--progress", "none", "--format", "sarif", "--set",
                     std::string("spec.policies.isolation.scrubOnFree=") + (scrub ? "true" : "false")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json sarif = json::parse(read_text(dir.file("findings.sarif")));
    int line = 0;
    {
      std::istringstream in(read_text(file));
      std::string text;
      for (int n = 1; std::getline(in, text); ++n)
        if (text.find("attack: {type: remanenceScrape}") != std::string::npos) line = n;
    }
    ASSERT_GT(line, 0);
    bool found = false;
    for (const auto& res : sarif["runs"][0]["results"]) {
      if (res["ruleId"] != "GTW-ATTACK-remanenceScrape") continue;
      found = true;
      EXPECT_EQ(res["level"], scrub ? "note" : "error");
      EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], line);
      const auto& tags = res["properties"]["tags"];
      EXPECT_NE(std::find(tags.begin(), tags.end(), "AML.T0025"), tags.end());
    }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace gtw::test
