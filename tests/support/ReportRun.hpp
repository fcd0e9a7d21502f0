#pragma once
// Runs a scenario through the gputwin binary (one process per run) and reads its report.json: for the
// end-to-end tests that check a report as a user reads it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "Subprocess.hpp"

namespace gtw::test {

/// report.json of `gputwin run <scenario> --set <sets>...`.
inline nlohmann::json run_report(const std::string& scenario, const std::vector<std::string>& sets = {}) {
  TempDir dir;
  const auto r = run_process(run_argv(GTW_BINARY, scenario, dir.file("out"), "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_text(dir.file("out") + "/report.json"));
}

/// The finding of the built-in rule `rule` (the first, when several instances use it).
inline nlohmann::json finding(const nlohmann::json& report, const std::string& rule) {
  for (const auto& f : report["compliance"]["findings"])
    if (f["rule"] == rule) return f;
  ADD_FAILURE() << "no finding of " << rule;
  return nlohmann::json();
}

}  // namespace gtw::test
