#include "Leakage.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>

#include "AnalysisStages.hpp"
#include "DataExposure.hpp"
#include "PagedRecords.hpp"
#include "Text.hpp"

namespace gtw {

using channel::Mode;
using channel::Resource;
using channel::State;

Intervals normalise(Intervals v, double bridge) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second + bridge)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

Intervals intersect(const Intervals& a, const Intervals& b) {
  Intervals out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

double measure(const Intervals& v) {
  double s = 0;
  for (const auto& [a, b] : v) s += b - a;
  return s;
}

const char* discrete_kind_name(DiscreteKind k) {
  switch (k) {
    case DiscreteKind::UNSCRUBBED_MEMORY:
      return "unscrubbedMemory";
    case DiscreteKind::PLAINTEXT_PCIE:
      return "plaintextPcie";
    case DiscreteKind::PLAINTEXT_NETWORK:
      return "plaintextNetwork";
    case DiscreteKind::PLAINTEXT_STORAGE:
      return "plaintextStorage";
    case DiscreteKind::IDENTITY_PATH:
      return "identityPath";
  }
  return "?";
}

SourceLoc sharing_location(const ScenarioSpec& spec, const GpuLayout& gpu) {
  for (const auto& pool : spec.node_pools) {
    if (pool.name != gpu.pool) continue;
    for (const auto& o : pool.gpu_sharing)
      if (std::find(o.gpus.begin(), o.gpus.end(), gpu.local) != o.gpus.end())
        return o.sharing.loc.line > 0 ? o.sharing.loc : o.loc;
    if (pool.sharing.loc.line > 0) return pool.sharing.loc;
    return pool.loc;
  }
  return SourceLoc{spec.source_file, 1, 1};
}

channel::Catalogue channel_catalogue(const ScenarioSpec& spec, const std::vector<std::string>& profile_dirs,
                                     Diagnostics& diags) {
  channel::Catalogue catalogue = channel::Catalogue::defaults();
  std::set<std::string> products;
  for (const auto& pool : spec.node_pools) products.insert(pool.gpu_product);
  for (const auto& product : products) {
    for (const auto& dir : profile_dirs) {
      const auto file = std::filesystem::path(dir) / (product + ".yaml");
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec)) continue;
      channel::load_profile_channels(file.string(), product, catalogue, diags);
      break;
    }
  }
  return catalogue;
}

namespace {

// What closes the NVLink and remote-L2 channels between two GPUs of a node: a confidential endpoint before a MIG
// one before the pair having no NVLink between them (all three close the same channels; the reason differs).
enum class Blocker { NONE, NO_NVLINK, MIG, CONFIDENTIAL };

// Why a blocker closes resource r (NVLink contention, remote L2 prime+probe through NVLink peer access), or "".
std::string blocker_closure(const channel::Catalogue& catalogue, Resource r, Blocker b) {
  switch (b) {
    case Blocker::NONE:
      return "";
    case Blocker::NO_NVLINK:
      return r == Resource::NVLINK || r == Resource::L2
                 ? "no NVLink between these GPUs (the product has none, or they are not in one bridged pair): no "
                   "NVLink contention and no NVLink peer access; their copies take PCIe (the PCIe channel)"
                 : "";
    case Blocker::MIG:
      return catalogue.endpoint_closure(r, Mode::MIG);
    case Blocker::CONFIDENTIAL:
      return catalogue.endpoint_closure(r, Mode::CONFIDENTIAL);
  }
  return "";
}

// Appends `more` to `into`, joining `into` (normalise, no bridge) whenever it has doubled since it was last
// joined: only the joined union is measured, joining part of a list first gives the same union (the same
// doubles), and a long run's co-activity lists would otherwise hold every interval of every pair.
void append_joined(Intervals& into, const Intervals& more, size_t& join_at) {
  into.insert(into.end(), more.begin(), more.end());
  if (into.size() >= join_at) {
    into = normalise(std::move(into));
    join_at = std::max<size_t>(1024, 2 * into.size());
  }
}

// A meeting's co-activity written out (CoActivityRuns): its place in the store, sorted and disjoint.
struct Run {
  size_t first = 0, count = 0;
};

struct Meeting {
  Intervals intervals;  // co-activity still held, joined now and then (append_joined), not yet normalised
  size_t join_at = 1024;
  std::vector<Run> runs;                           // co-activity written out, in the order written
  std::set<std::pair<std::string, double>> rates;  // (product, time slice) of the shared devices
  std::set<int> source_gpus;
};

// key: observer, source, mode, blocker
using MeetingKey = std::tuple<int, int, Mode, Blocker>;
using Meetings = std::map<MeetingKey, Meeting>;

/// One co-activity interval as written out (a std::pair is not trivially copyable).
struct Span {
  double start, end;
};

// Where the meetings' co-activity goes once the intervals they hold together pass a budget: the longest lists are
// joined and written, each as one sorted run (pages of the analysis' spill file), until half the budget is held, and
// those lists start again empty. A relation's union is then measured by merging its runs in order
// (relation_measures), never held whole: a long run's meetings would otherwise hold every interval of every pair
// (99 MB at 1,024 GPUs x 48 h). The budget is the analysis tables' (GPUTWIN_ANALYSIS_RESIDENT_RECORDS=0 writes every
// list out as soon as it grows).
class CoActivityRuns {
 public:
  CoActivityRuns()
      : budget_(analysis_spill_budget({HELD_BUDGET, 256})), store_(1, {0, budget_.page}, "gputwin-meetings") {}

  /// After a meeting's list went from `before` to `after` intervals: past the budget, the longest lists are written
  /// out until the meetings hold at most half of it (so that runs are long and few; a budget of 0 writes out all).
  void track_growth(size_t before, size_t after, Meetings& meetings) {
    held_ = held_ + after - before;  // held_ counts `before` already: no wrap below zero
    // Without a spill file the runs would stay in memory unjoined: keep joining the lists instead.
    if (held_ <= budget_.resident || store_.spill_failed()) return;
    std::vector<Meeting*> longest;
    for (auto& [key, m] : meetings)
      if (!m.intervals.empty()) longest.push_back(&m);
    std::stable_sort(longest.begin(), longest.end(),
                     [](const Meeting* x, const Meeting* y) { return x->intervals.size() > y->intervals.size(); });
    for (Meeting* m : longest) {
      if (held_ <= budget_.resident / 2 && budget_.resident > 0) break;
      held_ -= m->intervals.size();
      write_out(*m);
    }
  }

  PagedRecords<Span>::Cursor cursor(const Run& run) const { return store_.from_position(0, run.first); }

 private:
  static constexpr size_t HELD_BUDGET = size_t{1} << 20;  // 16 MB of intervals

  void write_out(Meeting& m) {
    if (m.intervals.empty()) return;
    const Intervals joined = normalise(std::move(m.intervals));
    m.runs.push_back({store_.size(0), joined.size()});
    for (const auto& [a, b] : joined) store_.add(0, Span{a, b});
    Intervals().swap(m.intervals);
    m.join_at = 1024;
  }

  SpillBudget budget_;
  PagedRecords<Span> store_;  // one list: every run, one after the other
  size_t held_ = 0;
};

double time_slice_of(const ScenarioSpec& spec, const GpuLayout& g) {
  for (const auto& pool : spec.node_pools)
    if (pool.name == g.pool) return pool.sharing_for(g.local).time_slice.value;
  return 0;
}

std::string fmt_bytes(double b) {
  return format_bytes(Bytes(b));
}

// A MIG instance: its device's mode is mig, or it has a profile (an instance time-sliced by migReplicas).
bool mig_instance(const RunResult& run, size_t gpu, const std::vector<std::optional<Mode>>& gpu_mode) {
  return gpu_mode[gpu] == Mode::MIG || !run.gpus[gpu].mig_profile.empty();
}

std::vector<std::optional<Mode>> gpu_modes(const RunResult& run) {
  std::vector<std::optional<Mode>> out(run.gpus.size());
  for (size_t g = 0; g < run.gpus.size(); ++g) out[g] = channel::mode_of_sharing(run.gpus[g].sharing);
  return out;
}

// A device's tenants (ascending tenant index) and when each was active there.
using DeviceActivity = std::vector<std::pair<size_t, Intervals>>;

// On a time-sliced GPU a tenant with work waits while the others run their slices: its slices are joined across
// gaps no longer than one round of the others ((k - 1) quanta and k switches, k contexts), which is when it shares
// the GPU's state with them. Per device; 0 where nothing is joined.
std::vector<double> activity_bridges(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                                     const std::vector<std::optional<Mode>>& gpu_mode) {
  const size_t n_gpus = run.gpus.size();
  std::vector<int> contexts(n_gpus, 0);  // placements on the device
  for (const auto& s : index.stays())
    if (s.tenant >= 0) ++contexts[static_cast<size_t>(s.gpu)];
  std::vector<double> bridge(n_gpus, 0.0);
  for (size_t g = 0; g < n_gpus; ++g)
    if (gpu_mode[g] == Mode::TIME_SLICING || gpu_mode[g] == Mode::VGPU) {
      const double k = std::max(run.gpus[g].slots, contexts[g]);
      bridge[g] = (k - 1) * time_slice_of(spec, run.gpus[g]) + k * index.max_switch_cost(g) + 1e-9;
    }
  return bridge;
}

// Activity of one device, from the run index's busy intervals (one device at a time, so that a long run never holds
// every device's activity at once). Each tenant's intervals are joined as they come in whenever its list has
// doubled since it was last joined: a device has many of them, and joining is a closure (joining part of a list
// first gives the same result, the same doubles), so the lists stay near the size of what they join to.
DeviceActivity device_activity(const RunIndex& index, size_t gpu, size_t n_tenants, double bridge) {
  struct Busy {
    size_t tenant;
    Intervals intervals;
    size_t join_at;
  };
  constexpr size_t FIRST_JOIN = 1024;
  std::vector<Busy> busy;
  for (auto it = index.busy().begin(gpu); it.valid(); ++it) {
    const int tenant = it->tenant;
    if (tenant < 0 || static_cast<size_t>(tenant) >= n_tenants) continue;
    auto b =
        std::find_if(busy.begin(), busy.end(), [&](const Busy& x) { return x.tenant == static_cast<size_t>(tenant); });
    if (b == busy.end()) b = busy.insert(busy.end(), Busy{static_cast<size_t>(tenant), Intervals{}, FIRST_JOIN});
    b->intervals.emplace_back(double{it->start}, double{it->end});
    if (b->intervals.size() >= b->join_at) {
      b->intervals = normalise(std::move(b->intervals), bridge);
      b->join_at = std::max(FIRST_JOIN, 2 * b->intervals.size());
    }
  }
  std::sort(busy.begin(), busy.end(), [](const Busy& x, const Busy& y) { return x.tenant < y.tenant; });
  DeviceActivity out;
  for (auto& b : busy) {
    Intervals active = normalise(std::move(b.intervals), bridge);
    if (!active.empty()) out.emplace_back(b.tenant, std::move(active));
  }
  return out;
}

// Meetings: where and when two tenants were both active, by sharing relation. Tenants on different nodes share
// only the fabric and storage, which have neither a capacity nor a model yet: they are not enumerated per pair
// (see the notes), which also keeps large clusters cheap. Node by node: a node's devices' activity is built, met
// and freed before the next node's.
Meetings meetings(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                  const std::vector<std::optional<Mode>>& gpu_mode, CoActivityRuns& runs) {
  Meetings out;
  const std::vector<double> bridge = activity_bridges(spec, run, index, gpu_mode);
  auto meet = [&](const DeviceActivity& observers, const DeviceActivity& sources, size_t go, size_t gs, Mode mode,
                  Blocker blocker) {
    for (const auto& [o, observer_active] : observers) {
      for (const auto& [s, source_active] : sources) {
        if (s == o) continue;
        Intervals both = intersect(observer_active, source_active);
        if (both.empty()) continue;
        Meeting& m = out[{static_cast<int>(o), static_cast<int>(s), mode, blocker}];
        const size_t before = m.intervals.size();
        append_joined(m.intervals, both, m.join_at);
        runs.track_growth(before, m.intervals.size(), out);
        m.source_gpus.insert(static_cast<int>(gs));
        const double slice = go == gs ? time_slice_of(spec, run.gpus[gs]) : 0.0;
        m.rates.insert({run.gpus[gs].product, slice});
      }
    }
  };
  std::map<int, std::vector<size_t>> by_node;
  for (size_t g = 0; g < run.gpus.size(); ++g) by_node[run.gpus[g].node].push_back(g);
  for (const auto& [node, gpus] : by_node) {
    std::vector<DeviceActivity> act;  // of gpus[i]
    act.reserve(gpus.size());
    for (size_t g : gpus) act.push_back(device_activity(index, g, spec.tenants.size(), bridge[g]));
    for (size_t i = 0; i < gpus.size(); ++i)
      for (size_t j = 0; j < gpus.size(); ++j) {
        const size_t go = gpus[i], gs = gpus[j];
        const auto& a = run.gpus[go];
        const auto& b = run.gpus[gs];
        if (go == gs) {
          if (gpu_mode[go]) meet(act[i], act[j], go, gs, *gpu_mode[go], Blocker::NONE);
        } else if (a.local == b.local) {
          meet(act[i], act[j], go, gs, Mode::MIG, Blocker::NONE);  // two instances of one MIG GPU
        } else {
          Blocker blocker = Blocker::NONE;
          if (gpu_mode[go] == Mode::CONFIDENTIAL || gpu_mode[gs] == Mode::CONFIDENTIAL)
            blocker = Blocker::CONFIDENTIAL;
          else if (mig_instance(run, go, gpu_mode) || mig_instance(run, gs, gpu_mode))
            blocker = Blocker::MIG;
          else if (a.nvlink_domain < 0 || a.nvlink_domain != b.nvlink_domain)
            blocker = Blocker::NO_NVLINK;
          meet(act[i], act[j], go, gs, Mode::SEPARATE_GPUS, blocker);
        }
      }
  }
  return out;
}

// Per (observer, source, relation) the co-activity's measures, split by what closes NVLink/L2.
struct Merged {
  double all_s = 0, free_s = 0, blocked_s = 0;  // every meeting; no closing endpoint; a MIG or CC endpoint
  Blocker blocker = Blocker::NONE;
  std::set<std::pair<std::string, double>> rates, free_rates;
  std::set<int> gpus, free_gpus;
};

// measure(normalise(v)) of intervals that come sorted, one at a time: the same joins and the same sum in the same
// order, so the same double, without holding the union.
class SortedUnionMeasure {
 public:
  void add(double a, double b) {
    if (b <= a) return;
    if (open_ && a <= end_) {
      end_ = std::max(end_, b);
      return;
    }
    if (open_) sum_ += end_ - start_;
    start_ = a;
    end_ = b;
    open_ = true;
  }
  double total() const { return open_ ? sum_ + (end_ - start_) : sum_; }

 private:
  bool open_ = false;
  double start_ = 0, end_ = 0, sum_ = 0;
};

// One sorted source of a relation's co-activity: a run written out, or what a meeting still holds (normalised).
struct CoActivitySource {
  PagedRecords<Span>::Cursor run;
  size_t left = 0;                  // of the run
  const Intervals* held = nullptr;  // or the remainder
  size_t at = 0;
  bool blocked = false;  // from a meeting with a closing endpoint
  bool valid() const { return held != nullptr ? at < held->size() : left > 0 && run.valid(); }
  Span value() const { return held != nullptr ? Span{(*held)[at].first, (*held)[at].second} : *run; }
  void next() {
    if (held != nullptr) {
      ++at;
    } else if (--left > 0) {
      ++run;  // not past the run's end: that could read the next page for nothing
    }
  }
};

// Visits the intervals of sorted sources in (start, end) order, as a sort of their concatenation would (equal
// intervals in source order): `visit(start, end, source)`.
template <class Source, class Visit>
void merge_in_order(std::vector<Source>& sources, Visit visit) {
  using Next = std::tuple<double, double, size_t>;  // start, end, source
  std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
  const auto push = [&](size_t i) {
    if (sources[i].valid()) next.emplace(sources[i].value().start, sources[i].value().end, i);
  };
  for (size_t i = 0; i < sources.size(); ++i) push(i);
  while (!next.empty()) {
    const auto [a, b, i] = next.top();
    next.pop();
    visit(a, b, sources[i]);
    sources[i].next();
    push(i);
  }
}

// The measures of one relation's unions (all, free, blocked), merging its meetings' sorted sources in (start, end)
// order: each union sees its own intervals in the order a sort would give them.
// `group`: the relation's meetings, each with whether it has a closing endpoint.
void relation_measures(const std::vector<std::pair<const Meeting*, bool>>& group, const CoActivityRuns& runs,
                       Merged& out) {
  std::vector<Intervals> remainders(group.size());  // the meetings' held intervals, normalised
  std::vector<CoActivitySource> sources;
  for (size_t g = 0; g < group.size(); ++g) {
    const auto& [m, blocked] = group[g];
    for (const Run& r : m->runs) sources.push_back({runs.cursor(r), r.count, nullptr, 0, blocked});
    if (m->intervals.empty()) continue;
    remainders[g] = normalise(m->intervals);
    sources.push_back({{}, 0, &remainders[g], 0, blocked});  // `remainders` is not resized again
  }
  SortedUnionMeasure all, free, blocked;
  merge_in_order(sources, [&](double a, double b, const CoActivitySource& from) {
    all.add(a, b);
    (from.blocked ? blocked : free).add(a, b);
  });
  out.all_s = all.total();
  out.free_s = free.total();
  out.blocked_s = blocked.total();
}

}  // namespace

double merged_union_measure(const std::vector<Intervals>& sorted_lists) {
  std::vector<CoActivitySource> sources;
  for (const auto& list : sorted_lists) sources.push_back({{}, 0, &list, 0, false});
  SortedUnionMeasure all;
  merge_in_order(sources, [&](double a, double b, const CoActivitySource&) { all.add(a, b); });
  return all.total();
}

namespace {

// The meetings of one (observer, source, relation) are adjacent in key order (the blocker comes last): once the
// last is in, the relation's unions are measured.
std::map<std::tuple<int, int, Mode>, Merged> merge_meetings(const Meetings& meetings, const CoActivityRuns& runs) {
  std::map<std::tuple<int, int, Mode>, Merged> merged;
  std::vector<std::pair<const Meeting*, bool>> group;
  Merged* open = nullptr;
  for (const auto& [key, m] : meetings) {
    const auto& [o, s, mode, blocker] = key;
    Merged& out = merged[{o, s, mode}];
    if (open != nullptr && open != &out) {
      relation_measures(group, runs, *open);
      group.clear();
    }
    open = &out;
    group.emplace_back(&m, blocker != Blocker::NONE);
    out.rates.insert(m.rates.begin(), m.rates.end());
    out.gpus.insert(m.source_gpus.begin(), m.source_gpus.end());
    if (blocker == Blocker::NONE) {
      out.free_rates.insert(m.rates.begin(), m.rates.end());
      out.free_gpus.insert(m.source_gpus.begin(), m.source_gpus.end());
    } else {
      out.blocker = std::max(out.blocker, blocker);
    }
  }
  if (open != nullptr) relation_measures(group, runs, *open);
  return merged;
}

// One open channel: the catalogue's cell with the pair's exposure, bounded by the fastest device they met on.
LeakageChannel open_channel(const channel::Catalogue& catalogue, const channel::RateLimits& limits, int o, int s,
                            Resource r, Mode mode, double exposure, const Merged& m, bool split) {
  const auto& cell = catalogue.cell(r, mode);
  LeakageChannel c;
  c.observer = o;
  c.source = s;
  c.resource = r;
  c.mode = mode;
  c.exposure_s = exposure;
  c.reason = cell.reason;
  c.closed_by = cell.closed_by;
  c.atlas = cell.atlas;
  const auto& gpus = split ? m.free_gpus : m.gpus;
  c.gpus.assign(gpus.begin(), gpus.end());
  c.state = State::OPEN_UNQUANTIFIED;
  // The pair may meet on devices of different products or time slices: the fastest one bounds it.
  for (const auto& [product, slice] : split ? m.free_rates : m.rates) {
    const auto rate = catalogue.rate(r, mode, product, slice, limits);
    if (rate.state != State::OPEN) {
      if (c.capacity_source.empty()) c.capacity_source = rate.source;
      continue;
    }
    if (c.state != State::OPEN || rate.capacity_bps > c.capacity_bps) {
      c.state = State::OPEN;
      c.capacity_bps = rate.capacity_bps;
      c.bit_rate_bps = rate.bit_rate;
      c.error_rate = rate.error_rate;
      c.capacity_source = rate.source;
    }
  }
  c.bound_bits = c.capacity_bps * c.exposure_s;
  return c;
}

// One measurement counts once per pair and relation: under MPS the SM, L1, L2 and HBM cells all rest on A1's
// 4 Mbit/s, which is one receiver probing one sender, not four channels. In each group of open, quantified
// channels of a pair and relation with the same capacity source, the largest bound counts (ties: the first
// resource); the others point at it.
void count_each_measurement_once(std::vector<LeakageChannel>& channels) {
  std::map<std::tuple<int, int, Mode, std::string>, size_t> carrier;
  for (size_t i = 0; i < channels.size(); ++i) {
    auto& c = channels[i];
    c.counted = true;
    c.counted_in = c.resource;
    if (c.state != State::OPEN) continue;
    const auto [it, first] = carrier.emplace(std::make_tuple(c.observer, c.source, c.mode, c.capacity_source), i);
    if (first) continue;
    auto& held = channels[it->second];
    if (c.bound_bits > held.bound_bits) {
      held.counted = false;
      it->second = i;
    } else {
      c.counted = false;
    }
  }
  for (auto& c : channels)
    if (!c.counted) c.counted_in = channels[carrier.at({c.observer, c.source, c.mode, c.capacity_source})].resource;
}

// The channels (open, and closed by the design) of every co-active pair, sorted by (observer, source, resource,
// mode).
void channels(const std::map<std::tuple<int, int, Mode>, Merged>& merged, const channel::Catalogue& catalogue,
              const IsolationOptions& options, LeakageReport& rep) {
  channel::RateLimits limits;
  limits.timer_resolution_s = options.timer_resolution_s;
  for (const auto& [key, m] : merged) {
    const auto& [o, s, mode] = key;
    const double all = m.all_s, free = m.free_s, blocked = m.blocked_s;
    for (int ri = 0; ri < channel::RESOURCE_COUNT; ++ri) {
      const auto r = static_cast<Resource>(ri);
      if (r == Resource::REMANENCE) continue;  // a hand-over of memory, counted in bytes below
      const auto& cell = catalogue.cell(r, mode);
      if (cell.state == State::CLOSED) {
        rep.closed.push_back({o, s, r, mode, all, cell.reason});
        continue;
      }
      const std::string endpoint = blocker_closure(catalogue, r, m.blocker);
      const bool split = !endpoint.empty();
      if (split && blocked > 0) rep.closed.push_back({o, s, r, mode, blocked, endpoint});
      const double exposure = split ? free : all;
      if (exposure <= 0) continue;
      // The rest needs the observer to open the source's GPU, which it cannot see under device isolation.
      if (options.gpu_visibility == GpuVisibility::ALLOCATED) {
        if (auto why = catalogue.peer_access_closure(r, mode); !why.empty()) {
          rep.closed.push_back({o, s, r, mode, exposure, std::move(why)});
          continue;
        }
      }
      rep.channels.push_back(open_channel(catalogue, limits, o, s, r, mode, exposure, m, split));
    }
  }
  // Sorted by (observer, source, resource, mode); the map above is by (observer, source, mode).
  const auto by_key = [](const auto& a, const auto& b) {
    return std::tie(a.observer, a.source, a.resource, a.mode) < std::tie(b.observer, b.source, b.resource, b.mode);
  };
  std::sort(rep.channels.begin(), rep.channels.end(), by_key);
  std::sort(rep.closed.begin(), rep.closed.end(), by_key);
  count_each_measurement_once(rep.channels);
}

using Handed = std::map<std::tuple<int, int, int, int>, DiscreteExposure>;  // (observer, source, workload, gpu)

// Observed: freed bytes of another tenant the allocator handed to an allocation (MEM_RESIDUE, MEM_SCRUBBED_REUSE).
void observed_hand_overs(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                         const channel::Catalogue& catalogue, const std::vector<std::optional<Mode>>& gpu_mode,
                         Handed& handed) {
  for (const auto& e : run.log.events()) {
    if ((e.type != EventType::MEM_RESIDUE && e.type != EventType::MEM_SCRUBBED_REUSE) || e.tenant < 0 || e.gpu < 0)
      continue;
    const int src_w = payload::source_workload(e);
    if (src_w < 0 || static_cast<size_t>(src_w) >= spec.workloads.size()) continue;
    // The source tenant: the owner of the freed memory (a covert-channel sender runs as its own tenant).
    const int source = index
                           .tenant_on(WorkloadId(src_w), GpuId(e.gpu),
                                      TenantId(spec.workloads[static_cast<size_t>(src_w)].tenant_index))
                           .value();
    if (source < 0 || source == e.tenant) continue;
    const auto mode = gpu_mode[static_cast<size_t>(e.gpu)].value_or(Mode::EXCLUSIVE);
    const auto& cell = catalogue.cell(Resource::REMANENCE, mode);
    DiscreteExposure& d = handed[{e.tenant, source, src_w, e.gpu}];
    d.observer = e.tenant;
    d.source = source;
    d.kind = DiscreteKind::UNSCRUBBED_MEMORY;
    d.workload = src_w;
    d.gpu = e.gpu;
    d.bytes += e.value;
    d.closed_by = cell.closed_by;
    d.basis =
        "allocator: freed bytes of the source handed to the observer's allocation on the same device "
        "(MEM_RESIDUE / MEM_SCRUBBED_REUSE events)";
    if (e.type == EventType::MEM_SCRUBBED_REUSE) {
      d.closed = true;
      d.closed_reason = mode == Mode::CONFIDENTIAL ? "confidential GPU: memory scrubbed when the CVM ends"
                                                   : "scrub on free: the bytes were overwritten before reuse";
    }
  }
}

// Derived from placement order: a stay's memory released (failure, eviction, job end) before another tenant was
// placed on the same memory (a device, or, after a MIG re-partitioning, a new instance of the GPU whose old
// instance was torn down before it came up; memory slices are not tracked: the whole GPU is assumed).
void derived_hand_overs(const RunResult& run, const std::vector<const Stay*>& stays,
                        const channel::Catalogue& catalogue, const IsolationOptions& options,
                        const std::vector<std::optional<Mode>>& gpu_mode, bool observed_allocator, Handed& handed) {
  const auto same_memory = [&](int from_gpu, int to_gpu) {
    if (from_gpu == to_gpu) return true;
    const auto& a = run.gpus[static_cast<size_t>(from_gpu)];
    const auto& b = run.gpus[static_cast<size_t>(to_gpu)];
    // Two MIG instances (time-sliced or not) of one GPU, the second laid out after the first was torn down.
    return mig_instance(run, static_cast<size_t>(from_gpu), gpu_mode) &&
           mig_instance(run, static_cast<size_t>(to_gpu), gpu_mode) && a.node == b.node && a.local == b.local &&
           a.available_until >= 0 && b.available_from >= a.available_until;
  };
  // Only stays on one physical GPU (a device, or the MIG instances of one GPU) can hand memory over: each stay
  // looks at its GPU's stays, in the same order as in the whole list (the same sums), not at every stay of the
  // cluster (quadratic in the cluster: 15 % of a 10,000-GPU minute).
  std::map<std::pair<int, int>, std::vector<size_t>> on_gpu;  // (node, local GPU) -> stays, ascending
  for (size_t j = 0; j < stays.size(); ++j) {
    const auto& g = run.gpus[static_cast<size_t>(stays[j]->gpu)];
    on_gpu[{g.node, g.local}].push_back(j);
  }
  for (size_t i = 0; i < stays.size(); ++i) {
    const Stay& to = *stays[i];
    double room = to.memory;
    const auto& to_gpu = run.gpus[static_cast<size_t>(to.gpu)];
    for (const size_t j : on_gpu.at({to_gpu.node, to_gpu.local})) {
      if (room <= 0) break;
      const Stay& from = *stays[j];
      if (j == i || !from.held_memory() || from.tenant == to.tenant || from.end > to.start ||
          !same_memory(from.gpu, to.gpu))
        continue;
      if (observed_allocator && from.gpu == to.gpu) continue;  // observed
      const double bytes = std::min(from.memory, room);
      room -= bytes;
      const auto mode = gpu_mode[static_cast<size_t>(to.gpu)].value_or(Mode::EXCLUSIVE);
      const auto& cell = catalogue.cell(Resource::REMANENCE, mode);
      DiscreteExposure& d = handed[{to.tenant, from.tenant, from.workload, to.gpu}];
      d.observer = to.tenant;
      d.source = from.tenant;
      d.kind = DiscreteKind::UNSCRUBBED_MEMORY;
      d.workload = from.workload;
      d.gpu = to.gpu;
      d.bytes += bytes;
      d.closed_by = cell.closed_by;
      d.basis =
          "placement order: the source's memory was released (failure, eviction, job end) before the observer was "
          "placed on the same memory (device, or the GPU after a MIG re-partitioning); min(released, reserved) bytes";
      if (cell.state == State::CLOSED) {
        d.closed = true;
        d.closed_reason = cell.reason;
      } else if (options.scrub_on_free) {
        d.closed = true;
        d.closed_reason = "scrub on free";
      }
    }
  }
}

// The bytes one stay copied from host memory to its device, and how they were derived (0: none).
std::pair<double, std::string> host_device_bytes(const WorkloadSpec& ws, const Stay& s, const RunIndex& index) {
  if (ws.kind == WorkloadKind::INFERENCE) {
    // The weights at bring-up (no event), then every model a swapping replica loaded (MODEL_LOAD).
    const double bytes = index.bytes_loaded(s, ws.model.weights().value);
    if (ws.swap_models < 2) return {bytes, "model weights loaded per placed GPU (parameters x dtype bytes)"};
    return {bytes,
            "model weights loaded per placed GPU (parameters x dtype bytes), then at every model swap (MODEL_LOAD "
            "events)"};
  }
  if (ws.kind == WorkloadKind::TRAINING)
    return {ws.data_per_step.value * static_cast<double>(index.steps(s.workload)),
            "input data per step x steps completed, per GPU"};
  return {0, {}};
}

}  // namespace

std::vector<const Stay*> memory_stays(const RunIndex& index) {
  std::vector<const Stay*> out;
  for (const auto& s : index.stays())
    if (s.tenant >= 0) out.push_back(&s);
  std::sort(out.begin(), out.end(), [](const Stay* a, const Stay* b) {
    return std::tie(a->gpu, a->start, a->workload, a->replica) < std::tie(b->gpu, b->start, b->workload, b->replica);
  });
  return out;
}

std::vector<DiscreteExposure> unscrubbed_memory(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                                                const channel::Catalogue& catalogue, const IsolationOptions& options) {
  const auto gpu_mode = gpu_modes(run);
  Handed handed;
  // Runs of the engine log the allocator (MEM_ALLOC, MEM_RESIDUE, MEM_SCRUBBED_REUSE): what one device's
  // memory handed over is then observed, not derived. Placement order still covers the hand-over across
  // a MIG re-partitioning (different devices, the same physical memory), which the allocator does not see.
  bool observed_allocator = false;
  for (const auto& e : run.log.events()) observed_allocator = observed_allocator || e.type == EventType::MEM_ALLOC;
  observed_hand_overs(spec, run, index, catalogue, gpu_mode, handed);
  derived_hand_overs(run, memory_stays(index), catalogue, options, gpu_mode, observed_allocator, handed);
  std::vector<DiscreteExposure> out;
  for (auto& [key, d] : handed) out.push_back(std::move(d));
  return out;
}

std::vector<DiscreteExposure> plaintext_pcie(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index) {
  // No transfer events exist for host-device copies: the bytes are derived from the workload specs and the log.
  // Inference loads its weights onto every GPU it is placed on, and again at every model swap (MODEL_LOAD);
  // training copies data_per_step to each GPU every step. Everyone placed on the same node shares its PCIe
  // complex.
  const auto stays = memory_stays(index);
  const auto gpu_mode = gpu_modes(run);
  std::map<int, std::set<int>> node_tenants;
  for (const Stay* s : stays)
    if (s->held_memory()) node_tenants[run.gpus[static_cast<size_t>(s->gpu)].node].insert(s->tenant);
  std::map<std::tuple<int, int, int, int>, DiscreteExposure> plain;  // (observer, source, workload, node)
  for (const Stay* s : stays) {
    const auto& ws = spec.workloads[static_cast<size_t>(s->workload)];
    const auto [bytes, basis] = host_device_bytes(ws, *s, index);
    if (bytes <= 0 || !s->held_memory()) continue;
    const auto& g = run.gpus[static_cast<size_t>(s->gpu)];
    const bool cc = gpu_mode[static_cast<size_t>(s->gpu)] == Mode::CONFIDENTIAL;
    for (int o : node_tenants[g.node]) {
      if (o == s->tenant) continue;
      DiscreteExposure& d = plain[{o, s->tenant, s->workload, g.node}];
      if (d.observer < 0) d.gpu = s->gpu;
      d.observer = o;
      d.source = s->tenant;
      d.kind = DiscreteKind::PLAINTEXT_PCIE;
      d.workload = s->workload;
      d.bytes += bytes;
      d.basis = basis + "; observer placed on the same node";
      d.closed_by = {"confidential computing (encrypted bounce buffers)", "encryption in transit"};
      if (cc) {
        d.closed = true;
        d.closed_reason = "confidential computing: host-device copies go through encrypted bounce buffers";
      }
    }
  }
  std::vector<DiscreteExposure> out;
  for (auto& [key, d] : plain) out.push_back(std::move(d));
  return out;
}

namespace {

// Plaintext data on shared links and at rest on shared stores (from the data events of models/storage,
// sim/analysis/DataExposure).
void plaintext_data(const ScenarioSpec& spec, const RunResult& run, LeakageReport& rep) {
  for (const auto& x : data_leaks(spec, run)) {
    DiscreteExposure d;
    d.observer = x.observer;
    d.source = x.source;
    d.kind = x.storage ? DiscreteKind::PLAINTEXT_STORAGE : DiscreteKind::PLAINTEXT_NETWORK;
    d.workload = x.workload;
    d.data = x.data;
    if (x.data >= 0) d.data_name = spec.data[static_cast<size_t>(x.data)].name;
    d.paths = x.paths;
    d.bytes = x.bytes;
    d.closed = x.closed;
    d.closed_reason = x.closed_reason;
    if (x.storage) {
      d.closed_by = {"encryption at rest", "storage ACLs"};
      d.basis =
          "data events: bytes written to the store plus one copy of what was read from it; any tenant the "
          "store's ACL admits may read them";
    } else {
      d.closed_by = {"encryption in transit", "network segmentation"};
      d.basis = "data events: plaintext bytes on links the observer's own flows also cross, in its segment";
    }
    rep.discrete.push_back(std::move(d));
  }
}

void totals(const ScenarioSpec& spec, LeakageReport& rep) {
  rep.tenants.resize(spec.tenants.size());
  for (size_t t = 0; t < spec.tenants.size(); ++t) rep.tenants[t].name = spec.tenants[t].name;
  for (const auto& c : rep.channels) {
    ++rep.open_channels;
    if (c.state != State::OPEN) ++rep.unquantified_channels;
    ++rep.tenants[static_cast<size_t>(c.source)].open_channels_as_source;
    if (!c.counted) continue;  // its measurement counts in another resource's channel
    rep.total_bits += c.bound_bits;
    rep.tenants[static_cast<size_t>(c.observer)].bits_as_observer += c.bound_bits;
    rep.tenants[static_cast<size_t>(c.source)].bits_as_source += c.bound_bits;
  }
  for (const auto& d : rep.discrete) {
    if (d.closed) continue;
    rep.total_bytes += d.bytes;
    rep.tenants[static_cast<size_t>(d.observer)].bytes_as_observer += d.bytes;
    rep.tenants[static_cast<size_t>(d.source)].bytes_as_source += d.bytes;
  }
}

std::vector<std::string> tenant_names(const ScenarioSpec& spec, const std::set<int>& ids) {
  std::vector<std::string> out;
  for (int t : ids) out.push_back(spec.tenants[static_cast<size_t>(t)].name);
  return out;
}

// The model's weights in another tenant's memory or on a shared PCIe complex (unscrubbedMemory, plaintextPcie).
ModelExposure device_weight_exposure(const ScenarioSpec& spec, const LeakageReport& rep, int w, DiscreteKind kind) {
  ModelExposure x;
  x.part = "weights";
  x.channel = discrete_kind_name(kind);
  std::set<int> open, closed;
  std::string closed_reason;
  for (const auto& d : rep.discrete) {
    if (d.kind != kind || d.workload != w) continue;
    x.closed_by = d.closed_by;
    if (d.closed) {
      closed.insert(d.observer);
      closed_reason = d.closed_reason;
    } else {
      open.insert(d.observer);
      x.bytes += d.bytes;
    }
  }
  x.tenants = tenant_names(spec, open);
  if (!open.empty()) {
    x.status = "open";
    x.detail = fmt_bytes(x.bytes) + " of the owner's data readable";
  } else if (!closed.empty()) {
    x.status = "closed";
    x.detail = closed_reason;
  } else {
    x.status = "closed";
    x.detail = kind == DiscreteKind::UNSCRUBBED_MEMORY ? "no memory of this model was handed to another tenant"
                                                       : "no other tenant shares a node with this model";
    x.closed_by =
        kind == DiscreteKind::UNSCRUBBED_MEMORY
            ? std::vector<std::string>{"scrub on free", "confidential computing"}
            : std::vector<std::string>{"confidential computing (encrypted bounce buffers)", "dedicated nodes"};
  }
  return x;
}

// Weights on shared storage and the network: the model's weights item (inference) or its checkpoints
// (training), read from or written to a store other tenants may read, in plaintext.
ModelExposure stored_weight_exposure(const ScenarioSpec& spec, const LeakageReport& rep, const std::set<int>& items,
                                     DiscreteKind kind) {
  const bool storage = kind == DiscreteKind::PLAINTEXT_STORAGE;
  ModelExposure x;
  x.part = "weights";
  x.channel = discrete_kind_name(kind);
  x.closed_by = storage
                    ? std::vector<std::string>{"encryption at rest", "storage ACLs", "weight encryption"}
                    : std::vector<std::string>{"encryption in transit", "network segmentation", "weight encryption"};
  std::set<int> open, closed;
  std::string closed_reason;
  for (const auto& d : rep.discrete) {
    if (d.kind != kind || !items.count(d.data)) continue;
    if (d.closed) {
      closed.insert(d.observer);
      closed_reason = d.closed_reason;
    } else {
      open.insert(d.observer);
      x.bytes += d.bytes;
    }
  }
  x.tenants = tenant_names(spec, open);
  if (!open.empty()) {
    x.status = "open";
    x.detail = fmt_bytes(x.bytes) + (storage ? " of its weights unencrypted at rest on a store they may read"
                                             : " of its weights in plaintext on links they share");
  } else {
    x.status = "closed";
    x.detail = !closed.empty() ? closed_reason
               : items.empty() ? "its weights are not read from or written to a data item (io.weights, "
                                 "io.checkpoint)"
               : storage       ? "its weights are on no store another tenant may read"
                               : "its weights cross no link another tenant uses";
  }
  return x;
}

// Architecture: timing channels from this model's GPUs (layer structure from contention, A3, A9, A10).
// `from_source`: the indices of rep.channels whose source is the model's tenant, in order (one scan of the
// channels for every model would be quadratic in the cluster).
ModelExposure architecture_exposure(const ScenarioSpec& spec, const LeakageReport& rep, const std::set<int>& gpus,
                                    const std::vector<size_t>& from_source) {
  ModelExposure x;
  x.part = "architecture";
  x.channel = "contentionTiming";
  std::set<int> who;
  std::set<std::string> closers;
  for (const size_t k : from_source) {
    const auto& c = rep.channels[k];
    if (c.resource == Resource::NIC || c.resource == Resource::STORAGE) continue;
    const bool here = std::any_of(c.gpus.begin(), c.gpus.end(), [&](int g) { return gpus.count(g); });
    if (!here) continue;
    who.insert(c.observer);
    if (c.counted) x.bits += c.bound_bits;
    closers.insert(c.closed_by.begin(), c.closed_by.end());
  }
  x.tenants = tenant_names(spec, who);
  x.closed_by.assign(closers.begin(), closers.end());
  x.status = who.empty() ? "closed" : "open";
  x.detail = who.empty() ? "no open timing channel from this model's GPUs to another tenant"
                         : "timing channels from its GPUs (bound in bits, summed over channels)";
  if (who.empty()) x.closed_by = {"MIG", "dedicated GPUs (exclusive)", "confidential computing"};
  return x;
}

// Behaviour: whoever may query the service learns its outputs (model extraction through the API).
ModelExposure behaviour_exposure(const IsolationOptions& options, size_t served) {
  ModelExposure x;
  x.part = "behaviour";
  x.channel = "queryAccess";
  x.closed_by = {"rate limits", "query budgets", "authenticated access"};
  char buf[320];
  x.status = "open";
  if (options.query_budget > 0) {
    std::snprintf(buf, sizeof buf,
                  "%zu queries answered; other tenants' clients at most %d queries each over the run%s", served,
                  options.query_budget, options.query_rate_limit > 0 ? " and a per-client rate limit" : "");
  } else if (options.query_rate_limit > 0) {
    std::snprintf(buf, sizeof buf,
                  "%zu queries answered; other tenants' clients at most %.3g queries/s each (token bucket at "
                  "the front end)",
                  served, options.query_rate_limit);
  } else {
    std::snprintf(buf, sizeof buf, "%zu queries answered, no rate limit; who may query is not modelled", served);
  }
  x.detail = buf;
  const auto& api = options.api;
  // What the API returns makes stealing the model dearer (or, a watermark, detectable); it closes nothing.
  x.detail += std::string("; API returns ") +
              (api.logprobs == ApiLogprobs::FULL  ? "full logprobs"
               : api.logprobs == ApiLogprobs::TOP ? "top-" + std::to_string(api.top_logprobs) + " logprobs"
                                                  : "no logprobs") +
              (api.logit_bias ? " and takes a logit bias" : ", no logit bias");
  if (api.noise_nats > 0) x.detail += format_printf(", noise %.3g nats", api.noise_nats);
  if (api.watermark_fraction > 0) x.detail += format_printf(", %.3g of answers watermarked", api.watermark_fraction);
  return x;
}

// Model IP: every hosted model is an asset of its workload's tenant.
void model_assets(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                  const IsolationOptions& options, LeakageReport& rep) {
  std::vector<size_t> served(spec.workloads.size(), 0);
  for (const auto& e : run.log.events())
    if (e.type == EventType::REQUEST_DONE && e.workload >= 0) ++served[static_cast<size_t>(e.workload)];
  std::vector<std::vector<size_t>> channels_from;  // per source tenant, built for the first model
  for (size_t w = 0; w < spec.workloads.size(); ++w) {
    const auto& ws = spec.workloads[w];
    if (ws.kind == WorkloadKind::BATCH || ws.tenant_index < 0) continue;
    if (channels_from.empty()) {
      channels_from.resize(spec.tenants.size());
      for (size_t k = 0; k < rep.channels.size(); ++k) {
        const int source = rep.channels[k].source;
        if (source >= 0 && static_cast<size_t>(source) < channels_from.size())
          channels_from[static_cast<size_t>(source)].push_back(k);
      }
    }
    ModelAsset asset;
    asset.workload = static_cast<int>(w);
    asset.name = ws.name;
    asset.owner = ws.tenant;
    asset.kind = workload_kind_name(ws.kind);
    asset.weight_bytes = ws.kind == WorkloadKind::INFERENCE ? ws.model.weights().value : ws.memory.value;
    for (DiscreteKind kind : {DiscreteKind::UNSCRUBBED_MEMORY, DiscreteKind::PLAINTEXT_PCIE})
      asset.exposures.push_back(device_weight_exposure(spec, rep, static_cast<int>(w), kind));
    std::set<int> items;
    for (const auto& item : {ws.io.weights, ws.io.checkpoint})
      for (size_t i = 0; i < spec.data.size(); ++i)
        if (!item.empty() && spec.data[i].name == item) items.insert(static_cast<int>(i));
    for (DiscreteKind kind : {DiscreteKind::PLAINTEXT_STORAGE, DiscreteKind::PLAINTEXT_NETWORK})
      asset.exposures.push_back(stored_weight_exposure(spec, rep, items, kind));
    std::set<int> gpus;
    for (size_t k : index.stays_of(WorkloadId(static_cast<int>(w))))
      if (index.stays()[k].tenant >= 0) gpus.insert(index.stays()[k].gpu);
    asset.exposures.push_back(
        architecture_exposure(spec, rep, gpus, channels_from[static_cast<size_t>(ws.tenant_index)]));
    if (ws.kind == WorkloadKind::INFERENCE) {
      asset.exposures.push_back(behaviour_exposure(options, served[w]));
      rep.answers_watermarked += options.api.watermark_fraction * static_cast<double>(served[w]);
      if (options.api.noise_nats > 0) rep.answers_perturbed += static_cast<double>(served[w]);
    }
    rep.models.push_back(std::move(asset));
  }
}

std::vector<CatalogueEntry> catalogue_entries(const channel::Catalogue& catalogue) {
  std::vector<CatalogueEntry> out;
  for (const auto& row : catalogue.cells())
    for (const auto& cell : row) {
      CatalogueEntry e;
      e.resource = cell.resource;
      e.mode = cell.mode;
      e.state = cell.state;
      e.per_time_slice = cell.probe_per_time_slice;
      e.reason = cell.reason;
      e.closed_by = cell.closed_by;
      e.atlas = cell.atlas;
      if (cell.carrier == channel::Carrier::TIMING && cell.state != State::CLOSED) {
        const auto rate = catalogue.rate(cell.resource, cell.mode, "", 0);
        e.bit_rate_bps = rate.bit_rate;
        e.error_rate = rate.error_rate;
        e.capacity_bps = rate.capacity_bps;
        e.source =
            cell.probe_per_time_slice ? "(derived) 1 / time slice of the GPU, one bit per context switch" : rate.source;
        if (!cell.probe_per_time_slice) {
          e.measured_on = rate.measured_on;
          e.transfer_rule = rate.transfer_rule;
        }
      }
      out.push_back(std::move(e));
    }
  return out;
}

std::vector<std::string> leakage_notes() {
  return {
      "exposure: a tenant is active on a device while it has GPU_BUSY intervals there; on time-sliced and vGPU "
      "devices its slices are joined across gaps of at most one round of the other contexts",
      "node-level resources (PCIe, NVLink, host memory, power, NIC) use GPU activity as the activity on the node; "
      "the engine logs no transfer events",
      "a pair that meets on several devices under one relation counts the instant once (one receiver)",
      "tenants on different nodes share only the fabric and storage, which have no capacity and no model yet: "
      "those channels are not enumerated per pair",
      "plaintext PCIe bytes are derived from the workload specs (weights per placement, data per training step); "
      "prompts and tokens are not counted",
      "unscrubbed memory is observed from the allocator (MEM_RESIDUE events: freed bytes are reused first, most "
      "recently freed first, an upper bound for the next tenant); across a MIG re-partitioning it is derived from "
      "placement order",
  };
}

// What an attack demonstrated against one model, as a model exposure.
ModelExposure demonstrated_exposure(const AttackSpec& as, const AttackResult& at) {
  ModelExposure x;
  x.status = at.ran ? "demonstrated" : "attempted";
  x.tenants = {at.attacker};
  x.detail = at.name + " (" + at.type + "): " + at.outcome;
  switch (as.type) {
    case AttackType::PRIME_PROBE:
    case AttackType::MODEL_EXTRACTION:
      x.part = "architecture";
      x.channel = "contentionTiming";
      x.closed_by = {"MIG", "dedicated GPUs (exclusive)", "confidential computing", "noise injection",
                     "coarser timers"};
      // Nothing classified right (prime+probe) or nothing observed (extraction): the design closed the channel.
      if (as.type == AttackType::PRIME_PROBE && at.accuracy <= 0) x.status = "closed";
      if (as.type == AttackType::MODEL_EXTRACTION && at.observations <= 0) x.status = "closed";
      break;
    case AttackType::REMANENCE_SCRAPE:
      x.part = "weights";
      x.channel = "unscrubbedMemory";
      x.closed_by = {"scrub on free", "confidential computing"};
      if (at.bytes_recovered <= 0) x.status = "closed";
      break;
    case AttackType::QUERY_EXTRACTION:
      x.part = "behaviour";
      x.channel = "queryAccess";
      x.closed_by = {"rate limits", "authenticated access"};
      if (at.queries_answered <= 0) x.status = "closed";
      break;
    default:
      x.part = "behaviour";
      x.channel = as.type == AttackType::MPS_KILL ? "faultDomain" : "availability";
      x.closed_by = {"MIG", "dedicated GPUs (exclusive)"};
      break;
  }
  return x;
}

// Model IP: what the attacks demonstrated against each model (beside the bounds).
void demonstrated(const ScenarioSpec& spec, const RunResult& run, LeakageReport& rep) {
  for (const auto& at : rep.attacks) {
    const auto& as = spec.workloads[static_cast<size_t>(at.workload)].attack;
    for (auto& m : rep.models) {
      const bool targeted = as.target_index == m.workload;
      bool scraped = false;
      if (as.type == AttackType::REMANENCE_SCRAPE)
        for (const auto& e : run.log.events())
          if (e.type == EventType::MEM_RESIDUE && e.workload == at.workload &&
              payload::source_workload(e) == m.workload)
            scraped = true;
      if (!targeted && !scraped) continue;
      m.exposures.push_back(demonstrated_exposure(as, at));
    }
  }
}

}  // namespace

LeakageReport analyse_leakage(const ScenarioSpec& spec, const RunResult& run, const channel::Catalogue& catalogue,
                              const IsolationOptions& options) {
  return analyse_leakage(spec, run, RunIndex(spec, run), catalogue, options);
}

LeakageReport analyse_leakage(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                              const channel::Catalogue& catalogue, const IsolationOptions& options) {
  LeakageReport rep;
  rep.options = options;
  const auto gpu_mode = gpu_modes(run);
  std::map<std::tuple<int, int, Mode>, Merged> merged;
  {  // the meetings and their runs are freed before the channels are built
    CoActivityRuns runs;
    const Meetings met = meetings(spec, run, index, gpu_mode, runs);
    merged = merge_meetings(met, runs);
  }
  channels(merged, catalogue, options, rep);
  for (auto& d : unscrubbed_memory(spec, run, index, catalogue, options)) rep.discrete.push_back(std::move(d));
  for (auto& d : plaintext_pcie(spec, run, index)) rep.discrete.push_back(std::move(d));
  plaintext_data(spec, run, rep);
  add_identity_exposures(spec, rep);     // the identity channel (IdentityExposure.cpp)
  add_identity_runtime(spec, run, rep);  // invocations, secret leaks, incidents (same file)
  totals(spec, rep);
  model_assets(spec, run, index, options, rep);
  rep.catalogue = catalogue_entries(catalogue);
  rep.notes = leakage_notes();
  rep.attacks = analyse_attacks(spec, run, index, catalogue, options, rep);
  for (const auto& e : run.log.events())
    if (e.type == EventType::MEM_SCRUB) {
      rep.scrubbed_bytes += e.value;
      rep.scrub_seconds += e.time - payload::start_time(e);
    }
  demonstrated(spec, run, rep);
  return rep;
}

}  // namespace gtw
