// results.h5: hand-built inputs (no engine), written and read back with the HDF5 C API.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "Errors.hpp"
#include "H5Util.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

namespace fs = std::filesystem;

constexpr double INF = std::numeric_limits<double>::infinity();

struct Inputs {
  ScenarioSpec spec;
  RunResult run;
  Analysis analysis;
  Provenance prov;
};

Inputs make_inputs() {
  Inputs in;
  ScenarioSpec& s = in.spec;
  s.name = "h5-test";
  s.source_file = "scenarios/h5-test.yaml";
  s.source_sha256 = "abc123";
  s.seed = 42;
  s.duration = Seconds(90);
  s.sla_window = Seconds(60);
  s.tenants.resize(2);
  s.tenants[0].name = "alpha";
  s.tenants[1].name = "beta";
  SloSpec p99;
  p99.name = "p99";
  p99.window = Seconds(60);
  s.tenants[1].slos = {p99};

  RunResult& r = in.run;
  r.seed = 42;
  r.arrivals_end = 90;
  r.end_time = 91.5;
  r.wall_seconds = 0.25;
  r.counters.kernels = 7;
  r.profile_sha256 = {"H100-80GB-SXM:0123", "A100-40GB:4567"};
  auto ev = [&](double t, EventType type, int tenant, int workload, int gpu, double value, double aux) {
    Event e;
    e.time = t;
    e.type = type;
    e.tenant = tenant;
    e.workload = workload;
    e.replica = workload >= 0 ? 0 : -1;
    e.gpu = gpu;
    e.value = value;
    e.aux = aux;
    r.log.append(e);
  };
  ev(0, EventType::RUN_START, -1, -1, -1, 90, 0);
  ev(0, EventType::PLACED, 0, 0, 1, 16e9, 0);
  ev(0.125, EventType::REQUEST_DONE, 0, 0, 1, 0.1234567890123, 0.01);
  ev(3.5, EventType::REQUEST_DROPPED, 1, 1, 2, INF, 0);
  ev(91.5, EventType::RUN_END, -1, -1, -1, 0, 0);
  for (int g = 0; g < 3; ++g) {
    GpuLayout l;
    l.index = g;
    l.node = g / 2;
    l.local = g % 2;
    l.node_name = "pool-" + std::to_string(g / 2);
    l.pool = "pool";
    l.product = "H100-80GB-SXM";
    l.sharing = g == 2 ? SharingMode::TIME_SLICING : SharingMode::EXCLUSIVE;
    l.slots = g == 2 ? 4 : 1;
    l.memory = 80.0 * (1ull << 30);
    r.gpus.push_back(l);
  }

  Analysis& a = in.analysis;
  a.duration = 90;
  a.window = 60;
  a.tenants = {{"alpha", "eu", "internal", 0, 0, 12.5, {}, 0}, {"beta", "us", "public", 1, 1, 3.0, {}, 0}};
  WorkloadResult w0;
  w0.index = 0;
  w0.name = "chat";
  w0.kind = "inference";
  w0.tenant = 0;
  w0.requests_arrived = 10;
  w0.latency.p99 = 0.5;
  WorkloadResult w1;
  w1.index = 1;
  w1.name = "train";
  w1.kind = "training";
  w1.tenant = 1;
  w1.jobs_submitted = 1;
  a.workloads = {w0, w1};
  a.utilisation_windows = std::make_shared<PagedRecords<double>>(3);
  for (int g = 0; g < 3; ++g) {
    GpuResult gr;
    gr.layout = r.gpus[static_cast<size_t>(g)];
    gr.utilisation = 0.1 * (g + 1);
    a.utilisation_windows->add(static_cast<size_t>(g), 0.25 * g);
    a.utilisation_windows->add(static_cast<size_t>(g), 0.5 + 0.125 * g);
    a.gpus.push_back(gr);
  }
  SloResult slo;
  slo.tenant = 1;
  slo.tenant_name = "beta";
  slo.name = "p99";
  slo.kind = "latency";
  slo.unit = "s";
  slo.evaluated = 2;
  slo.violated = 1;
  slo.compliance = 0.5;
  slo.target = 0.99;
  slo.met = false;
  slo.worst = INF;
  slo.violation_minutes = 1;
  slo.windows = SloWindows::hold({{0, 0.2, false}, {60, INF, true}});
  a.slos = {slo};
  a.slos_missed = 1;

  in.prov = {"0.1.0", "3.32.0", "jemalloc 5.3.0", "gputwin run x.yaml", "host-a", "2024-01-01T00:00:00Z", 1.5};
  return in;
}

class ResultsH5Test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("gtw-h5-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const Inputs& in, const std::string& name = "results.h5") {
    const std::string p = (dir_ / name).string();
    write_results_h5(p, in.spec, in.run, in.analysis, in.prov);
    return p;
  }

  std::vector<std::string> dir_entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }

  fs::path dir_;
};

// Minimal RAII for the reader side.
struct Id {
  hid_t id;
  herr_t (*closer)(hid_t);
  ~Id() {
    if (id >= 0) closer(id);
  }
};

std::vector<hsize_t> dims_of(hid_t dset) {
  Id space{H5Dget_space(dset), H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  std::vector<hsize_t> d(static_cast<size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.id, d.data(), nullptr);
  return d;
}

hsize_t rows_of(hid_t file, const char* name) {
  Id d{H5Dopen2(file, name, H5P_DEFAULT), H5Dclose};
  EXPECT_GE(d.id, 0) << name;
  if (d.id < 0) return 0;
  const auto dims = dims_of(d.id);
  return dims.size() == 1 ? dims[0] : 0;
}

/// One string member of a table, read as variable-length strings.
std::vector<std::string> read_strings(hid_t file, const char* dataset, const char* member) {
  Id d{H5Dopen2(file, dataset, H5P_DEFAULT), H5Dclose};
  Id str{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(str.id, H5T_VARIABLE);
  H5Tset_cset(str.id, H5T_CSET_UTF8);
  Id mem{H5Tcreate(H5T_COMPOUND, sizeof(char*)), H5Tclose};
  H5Tinsert(mem.id, member, 0, str.id);
  const auto dims = dims_of(d.id);
  std::vector<char*> buf(dims.at(0), nullptr);
  std::vector<std::string> out;
  if (buf.empty()) return out;
  EXPECT_GE(H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
  for (char* p : buf) out.emplace_back(p ? p : "");
  Id space{H5Dget_space(d.id), H5Sclose};
  H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, buf.data());
  return out;
}

/// One f64 member of a table.
std::vector<double> read_doubles(hid_t file, const char* dataset, const char* member) {
  Id d{H5Dopen2(file, dataset, H5P_DEFAULT), H5Dclose};
  Id mem{H5Tcreate(H5T_COMPOUND, sizeof(double)), H5Tclose};
  H5Tinsert(mem.id, member, 0, H5T_NATIVE_DOUBLE);
  std::vector<double> buf(dims_of(d.id).at(0));
  if (!buf.empty()) {
    EXPECT_GE(H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
  }
  return buf;
}

/// A dataset's raw bytes in its file type (what a byte-wise comparison of contents needs).
std::vector<unsigned char> raw_bytes(hid_t file, const char* dataset) {
  Id d{H5Dopen2(file, dataset, H5P_DEFAULT), H5Dclose};
  Id t{H5Dget_type(d.id), H5Tclose};
  hsize_t n = 1;
  for (hsize_t x : dims_of(d.id)) n *= x;
  std::vector<unsigned char> buf(static_cast<size_t>(n) * H5Tget_size(t.id));
  if (!buf.empty()) {
    EXPECT_GE(H5Dread(d.id, t.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
  }
  return buf;
}

std::string read_string_attr(hid_t loc, const char* obj, const char* name) {
  Id a{H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  EXPECT_GE(a.id, 0) << obj << " " << name;
  Id t{H5Aget_type(a.id), H5Tclose};
  EXPECT_TRUE(H5Tis_variable_str(t.id) > 0);
  Id mem{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(mem.id, H5T_VARIABLE);
  H5Tset_cset(mem.id, H5T_CSET_UTF8);
  char* p = nullptr;
  EXPECT_GE(H5Aread(a.id, mem.id, &p), 0);
  std::string s = p ? p : "";
  H5free_memory(p);
  return s;
}

std::string file_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

struct EventRow {
  double time;
  uint8_t type;
  int32_t gpu;
  double value;
};

TEST_F(ResultsH5Test, EventsRoundTrip) {
  const Inputs in = make_inputs();
  const std::string p = write(in);
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"results.h5"});  // no temporary left behind

  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(read_string_attr(file.id, "/", "format_version"), "1.0");
  EXPECT_EQ(read_string_attr(file.id, "/", "schema"), "gputwin.results");
  EXPECT_EQ(read_string_attr(file.id, "/meta", "scenario_name"), "h5-test");
  EXPECT_EQ(read_string_attr(file.id, "/meta", "hardware_profiles"), "H100-80GB-SXM:0123\nA100-40GB:4567");
  EXPECT_EQ(read_string_attr(file.id, "/meta/provenance", "host"), "host-a");

  Id d{H5Dopen2(file.id, "/events", H5P_DEFAULT), H5Dclose};
  ASSERT_GE(d.id, 0);
  ASSERT_EQ(dims_of(d.id), std::vector<hsize_t>{5});
  EXPECT_EQ(read_string_attr(file.id, "/events", "semantics")
                    .find("request_done: value = latency from the client's send (s)") != std::string::npos,
            true);

  // The type member is an enum named after event_type_name().
  Id ftype{H5Dget_type(d.id), H5Tclose};
  const int type_idx = H5Tget_member_index(ftype.id, "type");
  ASSERT_GE(type_idx, 0);
  Id enum_type{H5Tget_member_type(ftype.id, static_cast<unsigned>(type_idx)), H5Tclose};
  ASSERT_EQ(H5Tget_class(enum_type.id), H5T_ENUM);
  ASSERT_EQ(H5Tget_nmembers(enum_type.id), EVENT_TYPE_COUNT);
  for (int i = 0; i < EVENT_TYPE_COUNT; ++i) {
    char name[64] = {};
    const uint8_t v = static_cast<uint8_t>(i);
    ASSERT_GE(H5Tenum_nameof(enum_type.id, &v, name, sizeof name), 0);
    EXPECT_STREQ(name, event_type_name(static_cast<EventType>(i)));
  }

  Id mem_enum{H5Tget_native_type(enum_type.id, H5T_DIR_ASCEND), H5Tclose};
  Id mem{H5Tcreate(H5T_COMPOUND, sizeof(EventRow)), H5Tclose};
  H5Tinsert(mem.id, "time", HOFFSET(EventRow, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(mem.id, "type", HOFFSET(EventRow, type), mem_enum.id);
  H5Tinsert(mem.id, "gpu", HOFFSET(EventRow, gpu), H5T_NATIVE_INT32);
  H5Tinsert(mem.id, "value", HOFFSET(EventRow, value), H5T_NATIVE_DOUBLE);
  std::vector<EventRow> rows(5);
  ASSERT_GE(H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), 0);
  const auto& ev = in.run.log.events();
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].time, ev[i].time);
    EXPECT_EQ(rows[i].type, static_cast<uint8_t>(ev[i].type));
    EXPECT_EQ(rows[i].gpu, ev[i].gpu);
    EXPECT_EQ(rows[i].value, ev[i].value);  // bit-exact, +inf included
  }
  EXPECT_EQ(rows[2].value, 0.1234567890123);
  EXPECT_EQ(rows[3].value, INF);

  // Chunked, shuffled and deflated.
  Id dcpl{H5Dget_create_plist(d.id), H5Pclose};
  EXPECT_EQ(H5Pget_layout(dcpl.id), H5D_CHUNKED);
  hsize_t chunk[1] = {0};
  EXPECT_EQ(H5Pget_chunk(dcpl.id, 1, chunk), 1);
  EXPECT_EQ(chunk[0], 16384u);
  EXPECT_EQ(H5Pget_nfilters(dcpl.id), 2);
}

TEST_F(ResultsH5Test, TablesAndTimeseries) {
  const Inputs in = make_inputs();
  const std::string p = write(in);
  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);

  EXPECT_EQ(rows_of(file.id, "/tenants"), 2u);
  EXPECT_EQ(read_strings(file.id, "/tenants", "name"), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(read_strings(file.id, "/tenants", "classification"), (std::vector<std::string>{"internal", "public"}));
  EXPECT_EQ(rows_of(file.id, "/workloads"), 2u);
  EXPECT_EQ(read_strings(file.id, "/workloads", "name"), (std::vector<std::string>{"chat", "train"}));
  EXPECT_EQ(read_doubles(file.id, "/workloads", "latency_p99_s"), (std::vector<double>{0.5, 0}));
  EXPECT_EQ(rows_of(file.id, "/gpus"), 3u);
  EXPECT_EQ(read_strings(file.id, "/gpus", "node"), (std::vector<std::string>{"pool-0", "pool-0", "pool-1"}));
  EXPECT_EQ(read_strings(file.id, "/gpus", "sharing"),
            (std::vector<std::string>{"exclusive", "exclusive", "timeSlicing"}));
  EXPECT_EQ(rows_of(file.id, "/sla/slos"), 1u);
  EXPECT_EQ(read_strings(file.id, "/sla/slos", "tenant"), std::vector<std::string>{"beta"});
  EXPECT_EQ(read_doubles(file.id, "/sla/slos", "worst"), std::vector<double>{INF});
  EXPECT_EQ(read_doubles(file.id, "/sla/slos", "window_s"), std::vector<double>{60});
  EXPECT_EQ(rows_of(file.id, "/sla/windows"), 2u);
  EXPECT_EQ(read_doubles(file.id, "/sla/windows", "value"), (std::vector<double>{0.2, INF}));

  Id util{H5Dopen2(file.id, "/timeseries/gpu_utilisation", H5P_DEFAULT), H5Dclose};
  ASSERT_GE(util.id, 0);
  ASSERT_EQ(dims_of(util.id), (std::vector<hsize_t>{2, 3}));
  std::vector<double> u(6);
  ASSERT_GE(H5Dread(util.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, u.data()), 0);
  EXPECT_EQ(u, (std::vector<double>{0, 0.25, 0.5, 0.5, 0.625, 0.75}));  // [window][gpu]
  EXPECT_EQ(read_string_attr(file.id, "/timeseries/gpu_utilisation", "units"), "ratio");
  Id time{H5Dopen2(file.id, "/timeseries/time", H5P_DEFAULT), H5Dclose};
  ASSERT_EQ(dims_of(time.id), std::vector<hsize_t>{2});
  std::vector<double> t(2);
  ASSERT_GE(H5Dread(time.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data()), 0);
  EXPECT_EQ(t, (std::vector<double>{0, 60}));
}

// A long run's utilisation matrix is written in blocks of windows from the paged windows (spilled here in pages of
// 7): more than one block, every value in its [window][gpu] cell.
TEST_F(ResultsH5Test, UtilisationOfManyWindowsIsWrittenInBlocks) {
  Inputs in = make_inputs();
  const size_t n_gpus = in.analysis.gpus.size();
  const size_t n_windows = (size_t{1} << 20) / n_gpus + 11;  // two blocks of 8 MB
  in.analysis.utilisation_windows = std::make_shared<PagedRecords<double>>(n_gpus, SpillBudget{0, 7}, "gputwin-test");
  for (size_t g = 0; g < n_gpus; ++g)
    for (size_t k = 0; k < n_windows; ++k)
      in.analysis.utilisation_windows->add(g, static_cast<double>(k) + 0.125 * static_cast<double>(g));
  const std::string p = write(in);
  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  Id util{H5Dopen2(file.id, "/timeseries/gpu_utilisation", H5P_DEFAULT), H5Dclose};
  ASSERT_EQ(dims_of(util.id), (std::vector<hsize_t>{n_windows, n_gpus}));
  std::vector<double> u(n_windows * n_gpus);
  ASSERT_GE(H5Dread(util.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, u.data()), 0);
  for (size_t k = 0; k < n_windows; ++k)
    for (size_t g = 0; g < n_gpus; ++g)
      ASSERT_EQ(u[k * n_gpus + g], static_cast<double>(k) + 0.125 * static_cast<double>(g)) << k << " " << g;
}

// A job SLO has a window per job: /sla/windows is written in blocks of 65,536 rows read from the paged windows (here
// spilled in pages of 5), every row in order with its SLO's index.
TEST_F(ResultsH5Test, SloWindowsOfALongRunAreWrittenInBlocks) {
  Inputs in = make_inputs();
  ASSERT_EQ(in.analysis.slos.size(), 1u);
  const size_t n = 65536 + 4464;
  auto table = std::make_shared<SloWindows::Table>(1, SpillBudget{0, 5}, "gputwin-test");
  for (size_t k = 0; k < n; ++k)
    table->add(0, {static_cast<double>(k), 0.25 * static_cast<double>(k), static_cast<uint8_t>(k % 2)});
  in.analysis.slos[0].windows = SloWindows(table, 0);
  const std::string p = write(in);
  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  ASSERT_EQ(rows_of(file.id, "/sla/windows"), n);
  const std::vector<double> start = read_doubles(file.id, "/sla/windows", "start_s");
  const std::vector<double> value = read_doubles(file.id, "/sla/windows", "value");
  ASSERT_EQ(start.size(), n);
  for (size_t k = 0; k < n; ++k) {
    ASSERT_EQ(start[k], static_cast<double>(k)) << k;
    ASSERT_EQ(value[k], 0.25 * static_cast<double>(k)) << k;
  }
}

TEST_F(ResultsH5Test, EmptyEventLogAndTables) {
  Inputs in = make_inputs();
  in.run.log = EventLog{};
  in.analysis.slos.clear();
  in.analysis.gpus.clear();
  const std::string p = write(in);
  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(rows_of(file.id, "/events"), 0u);
  EXPECT_EQ(rows_of(file.id, "/sla/slos"), 0u);
  EXPECT_EQ(rows_of(file.id, "/sla/windows"), 0u);
  EXPECT_EQ(rows_of(file.id, "/gpus"), 0u);
  EXPECT_TRUE(raw_bytes(file.id, "/events").empty());
  Id util{H5Dopen2(file.id, "/timeseries/gpu_utilisation", H5P_DEFAULT), H5Dclose};
  EXPECT_EQ(dims_of(util.id), (std::vector<hsize_t>{0, 0}));
}

TEST_F(ResultsH5Test, MissingDirectoryThrowsAndLeavesNothing) {
  const Inputs in = make_inputs();
  try {
    write(in, "absent/results.h5");
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("absent/results.h5"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "absent"));
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(ResultsH5Test, FailedRenameRemovesTemporary) {
  // The target is a non-empty directory: the temporary file is written, the rename fails.
  const Inputs in = make_inputs();
  fs::create_directories(dir_ / "results.h5" / "occupied");
  EXPECT_THROW(write(in), RuntimeError);
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"results.h5"});
  EXPECT_TRUE(fs::is_directory(dir_ / "results.h5"));
}

// Every hid_t the writer opens is closed again, on success and on failure.
TEST_F(ResultsH5Test, ClosesEveryHandle) {
  const Inputs in = make_inputs();
  write(in, "warm.h5");  // the library initialises lazily; count after that
  const H5I_type_t kinds[] = {H5I_FILE, H5I_GROUP, H5I_DATATYPE, H5I_DATASPACE, H5I_DATASET, H5I_ATTR, H5I_GENPROP_LST};
  auto counts = [&] {
    std::vector<hsize_t> n;
    for (H5I_type_t k : kinds) {
      hsize_t c = 0;
      H5Inmembers(k, &c);
      n.push_back(c);
    }
    return n;
  };
  const auto before = counts();
  write(in, "again.h5");
  EXPECT_EQ(counts(), before);
  fs::create_directories(dir_ / "busy.h5" / "x");
  EXPECT_THROW(write(in, "busy.h5"), RuntimeError);
  EXPECT_EQ(counts(), before);
}

// A log longer than one of its blocks is written whole and in order (the last block partly full).
// With no block resident, the blocks are read back from the log's temporary file.
class ResultsH5LogBlocks : public ResultsH5Test, public ::testing::WithParamInterface<size_t> {};
INSTANTIATE_TEST_SUITE_P(Resident, ResultsH5LogBlocks, ::testing::Values(EventLog::DEFAULT_RESIDENT_BLOCKS, 0));

TEST_P(ResultsH5LogBlocks, ALogOfSeveralBlocksIsWrittenWholeAndInOrder) {
  Inputs in = make_inputs();
  in.run.log = EventLog{GetParam()};
  const size_t n = EventLog::BLOCK_EVENTS * 2 + EventLog::BLOCK_EVENTS / 2 + 7;
  for (size_t i = 0; i < n; ++i)
    in.run.log.append(Event{static_cast<double>(i) * 1e-3, 0, i % 2 ? EventType::GPU_BUSY : EventType::CONTEXT_SWITCH,
                            static_cast<int32_t>(i % 3), 0, 0, static_cast<int32_t>(i % 8),
                            static_cast<double>(i) * 0.5, 0});
  ASSERT_EQ(in.run.log.block_count(), 3u);
  EXPECT_EQ(in.run.log.spilled_blocks(), GetParam() == 0 ? 2u : 0u);
  EXPECT_EQ(in.run.log.events()[n - 1].seq, n - 1);
  const std::string p = write(in);
  Id file{H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  ASSERT_EQ(rows_of(file.id, "/events"), n);
  const auto values = read_doubles(file.id, "/events", "value");
  const auto times = read_doubles(file.id, "/events", "time");
  ASSERT_EQ(values.size(), n);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    wrong += values[i] != static_cast<double>(i) * 0.5 || times[i] != in.run.log.events()[i].time;
  EXPECT_EQ(wrong, 0u);
}

// The blocks do not show in the file: a table written from several blocks is byte for byte the one written
// from one array (block sizes a multiple of the chunk, as the event log's, and not).
TEST_F(ResultsH5Test, ATableWrittenInBlocksIsTheFileWrittenAtOnce) {
  struct Row {
    double t;
    int32_t k;
  };
  std::vector<Row> rows;
  for (int i = 0; i < 100000; ++i) rows.push_back({i * 0.25, i % 97});
  const auto write_file = [&](const std::string& name, const std::vector<h5::RowBlock>& blocks) {
    const std::string path = (dir_ / name).string();
    const h5::H5Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "fcpl");
    h5::H5Id f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose, "create");
    h5::write_table(
        f.get(), "rows", blocks, sizeof(Row),
        {GTW_FIELD(Row, t, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE), GTW_FIELD(Row, k, H5T_NATIVE_INT32, H5T_STD_I32LE)},
        h5::TableOptions{true});
    return path;
  };
  const auto whole = write_file("whole.h5", {{rows.data(), rows.size()}});
  const size_t chunk = h5::EVENT_CHUNK_ROWS;
  const auto chunked =
      write_file("chunked.h5", {{rows.data(), 4 * chunk}, {rows.data() + 4 * chunk, rows.size() - 4 * chunk}});
  EXPECT_EQ(file_bytes(whole), file_bytes(chunked));
  const auto ragged =
      write_file("ragged.h5", {{rows.data(), 1000}, {rows.data() + 1000, 0}, {rows.data() + 1000, rows.size() - 1000}});
  Id a{H5Fopen(whole.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  Id b{H5Fopen(ragged.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  EXPECT_EQ(raw_bytes(a.id, "/rows"), raw_bytes(b.id, "/rows"));
}

TEST_F(ResultsH5Test, DeterministicContent) {
  Inputs in = make_inputs();
  const std::string a = write(in, "a.h5");
  // Cross a second boundary so any object timestamp would differ.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const std::string b = write(in, "b.h5");
  EXPECT_EQ(file_bytes(a), file_bytes(b));

  // Different provenance: only /meta/provenance differs; the data is byte-identical.
  in.prov.host = "another-host";
  in.prov.wall_seconds = 99;
  const std::string c = write(in, "c.h5");
  EXPECT_NE(file_bytes(a), file_bytes(c));
  Id fa{H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  Id fc{H5Fopen(c.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(fa.id, 0);
  ASSERT_GE(fc.id, 0);
  for (const char* ds : {"/events", "/timeseries/gpu_utilisation", "/timeseries/time", "/sla/windows"})
    EXPECT_EQ(raw_bytes(fa.id, ds), raw_bytes(fc.id, ds)) << ds;
  for (const char* ds : {"/tenants", "/workloads", "/sla/slos"})
    EXPECT_EQ(read_strings(fa.id, ds, "name"), read_strings(fc.id, ds, "name")) << ds;
  EXPECT_EQ(read_strings(fa.id, "/gpus", "node"), read_strings(fc.id, "/gpus", "node"));
  EXPECT_EQ(read_doubles(fa.id, "/gpus", "utilisation"), read_doubles(fc.id, "/gpus", "utilisation"));
  EXPECT_EQ(read_string_attr(fc.id, "/meta/provenance", "host"), "another-host");
}

}  // namespace
}  // namespace gtw
