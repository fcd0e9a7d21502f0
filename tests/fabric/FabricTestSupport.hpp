#pragma once
// Helpers of the topology tests: a file of the source tree as text, a path as its link names, switch counts.
#include <fstream>
#include <sstream>
#include <string>

#include "Topology.hpp"
#include "TopologyGraph.hpp"  // pcie_switches walks the graph

namespace gtw::fabric_test {

inline std::string read(const std::string& relative) {
  std::ifstream in(std::string(GTW_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "gpu0-pciev pcie0-uplink^": each link of the path with the direction it is crossed in.
inline std::string link_names(const fabric::NodeGraph& n, const fabric::Path& p) {
  std::string out;
  for (const auto& h : p) out += (out.empty() ? "" : " ") + n.link(h.link).name + (h.up ? "^" : "v");
  return out;
}

/// The PCIe switches of a node graph.
inline int pcie_switches(const fabric::NodeGraph& n) {
  int switches = 0;
  for (auto [v, end] = boost::vertices(n.g()); v != end; ++v)
    switches += n.g()[*v].kind == fabric::VertexKind::PCIE_SWITCH;
  return switches;
}

}  // namespace gtw::fabric_test
