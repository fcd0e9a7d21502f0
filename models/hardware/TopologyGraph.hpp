#pragma once
// The graph type behind Topology.hpp's NodeGraph and FabricGraph, for the code that walks it
// (Topology.cpp, the platform builder): Boost.Graph's adjacency list of the topology's vertices and links.
#include <boost/graph/adjacency_list.hpp>

#include "Topology.hpp"

namespace gtw::fabric {

struct Graph : boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex, Link> {};

}  // namespace gtw::fabric
