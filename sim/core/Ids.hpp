#pragma once
// Strong ids: a tenant, a workload and a GPU are indices into different tables (spec.tenants,
// spec.workloads, RunResult::gpus), and a function taking several of them as plain ints accepts them in
// any order. Id<Tag> is an int that converts only explicitly, so a swapped argument does not compile.
// The event log keeps plain int32 fields (its storage and HDF5 layout); APIs over it take these.
#include <compare>
#include <cstddef>
#include <cstdint>

namespace gtw {

template <class Tag>
class Id {
 public:
  constexpr Id() = default;
  constexpr explicit Id(int value) : value_(value) {}
  /// The index, -1 when none.
  constexpr int value() const { return value_; }
  constexpr bool valid() const { return value_ >= 0; }
  /// The index into its table (valid ids only).
  constexpr size_t index() const { return static_cast<size_t>(value_); }
  friend constexpr auto operator<=>(Id, Id) = default;

 private:
  int value_ = -1;
};

using TenantId = Id<struct TenantIdTag>;      // index into spec.tenants
using WorkloadId = Id<struct WorkloadIdTag>;  // index into spec.workloads
using GpuId = Id<struct GpuIdTag>;            // index into RunResult::gpus (a GPU or a MIG instance)

}  // namespace gtw
