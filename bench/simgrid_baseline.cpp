// gputwin-simgrid-baseline: plain SimGrid (no gputwin code) doing the kind of work gputwin asks of it,
// so gputwin's kernels/s can be set against SimGrid's own activities/s on the same machine.
//
//   gputwin-simgrid-baseline seq     [EXECS=1000000]            1 actor, sequential execs on one host
//   gputwin-simgrid-baseline actors  [ACTORS=1000] [EXECS=100] [HOSTS=100]
//                                                                ACTORS actors round-robin on HOSTS hosts
//   gputwin-simgrid-baseline kernels [GPUS=128] [KERNELS=1000]  one actor per GPU; a kernel is gputwin's
//                                                                decoupled roofline: a 132-thread exec on
//                                                                the SM host and an exec on the HBM host,
//                                                                started together, both waited for
//   gputwin-simgrid-baseline staggered [GPUS=128] [KERNELS=1000] [GAP=1]
//                                                                as kernels, but each GPU's kernels and the
//                                                                idle gaps between them have their own
//                                                                pseudo-random lengths (0.5-1.5 ms, the gaps
//                                                                GAP times that: GPUs busy 1/(1+GAP)), so
//                                                                the GPUs drift apart and an engine step
//                                                                wakes one actor, as in a gputwin run: the
//                                                                cost per activity against the actor count
//   gputwin-simgrid-baseline callbacks [GPUS=128] [KERNELS=1000] [GAP=1]
//                                                                the staggered work without actors: each
//                                                                GPU's next exec is started by SimGrid's
//                                                                completion signal, in the maestro (a gap is
//                                                                an exec on the GPU's idle host): what the
//                                                                same activities cost with no actor to resume
//   gputwin-simgrid-baseline sleeps  [ACTORS=64] [SLEEPS=100000] actors sleeping 2 ms in a loop
//   gputwin-simgrid-baseline cvwaits [ACTORS=64] [WAITS=100000]  actors holding a mutex and waiting on a
//                                                                condition variable with a 2 ms deadline
//                                                                that always expires: the time-slice
//                                                                arbiter's quantum timer, as gputwin does it
//   gputwin-simgrid-baseline iocomm  [ROUNDS=40000] [CHILD=0]   1 actor: a disk read and a host-to-host
//                                                                transfer per round, as models/storage does.
//                                                                CHILD=0: the actor does the read itself;
//                                                                SimGrid 3.32 keeps each finished Io in the
//                                                                actor's activity list, which every Comm's
//                                                                end walks, so the cost per round grows with
//                                                                the rounds done. CHILD=1: the read runs in
//                                                                a child actor per round (gputwin's fix)
//   gputwin-simgrid-baseline platform [ZONES=1250] [HOSTS=24] [LINKS=24]
//                                                                builds a root zone of ZONES full zones (one per
//                                                                node, as gputwin does) with HOSTS hosts and LINKS
//                                                                split-duplex links each, sealed one by one;
//                                                                SimGrid 3.32 checks each new name against every
//                                                                zone and each seal lists every host of the
//                                                                engine, so the build grows as ZONES^2: prints
//                                                                build_cpu_s and us_per_resource instead of a run
//
// One mode per process: SimGrid allows one engine per process. Prints one line of key=value pairs:
// mode, activities, wall_s and cpu_s (of Engine::run), act_per_s (per wall second), act_per_cpu_s,
// sim_s, peak_rss_mb. On a shared machine act_per_cpu_s is the steadier figure.
#include <sys/resource.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

long arg(int argc, char** argv, int i, long fallback) {
  return argc > i ? std::atol(argv[i]) : fallback;
}

// prefix + number, appended rather than `"h" + std::to_string(i)`, which trips GCC 12's false -Wrestrict
// at -O3 (GCC PR 105651).
std::string numbered(const char* prefix, long i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

// Lengths of one GPU's kernels and gaps, as shares of their mean: 0.5 to 1.5, xorshift64, a sequence per GPU.
struct Shares {
  explicit Shares(long gpu) : state(0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(gpu + 1)) {}
  double next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return 0.5 + static_cast<double>(state >> 11) / 9007199254740992.0;
  }
  uint64_t state;
};

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double cpu_seconds() {  // user + system of this process
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "seq";
  int sg_argc = 1;
  char arg0[] = "gputwin-simgrid-baseline";
  char* sg_argv[] = {arg0, nullptr};
  sg4::Engine engine(&sg_argc, sg_argv);
  xbt_log_control_set("root.thresh:critical");
  // GTW_BASELINE_CFG="contexts/stack-size:64 contexts/factory:ucontext": SimGrid settings to compare.
  if (const char* cfg = std::getenv("GTW_BASELINE_CFG")) {
    std::string all = cfg;
    for (size_t at = 0; at < all.size();) {
      const size_t end = std::min(all.find(' ', at), all.size());
      if (end > at) sg4::Engine::set_config(all.substr(at, end - at));
      at = end + 1;
    }
  }

  // A full zone's routing table has hosts^2 entries: the staggered mode's 20,000 hosts take a star zone.
  auto* zone =
      mode == "staggered" || mode == "callbacks" ? sg4::create_star_zone("bench") : sg4::create_full_zone("bench");
  long activities = 0;

  if (mode == "seq") {
    const long execs = arg(argc, argv, 2, 1000000);
    auto* host = zone->create_host("h0", 1e9);
    zone->seal();
    activities = execs;
    sg4::Actor::create("seq", host, [execs] {
      for (long i = 0; i < execs; ++i) sg4::this_actor::execute(1e6);
    });
  } else if (mode == "actors") {
    const long actors = arg(argc, argv, 2, 1000);
    const long execs = arg(argc, argv, 3, 100);
    const long n_hosts = arg(argc, argv, 4, 100);
    std::vector<sg4::Host*> hosts;
    for (long h = 0; h < n_hosts; ++h) hosts.push_back(zone->create_host(numbered("h", h), 1e9));
    zone->seal();
    activities = actors * execs;
    for (long a = 0; a < actors; ++a) {
      sg4::Actor::create(numbered("a", a), hosts[static_cast<size_t>(a % n_hosts)], [execs] {
        for (long i = 0; i < execs; ++i) sg4::this_actor::execute(1e6);
      });
    }
  } else if (mode == "kernels") {
    const long gpus = arg(argc, argv, 2, 128);
    const long kernels = arg(argc, argv, 3, 1000);
    constexpr int SMS = 132;
    struct Gpu {
      sg4::Host* sms;
      sg4::Host* hbm;
    };
    std::vector<Gpu> devices;
    for (long g = 0; g < gpus; ++g) {
      const std::string name = numbered("gpu", g);
      // H100 numbers as in the engine: 692.6 TFLOP/s over 132 SM cores, 2.57 TB/s HBM.
      auto* sms = zone->create_host(name, 692.6e12 / SMS)->set_core_count(SMS);
      devices.push_back({sms, zone->create_host(name + "-hbm", 2.57e12)});
    }
    zone->seal();
    activities = gpus * kernels * 2;  // two execs per kernel
    for (const auto& d : devices) {
      sg4::Actor::create("k", d.sms, [d, kernels] {
        for (long k = 0; k < kernels; ++k) {
          auto exec = sg4::Exec::init()->set_host(d.sms)->set_thread_count(SMS)->set_flops_amount(100e12 / SMS);
          exec->start();
          auto memory = sg4::Exec::init()->set_host(d.hbm)->set_flops_amount(50e9);
          memory->start();
          exec->wait();
          memory->wait();
        }
      });
    }
  } else if (mode == "staggered") {
    const long gpus = arg(argc, argv, 2, 128);
    const long kernels = arg(argc, argv, 3, 1000);
    const double gap = static_cast<double>(arg(argc, argv, 4, 1));
    constexpr int SMS = 132;
    constexpr double SM_FLOPS = 692.6e12;  // H100, as in the kernels mode
    constexpr double HBM_BYTES = 2.57e12;
    for (long g = 0; g < gpus; ++g) {
      const std::string name = numbered("gpu", g);
      auto* sms = zone->create_host(name, SM_FLOPS / SMS)->set_core_count(SMS);
      auto* hbm = zone->create_host(name + "-hbm", HBM_BYTES);
      sg4::Actor::create("k", sms, [sms, hbm, g, kernels, gap] {
        Shares shares(g);
        auto next_share = [&shares] { return shares.next(); };
        for (long k = 0; k < kernels; ++k) {
          const double seconds = 1e-3 * next_share();  // compute-bound: the SMs set the time
          auto exec =
              sg4::Exec::init()->set_host(sms)->set_thread_count(SMS)->set_flops_amount(seconds * SM_FLOPS / SMS);
          exec->start();
          auto memory = sg4::Exec::init()->set_host(hbm)->set_flops_amount(0.5 * seconds * HBM_BYTES);
          memory->start();
          exec->wait();
          memory->wait();
          sg4::this_actor::sleep_for(gap * 1e-3 * next_share());
        }
      });
    }
    zone->seal();
    activities = gpus * kernels * 3;  // two execs and a sleep per kernel
  } else if (mode == "callbacks") {
    const long gpus = arg(argc, argv, 2, 128);
    const long kernels = arg(argc, argv, 3, 1000);
    const double gap = static_cast<double>(arg(argc, argv, 4, 1));
    constexpr int SMS = 132;
    constexpr double SM_FLOPS = 692.6e12;
    constexpr double HBM_BYTES = 2.57e12;
    constexpr double IDLE_SPEED = 1e9;
    // One GPU's chain: a kernel is its SM and HBM execs; when both ended, an idle exec; then the next kernel.
    struct Chain {
      sg4::Host* sms = nullptr;
      sg4::Host* hbm = nullptr;
      sg4::Host* idle = nullptr;
      Shares shares{0};
      long left = 0;
      int pending = 0;       // execs of the current kernel still running
      sg4::ExecPtr held[3];  // the running execs (an activity nobody references is dropped)
      double next_share() { return shares.next(); }
    };
    static std::vector<Chain> chains;  // the completion signal's callback is a plain function of the activity
    chains.resize(static_cast<size_t>(gpus));
    for (long g = 0; g < gpus; ++g) {
      const std::string name = numbered("gpu", g);
      auto& c = chains[static_cast<size_t>(g)];
      c.sms = zone->create_host(name, SM_FLOPS / SMS)->set_core_count(SMS);
      c.hbm = zone->create_host(name + "-hbm", HBM_BYTES);
      c.idle = zone->create_host(name + "-idle", IDLE_SPEED);
      c.shares = Shares(g);
      c.left = kernels;
    }
    zone->seal();
    activities = gpus * kernels * 3;
    static auto start_kernel = [](Chain& c) {
      const double seconds = 1e-3 * c.next_share();
      c.pending = 2;
      auto exec = sg4::Exec::init()->set_host(c.sms)->set_thread_count(SMS)->set_flops_amount(seconds * SM_FLOPS / SMS);
      exec->set_data(&c);
      exec->start();
      auto memory = sg4::Exec::init()->set_host(c.hbm)->set_flops_amount(0.5 * seconds * HBM_BYTES);
      memory->set_data(&c);
      memory->start();
      c.held[0] = exec;
      c.held[1] = memory;
    };
    static double gap_factor = gap;
    sg4::Activity::on_completion_cb([](const sg4::Activity& a) {
      auto* c = a.get_data<Chain>();
      if (!c) return;
      const auto* exec = dynamic_cast<const sg4::Exec*>(&a);
      if (exec && exec->get_host() == c->idle) {
        if (c->left > 0) start_kernel(*c);
        return;
      }
      if (--c->pending > 0) return;
      --c->left;
      auto idle =
          sg4::Exec::init()->set_host(c->idle)->set_flops_amount(gap_factor * 1e-3 * c->next_share() * IDLE_SPEED);
      idle->set_data(c);
      idle->start();
      c->held[2] = idle;
    });
    // The first kernels start from the maestro too (an actor's activities are cancelled when it ends).
    for (auto& c : chains) start_kernel(c);
  } else if (mode == "sleeps") {
    const long actors = arg(argc, argv, 2, 64);
    const long sleeps = arg(argc, argv, 3, 100000);
    auto* host = zone->create_host("h0", 1e9);
    zone->seal();
    activities = actors * sleeps;
    for (long a = 0; a < actors; ++a) {
      sg4::Actor::create(numbered("s", a), host, [sleeps] {
        for (long i = 0; i < sleeps; ++i) sg4::this_actor::sleep_for(0.002);
      });
    }
  } else if (mode == "cvwaits") {
    const long actors = arg(argc, argv, 2, 64);
    const long waits = arg(argc, argv, 3, 100000);
    auto* host = zone->create_host("h0", 1e9);
    zone->seal();
    activities = actors * waits;
    for (long a = 0; a < actors; ++a) {
      sg4::Actor::create(numbered("c", a), host, [waits] {
        auto mutex = sg4::Mutex::create();
        auto cv = sg4::ConditionVariable::create();
        std::unique_lock lock(*mutex);
        for (long i = 0; i < waits; ++i) cv->wait_until(lock, sg4::Engine::get_clock() + 0.002);
      });
    }
  } else if (mode == "iocomm") {
    const long rounds = arg(argc, argv, 2, 40000);
    const bool child = arg(argc, argv, 3, 0) != 0;
    auto* a = zone->create_host("a", 1e9);
    auto* b = zone->create_host("b", 1e9);
    auto* link = zone->create_link("l", 1e9);
    zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(link)});
    auto* disk = a->create_disk("d", 1e9, 1e9);
    zone->seal();
    activities = 2 * rounds;
    sg4::Actor::create("mover", a, [=] {
      for (long i = 0; i < rounds; ++i) {
        sg4::ActorPtr reader;
        if (child) reader = sg4::Actor::create("reader", a, [disk] { disk->read_async(1000)->wait(); });
        auto io = child ? sg4::IoPtr() : disk->read_async(1000);
        sg4::Comm::sendto_async(a, b, 100000)->wait();
        if (io) io->wait();
        if (reader) reader->join();
      }
    });
  } else if (mode == "platform") {
    const long zones = arg(argc, argv, 2, 1250);
    const long hosts = arg(argc, argv, 3, 24);
    const long links = arg(argc, argv, 4, 24);
    const double cpu0 = cpu_seconds();
    for (long z = 0; z < zones; ++z) {
      const std::string node = numbered("node", z);
      auto* nz = sg4::create_full_zone(node);
      nz->set_parent(zone);
      for (long h = 0; h < hosts; ++h) nz->create_host(node + numbered("-h", h), 1e9);
      for (long l = 0; l < links; ++l) nz->create_split_duplex_link(node + numbered("-l", l), 1e9);
      nz->seal();
    }
    zone->seal();
    const double cpu = cpu_seconds() - cpu0;
    const double resources = static_cast<double>(zones * (hosts + links));
    std::printf("mode=platform zones=%ld hosts=%ld links=%ld build_cpu_s=%.3f us_per_resource=%.2f peak_rss_mb=%.1f\n",
                zones, zones * hosts, zones * links, cpu, 1e6 * cpu / resources, peak_rss_mb());
    return 0;
  } else {
    std::fprintf(stderr,
                 "usage: gputwin-simgrid-baseline "
                 "seq|actors|kernels|staggered|callbacks|sleeps|cvwaits|iocomm|platform [counts...]\n");
    return 2;
  }

  const double cpu0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  const auto n = static_cast<double>(activities);
  std::printf(
      "mode=%s activities=%ld wall_s=%.3f cpu_s=%.3f act_per_s=%.0f act_per_cpu_s=%.0f sim_s=%.3f "
      "peak_rss_mb=%.1f\n",
      mode.c_str(), activities, wall, cpu, n / wall, n / cpu, sg4::Engine::get_clock(), peak_rss_mb());
  return 0;
}
