#include "GpuDevice.hpp"

#include <xbt/log.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "PartitionScheduler.hpp"

// Log categories, one per folder under the root category gtw: off by default (SimGrid's root threshold is
// critical in a run), enabled with `gputwin run --log gtw.thres:verbose` or per folder, e.g. --log
// gtw_gpu.thres:verbose.
XBT_LOG_NEW_CATEGORY(gtw, "gputwin: the SimGrid models and the engine");
XBT_LOG_NEW_SUBCATEGORY(gtw_events, gtw, "every event of the log as it is appended (models/gpu/SimContext.hpp)");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(gtw_gpu, gtw,
                                "GPU devices: kernels, the shared-L2 model, the memory allocator (models/gpu)");

namespace gtw {

// SimGrid 3.32 bug workaround: s4u::Activity::resume() does not clear the private `suspended_`
// flag, so every later suspend() is silently ignored (seen in tests/engine/TimeSlicingTest). We
// clear it after each resume. Naming a private member in an explicit instantiation is exempt from
// access checking ([temp.spec.general]), which gives the pointer-to-member below.
bool sg4::Activity::*activity_suspended_flag();
template <bool sg4::Activity::*Member>
struct SuspendedFlagAccess {
  friend bool sg4::Activity::*activity_suspended_flag() { return Member; }
};
template struct SuspendedFlagAccess<&sg4::Activity::suspended_>;

namespace {
bool in_flight(const sg4::ExecPtr& e) {
  return e && e->get_state() == sg4::Activity::State::STARTED;
}
void resume_activity(const sg4::ExecPtr& e) {
  e->resume();
  e.get()->*activity_suspended_flag() = false;
}
}  // namespace

void KernelActivities::suspend() {
  if (in_flight(exec)) exec->suspend();
  if (in_flight(memory)) memory->suspend();
}

void KernelActivities::resume() {
  if (in_flight(exec)) resume_activity(exec);
  if (in_flight(memory)) resume_activity(memory);
}

std::vector<double> hbm_pstate_speeds(const HardwareProfile& profile) {
  std::vector<double> speeds{profile.hbm_achievable.value};
  if (profile.l2_contention <= 0) return speeds;
  for (int level = 1; level <= L2_PRESSURE_LEVELS; ++level)
    speeds.push_back(profile.hbm_achievable.value /
                     (1.0 + profile.l2_contention * static_cast<double>(level) / L2_PRESSURE_LEVELS));
  return speeds;
}

GpuDevice::GpuDevice(int index, int node, int local_index, sg4::Host* sms, sg4::Host* hbm,
                     const HardwareProfile& profile, const SharingSpec& sharing, SimContext& ctx)
    : index_(index),
      node_(node),
      local_index_(local_index),
      sms_(sms),
      hbm_(hbm),
      profile_(profile),
      sharing_(sharing),
      ctx_(ctx) {
  if (sharing_.context_switch.value < 0) sharing_.context_switch = profile_.context_switch;
  if (sharing_.mode == SharingMode::MPS) {
    // The device plugin's MPS mode gives each of `replicas` clients 1/replicas of compute and memory.
    const double clients = std::max(1, sharing_.replicas);
    if (sharing_.active_thread_percentage < 0) sharing_.active_thread_percentage = 100.0 / clients;
    if (sharing_.pinned_memory_limit.value < 0) sharing_.pinned_memory_limit = Bytes(profile_.memory.value / clients);
  }
  scheduler_ = make_partition_scheduler(*this, ctx_);
}

GpuDevice::~GpuDevice() = default;

int GpuDevice::add_context(int tenant, int workload, int replica) {
  GpuContext c;
  c.id = static_cast<int>(contexts_.size());
  c.tenant = tenant;
  c.workload = workload;
  c.replica = replica;
  contexts_.push_back(std::move(c));
  return contexts_.back().id;
}

double GpuDevice::partition_memory() const {
  if (sharing_.mode == SharingMode::MPS) return std::min(profile_.memory.value, sharing_.pinned_memory_limit.value);
  if (sharing_.mode == SharingMode::VGPU) return profile_.memory.value / std::max(1, sharing_.replicas);
  return profile_.memory.value;
}

bool GpuDevice::allocate(double bytes) {
  // Under MPS a client cannot pin more than its limit (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, hard on Volta+).
  if (sharing_.mode == SharingMode::MPS && bytes > sharing_.pinned_memory_limit.value) return false;
  // A vGPU owns its framebuffer slice (memory / vGPUs per GPU) and cannot allocate beyond it.
  if (sharing_.mode == SharingMode::VGPU && bytes > profile_.memory.value / std::max(1, sharing_.replicas))
    return false;
  if (memory_used_ + bytes > profile_.memory.value) return false;
  memory_used_ += bytes;
  return true;
}

void GpuDevice::release(double bytes) {
  memory_used_ = std::max(0.0, memory_used_ - bytes);
}

bool GpuDevice::scrubs_on_free() const {
  // A confidential GPU's memory is scrubbed when its CVM ends (attacks.md matrix, "CC scrubs; unverified").
  return ctx_.spec.isolation.scrub_on_free || sharing_.mode == SharingMode::CONFIDENTIAL;
}

double GpuDevice::memory_dirty() const {
  double total = 0;
  for (const auto& r : dirty_) total += r.bytes;
  return total;
}

double GpuDevice::allocate_for(double bytes, int context_id) {
  if (sharing_.mode == SharingMode::MPS && bytes > sharing_.pinned_memory_limit.value) return -1;
  if (sharing_.mode == SharingMode::VGPU && bytes > profile_.memory.value / std::max(1, sharing_.replicas)) return -1;
  if (memory_used_ + bytes > profile_.memory.value) return -1;
  if (!memory_mutex_) {
    memory_mutex_ = sg4::Mutex::create();
    scrub_done_ = sg4::ConditionVariable::create();
  }
  const GpuContext& owner = context(context_id);
  // Bytes being scrubbed are not usable yet: wait for the scrubs the allocation needs.
  {
    std::unique_lock lock(*memory_mutex_);
    while (memory_used_ + scrubbing_ + bytes > profile_.memory.value && scrubbing_ > 0) scrub_done_->wait(lock);
  }
  if (memory_used_ + scrubbing_ + bytes > profile_.memory.value) return -1;
  memory_used_ += bytes;
  const double now = sg4::Engine::get_clock();
  // Reuse freed memory first, most recently freed first; what is left comes from never-used memory.
  double need = bytes;
  double residue = 0;
  std::map<std::pair<int, bool>, double> handed;  // (source workload, scrubbed) -> bytes of other tenants
  auto take = [&](std::vector<Region>& list, bool scrubbed) {
    while (need > 0 && !list.empty()) {
      Region& r = list.back();
      const double b = std::min(need, r.bytes);
      if (r.tenant >= 0 && r.tenant != owner.tenant) {
        handed[{r.workload, scrubbed}] += b;
        if (!scrubbed) residue += b;
      }
      r.bytes -= b;
      need -= b;
      if (r.bytes <= 0) list.pop_back();
    }
  };
  take(dirty_, false);
  take(scrubbed_, true);
  XBT_VERB("GPU %d: %.0f bytes to workload %d[%d], %.0f of them another tenant's unscrubbed residue", index_, bytes,
           owner.workload, owner.replica, residue);
  ctx_.emit({.time = now,
             .type = EventType::MEM_ALLOC,
             .tenant = owner.tenant,
             .workload = owner.workload,
             .replica = owner.replica,
             .gpu = index_,
             .value = bytes,
             .aux = residue});
  for (const auto& [key, b] : handed)
    ctx_.emit({.time = now,
               .type = key.second ? EventType::MEM_SCRUBBED_REUSE : EventType::MEM_RESIDUE,
               .tenant = owner.tenant,
               .workload = owner.workload,
               .replica = owner.replica,
               .gpu = index_,
               .value = b,
               .aux = static_cast<double>(key.first)});
  return residue;
}

void GpuDevice::release_for(double bytes, int context_id) {
  const GpuContext& owner = context(context_id);
  memory_used_ = std::max(0.0, memory_used_ - bytes);
  const bool scrub = scrubs_on_free();
  ctx_.emit({.time = sg4::Engine::get_clock(),
             .type = EventType::MEM_FREE,
             .tenant = owner.tenant,
             .workload = owner.workload,
             .replica = owner.replica,
             .gpu = index_,
             .value = bytes,
             .aux = scrub ? 1.0 : 0.0});
  if (bytes <= 0) return;
  const Region region{owner.tenant, owner.workload, bytes};
  if (!scrub) {
    dirty_.push_back(region);
    return;
  }
  if (!memory_mutex_) {
    memory_mutex_ = sg4::Mutex::create();
    scrub_done_ = sg4::ConditionVariable::create();
  }
  // The scrub writes every freed byte at the HBM bandwidth, sharing it with the running kernels.
  scrubbing_ += bytes;
  sg4::Actor::create("scrub-" + std::to_string(index_), sms_, [this, region] {
    const double start = sg4::Engine::get_clock();
    sg4::Exec::init()->set_host(hbm_)->set_flops_amount(region.bytes)->start()->wait();
    std::unique_lock lock(*memory_mutex_);
    scrubbing_ = std::max(0.0, scrubbing_ - region.bytes);
    scrubbed_.push_back(region);
    ctx_.emit({.time = sg4::Engine::get_clock(),
               .type = EventType::MEM_SCRUB,
               .tenant = region.tenant,
               .workload = region.workload,
               .gpu = index_,
               .value = region.bytes,
               .aux = start});
    scrub_done_->notify_all();
  });
}

KernelPtr GpuDevice::launch(int context_id, double flops, double bytes, int grid_sms) {
  if (!context(context_id).alive) throw KernelAborted{context_id};
  auto kernel = std::make_shared<KernelActivities>();
  kernel->context = context_id;
  if (flops > 0) {
    // Cores are SMs: a kernel occupies the SMs its context may use (all of them unless MPS caps
    // the client) and its grid can fill, each doing its share of the FLOPs. Max-min sharing of the
    // cores, weighted by the SMs each kernel occupies, then splits an oversubscribed GPU between
    // concurrent kernels: a small grid next to a large one takes only its own SMs.
    const int share = scheduler_->sm_share(context(context_id));
    int threads = share > 0 ? std::min(share, profile_.sms) : profile_.sms;
    if (grid_sms > 0) threads = std::min(threads, grid_sms);
    kernel->exec = sg4::Exec::init()->set_host(sms_)->set_thread_count(threads)->set_flops_amount(flops / threads);
    kernel->exec->start();
  }
  if (bytes > 0) {
    kernel->memory = sg4::Exec::init()->set_host(hbm_)->set_flops_amount(bytes);
    kernel->memory->start();
    // Memory intensity: the share of its time alone (on its SMs, at full bandwidth) the kernel spends
    // bound by HBM bandwidth; 1 for a memory-bound kernel.
    const double memory_time = bytes / hbm_->get_pstate_speed(0);
    const double compute_time = kernel->exec ? flops / (sms_->get_speed() * kernel->exec->get_thread_count()) : 0;
    kernel->memory_intensity = memory_time / std::max(memory_time, compute_time);
  }
  scheduler_->on_launch(context(context_id), kernel);  // registers it in the context's active list
  update_l2_pressure();
  return kernel;
}

void GpuDevice::wait(const KernelPtr& kernel) {
  try {
    if (kernel->exec) kernel->exec->wait();
    if (kernel->memory) kernel->memory->wait();
  } catch (const simgrid::CancelException&) {
    kernel->finished = true;  // fail_context already took it off the active list
    throw KernelAborted{kernel->context};
  }
  kernel->finished = true;
  ++ctx_.counters.kernels;
  scheduler_->on_finish(context(kernel->context), kernel);  // removes it from the active list
  update_l2_pressure();
}

// Clients that run at the same time share the L2: each evicts the others' lines, so all of them
// fetch more from HBM. Modelled as a lower effective HBM bandwidth for everyone while it lasts:
// bandwidth / (1 + l2_contention x pressure), where pressure sums the memory intensity of every
// running client except the most intense one (a client alone, or next to compute-bound clients,
// keeps its bandwidth). Only MPS runs clients at once; time-slicing, vGPU and exclusive GPUs run one
// context at a time and MIG instances have their own L2 slices.
void GpuDevice::update_l2_pressure() {
  if (profile_.l2_contention <= 0 || sharing_.mode != SharingMode::MPS) return;
  double total = 0, most = 0;
  for (const auto& c : contexts_) {
    double intensity = 0;
    for (const auto& k : c.active)
      if (k->memory && k->memory->get_state() == sg4::Activity::State::STARTED)
        intensity = std::max(intensity, k->memory_intensity);
    total += intensity;
    most = std::max(most, intensity);
  }
  const double pressure = std::clamp(total - most, 0.0, 1.0);
  if (pressure == l2_pressure_) return;
  l2_pressure_ = pressure;
  const auto level = static_cast<unsigned long>(std::lround(pressure * L2_PRESSURE_LEVELS));
  if (level < hbm_->get_pstate_count()) hbm_->set_pstate(level);
}

void GpuDevice::fail_context(int context_id) {
  auto& c = context(context_id);
  if (!c.alive) return;
  c.alive = false;
  const auto kernels = c.active;  // on_finish edits the list
  for (const auto& k : kernels) {
    if (in_flight(k->exec)) k->exec->cancel();
    if (in_flight(k->memory)) k->memory->cancel();
    scheduler_->on_finish(c, k);
  }
  update_l2_pressure();
}

bool GpuDevice::fault_domain_is_whole_gpu() const {
  return sharing_.mode == SharingMode::MPS || sharing_.mode == SharingMode::TIME_SLICING;
}

std::vector<int> GpuDevice::fault_domain(int context_id) const {
  std::vector<int> out;
  for (const auto& c : contexts_) {
    if (!c.alive) continue;
    if (c.id == context_id || fault_domain_is_whole_gpu()) out.push_back(c.id);
  }
  return out;
}

void GpuDevice::restart_context(int context_id) {
  context(context_id).alive = true;
}

void GpuDevice::start() {
  scheduler_->start();
}

void GpuDevice::end_of_run(double now) {
  scheduler_->end_of_run(now);
}

}  // namespace gtw
