// The infrastructure written once in sim/core: atomic files (text and produced by a library), the child
// process runner (streams, working directory, environment, timeout), the text helpers.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include "AtomicFile.hpp"
#include "Errors.hpp"
#include "Ids.hpp"
#include "Process.hpp"
#include "Subprocess.hpp"
#include "Text.hpp"

namespace gtw {
namespace {

namespace fs = std::filesystem;

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesTheTargetWholeAndLeavesNoTemporary) {
  test::TempDir dir;
  const std::string path = dir.file("report.md");
  write_file_atomic(path, "old\n");
  write_file_atomic(path, "new\n");
  EXPECT_EQ(test::read_text(path), "new\n");
  EXPECT_EQ(files_in(dir.path()), 1u);
}

TEST(AtomicFile, AFailedProducerLeavesTheOldFileAndNoTemporary) {
  test::TempDir dir;
  const std::string path = dir.file("results.h5");
  write_file_atomic(path, "old");
  std::string temporary;
  try {
    produce_file_atomic(path, [&](const std::string& tmp) {
      temporary = tmp;
      test::write_text(tmp, "half");
      throw std::runtime_error("disk full");
    });
    FAIL() << "a failed producer must throw";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + path + ": disk full"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::path(temporary).parent_path(), fs::path(path).parent_path()) << "the temporary sits beside the target";
  EXPECT_EQ(test::read_text(path), "old");
  EXPECT_EQ(files_in(dir.path()), 1u);
}

TEST(AtomicFile, TheValueVariantReportsInsteadOfThrowing) {
  test::TempDir dir;
  std::string error;
  EXPECT_FALSE(try_write_file_atomic(dir.file("missing/folder/x.yaml"), "x", error));
  EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
  EXPECT_TRUE(try_write_file_atomic(dir.file("x.yaml"), "x", error));
}

TEST(Process, RunsAChildWithItsStreamsFolderAndEnvironment) {
  test::TempDir dir;
  ChildJob job;
  job.argv = {"/bin/sh", "-c", "pwd; echo \"$GTW_PROBE\"; echo oops >&2; exit 3"};
  job.stdout_path = dir.file("out");
  job.stderr_path = dir.file("err");
  job.cwd = dir.path();
  job.env = {{"GTW_PROBE", "set by the job"}};
  const ChildResult r = run_child(job);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(test::read_text(dir.file("out")), fs::canonical(dir.path()).string() + "\nset by the job\n");
  EXPECT_EQ(test::read_text(dir.file("err")), "oops\n");
}

TEST(Process, ATimedOutChildIsKilledAndAMissingProgramDoesNotStart) {
  ChildJob slow;
  slow.argv = {"/bin/sleep", "30"};
  slow.timeout_seconds = 0.2;
  const ChildResult r = run_child(slow);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
  ChildJob missing;
  missing.argv = {"/nonexistent/gputwin"};
  EXPECT_TRUE(run_child(missing).spawn_failed);
}

TEST(Text, ListAndStringHelpers) {
  EXPECT_TRUE(contains({"mps", "mig"}, "mig"));
  EXPECT_FALSE(contains({"mps", "mig"}, "MIG"));
  EXPECT_EQ(lower("TimeSlicing"), "timeslicing");
  EXPECT_EQ(trim(" \t a b \t"), "a b");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({}, "/"), "");
  EXPECT_EQ(join({"a", "b", "c"}, ", ", 2), "a, b, ... (3 in all)");
  EXPECT_EQ(format_printf("%.6g|%.9f|%.2f s", 1.0 / 3, 2.5, 0.125), "0.333333|2.500000000|0.12 s");
  EXPECT_EQ(format_printf("%s", std::string(300, 'x').c_str()).size(), 300u) << "longer than the small buffer";
}

// Strong ids convert only explicitly, so a tenant cannot be passed where a workload is expected.
static_assert(!std::is_convertible_v<int, WorkloadId>);
static_assert(!std::is_convertible_v<TenantId, WorkloadId>);
static_assert(!std::is_convertible_v<WorkloadId, int>);

TEST(Ids, CompareAndIndexLikeTheirValue) {
  EXPECT_FALSE(GpuId().valid());
  EXPECT_EQ(GpuId(3).index(), 3u);
  EXPECT_LT(TenantId(1), TenantId(2));
  EXPECT_EQ(WorkloadId(4), WorkloadId(4));
}

}  // namespace
}  // namespace gtw
