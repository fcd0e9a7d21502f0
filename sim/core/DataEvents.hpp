#pragma once
// Movements and accesses of tagged data (docs/models/storage.md, "Data events"). Each is one
// DATA_MOVE (or DATA_DENIED) event in the log whose aux is the index of its record here; the record
// says who moved what, from where to where, encrypted or not, under which identity, and which shared
// network links it crossed, for the leakage and compliance analyses.
#include <string>
#include <vector>

namespace gtw {

struct DataMovement {
  double start = 0;  // s
  double end = 0;    // s (== start for a refused access)
  int data = -1;     // index into spec.data; -1: untagged (e.g. request bytes without a requests item)
  int owner = -1;    // tenant owning the data
  int tenant = -1;   // tenant whose workload moved it
  int workload = -1;
  int invocation = -1;  // an agent's data hop: its spec.identity.invocations index (workload is -1)
  int replica = -1;
  int gpu = -1;           // device it went to or came from (-1: none)
  std::string identity;   // principal the access ran as
  std::string operation;  // read | write | transfer | request | response
  std::string from;       // endpoint: store:<name>/<server>, nvme:<node>, host:<node>, gpu:<index>, frontend
  std::string to;         // same forms
  std::string store;      // storage touched (name, localNvme, or empty for pure network transfers)
  std::string region;     // region of the storage touched (empty: none / unknown)
  double bytes = 0;       // payload bytes (encryption overhead not counted)
  bool encrypted_in_transit = false;
  bool encrypted_at_rest = false;
  bool gpu_direct = false;         // GPUDirect Storage / RDMA path (no bounce through host memory)
  bool allowed = true;             // false: refused (DATA_DENIED)
  std::string reason;              // why it was refused
  std::string segment;             // network segment: the tenant's name when isolated, "shared" otherwise
  std::vector<std::string> links;  // SimGrid links crossed, sorted (shared network resources on the path)
};

}  // namespace gtw
