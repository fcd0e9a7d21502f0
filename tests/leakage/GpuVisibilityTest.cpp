// spec.policies.isolation.gpuVisibility: the remote L2 prime+probe channel over NVLink (A4, Spy in the
// GPU-box) needs the spy to enable peer access to the victim's GPU; where tenants see only their
// allocated GPUs (device plugin, cgroup device isolation) it is closed, while NVLink contention (A5,
// A6), driven from the spy's own GPUs, stays open. End to end through `gputwin run` on
// tests/fixtures/scenarios/peer-access-hgx.yaml (two tenants on exclusive GPUs of one HGX H100 node).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ChannelCatalogue.hpp"
#include "Leakage.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
using channel::Mode;
using channel::Resource;

const std::string FIXTURE = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/peer-access-hgx.yaml";

// report.json of the fixture with gpuVisibility set to `visibility`.
json run_with(const TempDir& dir, const std::string& visibility, const std::string& formats = "json") {
  const std::string out = dir.file(visibility);
  const auto r =
      run_process(run_argv(GTW_BINARY, FIXTURE, out, formats, {"spec.policies.isolation.gpuVisibility=" + visibility}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

// A string attribute of /leakage in results.h5 ("" when absent).
std::string leakage_attribute(const std::string& h5, const char* name) {
  const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return "";
  std::string out;
  const hid_t attr = H5Aopen_by_name(file, "/leakage", name, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* value = nullptr;
    if (H5Aread(attr, type, &value) >= 0 && value) out = value;
    H5free_memory(value);
    H5Tclose(type);
    H5Aclose(attr);
  }
  H5Fclose(file);
  return out;
}

const json* channel_of(const json& leakage, const std::string& observer, const std::string& source,
                       const std::string& resource) {
  for (const auto& c : leakage["channels"])
    if (c["observer"] == observer && c["source"] == source && c["resource"] == resource && c["mode"] == "separateGpus")
      return &c;
  return nullptr;
}

const json* closed_of(const json& leakage, const std::string& observer, const std::string& source,
                      const std::string& resource) {
  for (const auto& c : leakage["closed"])
    if (c["observer"] == observer && c["source"] == source && c["resource"] == resource && c["mode"] == "separateGpus")
      return &c;
  return nullptr;
}

double max_capacity(const json& leakage) {
  double most = 0;
  for (const auto& c : leakage["channels"])  // unquantified channels have no capacity (null)
    if (c["capacity_bps"].is_number()) most = std::max(most, c["capacity_bps"].get<double>());
  return most;
}

const json& finding_of(const json& report, const std::string& policy) {
  for (const auto& f : report["compliance"]["findings"])
    if (f["policy"] == policy) return f;
  static const json none;
  ADD_FAILURE() << "no finding " << policy;
  return none;
}

TEST(GpuVisibility, OnlyTheRemoteL2ChannelNeedsPeerAccess) {
  const auto& cat = channel::Catalogue::defaults();
  EXPECT_NE(cat.peer_access_closure(Resource::L2, Mode::SEPARATE_GPUS).find("gpuVisibility: allocated"),
            std::string::npos);
  // Contention channels are driven from the spy's own GPUs (A5: no special permissions; A6 cross-VM).
  for (Resource r : {Resource::NVLINK, Resource::PCIE, Resource::HOST_MEMORY, Resource::POWER})
    EXPECT_TRUE(cat.peer_access_closure(r, Mode::SEPARATE_GPUS).empty()) << channel::resource_name(r);
  // On one GPU the spy uses the GPU it was allocated: visibility does not apply.
  for (int m = 0; m < channel::MODE_COUNT; ++m) {
    if (static_cast<Mode>(m) == Mode::SEPARATE_GPUS) continue;
    EXPECT_TRUE(cat.peer_access_closure(Resource::L2, static_cast<Mode>(m)).empty()) << m;
  }
}

TEST(GpuVisibility, NodeVisibilityKeepsTheCrossGpuL2ChannelAtTheA4Rate) {
  TempDir dir;
  const json report = run_with(dir, "node");
  for (const auto& g : report["gpus"]) EXPECT_EQ(g["nvlink_domain"], 0) << "one NVSwitch: " << g.dump();
  const json& l = report["leakage"];
  EXPECT_EQ(l["options"]["gpu_visibility"], "node");
  const double a4 = channel::published("A4").capacity();
  EXPECT_DOUBLE_EQ(a4, 3.95e6 * 8);  // V6: 3.95 MB/s, no error reported
  for (const auto& [observer, source] : {std::pair{"health", "public"}, std::pair{"public", "health"}}) {
    const json* l2 = channel_of(l, observer, source, "l2");
    ASSERT_NE(l2, nullptr) << observer << " <- " << source;
    EXPECT_DOUBLE_EQ((*l2)["capacity_bps"].get<double>(), a4);
    EXPECT_GT((*l2)["exposure_s"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ((*l2)["bound_bits"].get<double>(), a4 * (*l2)["exposure_s"].get<double>());
    EXPECT_EQ(closed_of(l, observer, source, "l2"), nullptr);
  }
}

// The same two tenants on a node of L40S cards (no NVLink): whatever the visibility, neither NVLink contention
// nor the remote L2 channel over NVLink peer access exists between their GPUs; PCIe contention stays.
TEST(GpuVisibility, WithoutNvlinkTheNvlinkAndRemoteL2ChannelsAreClosedEndToEnd) {
  TempDir dir;
  const auto r =
      run_process(run_argv(GTW_BINARY, FIXTURE, dir.file("l40s"), "json",
                           {"spec.cluster.nodePools[0].gpu=L40S-48GB", "spec.cluster.nodePools[0].topology=flat"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(dir.file("l40s") + "/report.json"));
  for (const auto& g : report["gpus"]) EXPECT_TRUE(g["nvlink_domain"].is_null()) << g.dump();
  const json& l = report["leakage"];
  for (const auto& [observer, source] : {std::pair{"health", "public"}, std::pair{"public", "health"}}) {
    EXPECT_EQ(channel_of(l, observer, source, "nvlink"), nullptr) << observer << " <- " << source;
    EXPECT_EQ(channel_of(l, observer, source, "l2"), nullptr);
    EXPECT_NE(channel_of(l, observer, source, "pcie"), nullptr);
    for (const char* resource : {"nvlink", "l2"}) {
      const json* closed = closed_of(l, observer, source, resource);
      ASSERT_NE(closed, nullptr) << resource;
      EXPECT_NE((*closed)["reason"].get<std::string>().find("no NVLink between these GPUs"), std::string::npos);
    }
  }
}

TEST(GpuVisibility, AllocatedVisibilityClosesTheL2ChannelAndKeepsNvlinkContention) {
  TempDir dir;
  const json node = run_with(dir, "node")["leakage"];
  const json allocated = run_with(dir, "allocated", "json,md,h5")["leakage"];
  EXPECT_EQ(allocated["options"]["gpu_visibility"], "allocated");
  EXPECT_EQ(leakage_attribute(dir.file("allocated") + "/results.h5", "gpu_visibility"), "allocated");
  const double a6 =
      channel::Catalogue::defaults().rate(Resource::NVLINK, Mode::SEPARATE_GPUS, "H100-80GB-SXM", 0).capacity_bps;
  EXPECT_DOUBLE_EQ(a6, channel::published("A6").capacity());
  for (const auto& [observer, source] : {std::pair{"health", "public"}, std::pair{"public", "health"}}) {
    const json* open_l2 = channel_of(node, observer, source, "l2");
    ASSERT_NE(open_l2, nullptr);
    EXPECT_EQ(channel_of(allocated, observer, source, "l2"), nullptr) << observer << " <- " << source;
    // The whole co-activity the L2 channel had is now closed, with the setting named as the reason.
    const json* closed = closed_of(allocated, observer, source, "l2");
    ASSERT_NE(closed, nullptr);
    EXPECT_DOUBLE_EQ((*closed)["co_active_s"].get<double>(), (*open_l2)["exposure_s"].get<double>());
    EXPECT_NE((*closed)["reason"].get<std::string>().find("gpuVisibility: allocated"), std::string::npos);
    // NVLink contention needs no access to the victim's GPU: open at its catalogue rate, same exposure.
    const json* nvlink = channel_of(allocated, observer, source, "nvlink");
    ASSERT_NE(nvlink, nullptr);
    EXPECT_DOUBLE_EQ((*nvlink)["capacity_bps"].get<double>(), a6);
    const json* nvlink_before = channel_of(node, observer, source, "nvlink");
    ASSERT_NE(nvlink_before, nullptr);
    EXPECT_DOUBLE_EQ((*nvlink)["exposure_s"].get<double>(), (*nvlink_before)["exposure_s"].get<double>());
    EXPECT_EQ(closed_of(allocated, observer, source, "nvlink"), nullptr);
  }
  // The surface loses exactly the L2 bounds.
  const double l2_bits = (*channel_of(node, "health", "public", "l2"))["bound_bits"].get<double>() +
                         (*channel_of(node, "public", "health", "l2"))["bound_bits"].get<double>();
  EXPECT_NEAR(allocated["totals"]["bits"].get<double>(), node["totals"]["bits"].get<double>() - l2_bits,
              1e-9 * node["totals"]["bits"].get<double>());
  // report.md lists it among what the design closed.
  const std::string md = read_text(dir.file("allocated") + "/report.md");
  EXPECT_NE(md.find("gpuVisibility: allocated (spec.policies.isolation)"), std::string::npos);
}

TEST(GpuVisibility, LeakageBudgetBetweenTheTwoFailsWithNodeAndPassesWithAllocated) {
  TempDir dir;
  const json node = run_with(dir, "node");
  const json allocated = run_with(dir, "allocated");
  // The fixture's budget (1 Mbit/s) lies between the largest channel of each design.
  const double budget = 1e6;
  EXPECT_GT(max_capacity(node["leakage"]), budget);
  EXPECT_LT(max_capacity(allocated["leakage"]), budget);
  const json& fail = finding_of(node, "covert-budget");
  EXPECT_EQ(fail["status"], "fail");
  EXPECT_EQ(fail["violations"].get<int>(), 2);  // l2 in both directions
  for (const auto& e : fail["evidence"]) EXPECT_EQ(e["resource"], "l2/separateGpus");
  const json& pass = finding_of(allocated, "covert-budget");
  EXPECT_EQ(pass["status"], "pass");
  EXPECT_GT(pass["checked"].get<int>(), 0);  // NVLink and PCIe channels were checked and are within budget
}

// MIG and confidential endpoints keep their own reason under `allocated` (the analysis, in process).
TEST(GpuVisibility, MigEndpointKeepsItsReasonUnderAllocatedVisibility) {
  ScenarioSpec spec;
  spec.source_file = "scenario.yaml";
  spec.duration = Seconds(10);
  for (const char* name : {"a", "b"}) {
    spec.tenants.push_back({});
    spec.tenants.back().name = name;
  }
  RunResult run;
  run.end_time = 10;
  for (int local : {0, 1}) {
    GpuLayout g;
    g.index = local;
    g.local = local;
    g.pool = "p";
    g.product = "H100-80GB-SXM";
    g.sharing = local == 0 ? SharingMode::EXCLUSIVE : SharingMode::MIG;
    run.gpus.push_back(g);
    Event e;
    e.time = 10;
    e.type = EventType::GPU_BUSY;
    e.tenant = local;
    e.gpu = local;
    e.aux = 0;
    run.log.append(e);
  }
  IsolationOptions allocated;
  allocated.gpu_visibility = GpuVisibility::ALLOCATED;
  const auto r = analyse_leakage(spec, run, channel::Catalogue::defaults(), allocated);
  int l2_closed = 0;
  for (const auto& c : r.closed)
    if (c.resource == Resource::L2 && c.mode == Mode::SEPARATE_GPUS) {
      ++l2_closed;
      EXPECT_NE(c.reason.find("MIG"), std::string::npos) << c.reason;
      EXPECT_DOUBLE_EQ(c.co_active_s, 10.0);
    }
  EXPECT_EQ(l2_closed, 2);  // both directions, once each
  for (const auto& c : r.channels) EXPECT_NE(c.resource, Resource::L2);
}

}  // namespace
}  // namespace gtw::test
