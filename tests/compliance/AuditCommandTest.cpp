// End to end through the gputwin binary (tests/fixtures/scenarios/identity-audit.yaml): `gputwin run`
// writes audit.jsonl (records `delay` later, FIFO at the shipper's throughput) and lists the confused-deputy
// path in report.json; `gputwin audit verify` exits 0 on the intact file, 1 naming record K when record K
// was modified or deleted, and 2 with file:line on a malformed file; audit.jsonl and results.h5 /audit
// carry the same stream and chain verdict.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw {
namespace {

using test::read_text;
using test::run_process;
using test::write_text;

const std::string FIXTURE = std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/identity-audit.yaml";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

test::ProcessResult verify(const std::string& file) {
  return run_process({GTW_BINARY, "audit", "verify", file});
}

TEST(AuditCommand, RunWritesAVerifiableTrailAndVerifyNamesTheBrokenRecord) {
  test::TempDir dir;
  const auto r = run_process(test::run_argv(GTW_BINARY, FIXTURE, dir.path(), "json,audit"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string audit_file = dir.file("audit.jsonl");
  const auto lines = lines_of(read_text(audit_file));
  ASSERT_GE(lines.size(), 6u);  // at least the six dataset reads of health-train
  double previous = -1;
  size_t reads = 0;
  for (const auto& line : lines) {
    const auto j = nlohmann::json::parse(line);
    const double t_event = j["t_event"], t_written = j["t_written"];
    EXPECT_GE(t_written, t_event + 2.0 - 1e-9);   // spec.audit.delay = 2s
    EXPECT_GE(t_written, previous + 1.0 - 1e-9);  // 1 record/s at the shipper
    previous = t_written;
    if (j["type"] == "dataRead" && j["resource"] == "health-records") {
      ++reads;
      EXPECT_EQ(j["principal"], "sa-health-train");
    }
  }
  EXPECT_EQ(reads, 6u);

  auto ok = verify(audit_file);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "intact (" + std::to_string(lines.size()) + " records)\n");

  const size_t k = 2;
  auto modified = lines;
  auto j = nlohmann::ordered_json::parse(modified[k]);
  j["principal"] = "mallory";
  modified[k] = j.dump();
  write_text(dir.file("modified.jsonl"), join(modified));
  auto bad = verify(dir.file("modified.jsonl"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out.rfind("record 2: hash mismatch", 0), 0u) << bad.out;

  auto deleted = lines;
  deleted.erase(deleted.begin() + static_cast<std::ptrdiff_t>(k));
  write_text(dir.file("deleted.jsonl"), join(deleted));
  auto gone = verify(dir.file("deleted.jsonl"));
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_EQ(gone.out.rfind("record 2: ", 0), 0u) << gone.out;

  auto garbled = lines;
  garbled[3] = "{\"index\": 3, \"event_seq\": ";
  write_text(dir.file("garbled.jsonl"), join(garbled));
  auto malformed = verify(dir.file("garbled.jsonl"));
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find(dir.file("garbled.jsonl") + ":4: "), std::string::npos) << malformed.err;

  EXPECT_EQ(verify(dir.file("missing.jsonl")).exit_code, 2);
}

// The writers take the stream and its chain check from the compliance evaluation (built once per run):
// audit.jsonl, results.h5 /audit and `audit verify` must still agree on a stream tampered at record 2.
TEST(AuditCommand, TheWritersShareOneStreamAndItsChainCheck) {
  test::TempDir dir;
  const auto r = run_process(test::run_argv(GTW_BINARY, FIXTURE, dir.path(), "json,h5,audit",
                                            {"spec.audit.tamper=[{record: 2, field: principal, value: mallory}]"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(read_text(dir.file("audit.jsonl")));
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["principal"], "mallory");
  const auto check = verify(dir.file("audit.jsonl"));
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out.rfind("record 2: hash mismatch", 0), 0u) << check.out;

  const hid_t file = H5Fopen(dir.file("results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t records = H5Dopen2(file, "/audit/records", H5P_DEFAULT);
  ASSERT_GE(records, 0);
  const hid_t space = H5Dget_space(records);
  hsize_t rows = 0;
  H5Sget_simple_extent_dims(space, &rows, nullptr);
  EXPECT_EQ(rows, lines.size());
  H5Sclose(space);
  H5Dclose(records);
  const hid_t attr = H5Aopen_by_name(file, "/audit", "chain", H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attr, 0);
  const hid_t type = H5Aget_type(attr);
  char* chain = nullptr;
  ASSERT_GE(H5Aread(attr, type, &chain), 0);
  const std::string text = chain ? chain : "";
  H5free_memory(chain);
  H5Tclose(type);
  H5Aclose(attr);
  H5Fclose(file);
  EXPECT_EQ(text.rfind("record 2: hash mismatch", 0), 0u) << text;
}

TEST(AuditCommand, ReportListsTheConfusedDeputyUntilTheHopPassesTheCallerThrough) {
  test::TempDir dir;
  auto r = run_process(test::run_argv(GTW_BINARY, FIXTURE, dir.path(), "json,sarif"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(read_text(dir.file("report.json")));
  // findings.sarif: the path is an error at the edge that replaced alice's identity (line 54 of the fixture).
  const auto sarif = nlohmann::json::parse(read_text(dir.file("findings.sarif")));
  int identity_results = 0;
  for (const auto& res : sarif["runs"][0]["results"])
    if (res["ruleId"] == "GTW-LEAK-identityPath") {
      ++identity_results;
      EXPECT_EQ(res["level"], "error");
      EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], 54);
    }
  EXPECT_EQ(identity_results, 1);
  const auto& paths = report["leakage"]["identity_paths"];
  ASSERT_EQ(paths.size(), 1u) << paths.dump(2);
  EXPECT_EQ(paths[0]["observer"], "public");
  EXPECT_EQ(paths[0]["source"], "health");
  EXPECT_EQ(paths[0]["principal"], "alice");
  EXPECT_EQ(paths[0]["target"], "health-records");
  EXPECT_EQ(paths[0]["hops"], nlohmann::json::array({"alice", "rag-agent", "health-records"}));
  EXPECT_EQ(paths[0]["propagation"], nlohmann::json::array({"passthrough", "replace"}));
  EXPECT_EQ(paths[0]["confused_deputy"], true);
  bool listed = false;
  for (const auto& d : report["leakage"]["discrete"])
    if (d["kind"] == "identityPath" && d["observer"] == "public" && d["source"] == "health") listed = true;
  EXPECT_TRUE(listed);
  EXPECT_FALSE(std::ifstream(dir.file("audit.jsonl")).good());  // not asked for (json,sarif only)

  test::TempDir fixed;
  r = run_process(
      test::run_argv(GTW_BINARY, FIXTURE, fixed.path(), "json", {"spec.identity.edges[1].propagation=passthrough"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read_text(fixed.file("report.json")))["leakage"]["identity_paths"].empty());
}

}  // namespace
}  // namespace gtw
