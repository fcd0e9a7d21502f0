// Fuzz target: the nvidia-smi readers (models/hardware/NvidiaSmi.hpp): `topo -m`, `mig -lgi` and
// `mig -lci`, all three on every input (they are in-memory), then what `gputwin import-topo` and the
// engine setup do with a parsed listing (node graph, MIG layouts, compute-instance checks against the
// H100's MIG table). Diagnostics and gtw::InputError are clean outcomes; any other exception escapes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "FuzzSupport.hpp"
#include "HardwareProfile.hpp"
#include "NvidiaSmi.hpp"
#include "Topology.hpp"

namespace {

// The profile import-topo uses by default, loaded once (nullptr when the profiles are not found).
const gtw::HardwareProfile* default_profile() {
  static const gtw::HardwareProfile* profile = [] {
    static gtw::HardwareProfile p;
    gtw::Diagnostics d;
    return gtw::load_profile("H100-80GB-SXM", gtw::SourceLoc{"--gpu", 0, 0}, "--gpu", p, d) ? &p : nullptr;
  }();
  return profile;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fabric = gtw::fabric;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const gtw::HardwareProfile* profile = default_profile();
  try {
    gtw::Diagnostics diags;
    if (auto topo = fabric::parse_topo(text, "topo.txt", diags)) {
      const size_t n = topo->devices.size();
      GTW_FUZZ_CHECK(n > 0);
      GTW_FUZZ_CHECK(topo->matrix.size() == n);
      for (size_t a = 0; a < n; ++a) {
        GTW_FUZZ_CHECK(topo->matrix[a].size() == n);
        (void)topo->device_name(a);
        (void)topo->is_gpu(a);
        for (size_t b = 0; b < n; ++b) (void)topo->nvlinks(a, b);
      }
      if (profile) {
        fabric::NodeGraph node;
        fabric::node_graph_from_topo(*topo, *profile, gtw::NodeTopologySpec{}, node);
        (void)fabric::describe(node);
      }
    }
    auto gis = fabric::parse_mig_lgi(text, "mig-lgi.txt", diags);
    if (gis) {
      // An engaged result is never empty: Setup.cpp takes layouts.begin() of it.
      GTW_FUZZ_CHECK(!gis->empty());
      const auto layouts = fabric::mig_layouts_by_gpu(*gis);
      GTW_FUZZ_CHECK(!layouts.empty());
    }
    auto cis = fabric::parse_mig_lci(text, "mig-lci.txt", diags);
    if (cis) GTW_FUZZ_CHECK(!cis->empty());
    if (gis && cis) {
      const gtw::MigGeometry no_mig;
      (void)fabric::check_compute_instances(*gis, *cis, profile && profile->mig ? *profile->mig : no_mig);
      (void)fabric::check_compute_instances(*gis, *cis, no_mig);
    }
    (void)diags.format_all();
  } catch (const gtw::InputError&) {
    // a located input error: clean
  }
  return 0;
}
