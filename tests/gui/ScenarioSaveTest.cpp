// "Save scenario as...": the what-if overrides written into a complete scenario YAML (gui/ScenarioSave), which
// `gputwin validate` accepts and `gputwin run` simulates exactly as the original with the same `--set`
// overrides; $ref includes kept or inlined, relative paths rewritten when the file is saved elsewhere.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "MainWindow.hpp"
#include "RunController.hpp"
#include "ScenarioModel.hpp"
#include "ScenarioSave.hpp"
#include "Subprocess.hpp"

namespace gtw::gui {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::run_process;
using test::TempDir;

const std::string EXAMPLES = GTW_GUI_EXAMPLES;
const std::string TIME_SLICING = EXAMPLES + "/isolation/time-slicing.yaml";
const std::string DEFAULT = EXAMPLES + "/default.yaml";
const std::string AZURE = EXAMPLES + "/azure-llm-replay.yaml";

std::string cli() {
  return RunController::cli_binary().toStdString();
}

test::ProcessResult gputwin(std::vector<std::string> args) {
  args.insert(args.begin(), cli());
  return run_process(args, 240);
}

std::string validate(const std::string& file) {
  const auto r = gputwin({"validate", file});
  return r.exit_code == 0
             ? std::string()
             : "gputwin validate " + file + " exited " + std::to_string(r.exit_code) + ":\n" + r.out + r.err;
}

// report.json without what names the input file or this run: provenance, scenario.file and scenario.sha256.
nlohmann::json comparable_report(const std::string& dir) {
  auto j = nlohmann::json::parse(read_text(dir + "/report.json"));
  j.erase("provenance");
  j["scenario"].erase("file");
  j["scenario"].erase("sha256");
  return j;
}

std::vector<std::string> std_list(const QStringList& l) {
  std::vector<std::string> out;
  for (const auto& s : l) out.push_back(s.toStdString());
  return out;
}

// Every $ref in `node` names an existing file relative to `dir`.
void expect_refs_resolve(const YAML::Node& node, const fs::path& dir, int& refs) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (kv.first.Scalar() == "$ref") {
        ++refs;
        fs::path p(kv.second.Scalar());
        if (p.is_relative()) p = dir / p;
        EXPECT_TRUE(fs::is_regular_file(p)) << kv.second.Scalar() << " from " << dir;
      } else {
        expect_refs_resolve(kv.second, dir, refs);
      }
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) expect_refs_resolve(item, dir, refs);
  }
}

TEST(ScenarioSave, DefaultNameIsBesideTheOriginal) {
  EXPECT_EQ(default_save_path("scenarios/examples/isolation/mps.yaml"),
            fs::path("scenarios/examples/isolation/mps-whatif.yaml"));
}

// The window's controls (a pool's sharing mode, a tenant's load: its workloads' arrival rates by name, the
// seed) saved as a scenario: it validates, and runs exactly as the original with the same --set overrides.
TEST(ScenarioSave, SavedScenarioRunsExactlyAsTheOriginalWithTheSameOverrides) {
  TempDir tmp;
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(QString::fromStdString(TIME_SLICING)));
  ASSERT_TRUE(w.set_knob("spec.cluster.nodePools[serve].sharing|mode", QStringLiteral("mig")));
  ASSERT_TRUE(w.set_knob("load/chat", QStringLiteral("2")));
  ASSERT_TRUE(w.set_knob("run/seed", QStringLiteral("7")));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("20s")));
  const std::vector<std::string> overrides = std_list(w.current_overrides());
  const auto has = [&](const std::string& prefix) {
    for (const auto& o : overrides)
      if (o.rfind(prefix, 0) == 0) return true;
    return false;
  };
  ASSERT_TRUE(has("spec.cluster.nodePools[serve].sharing={mode: mig")) << testing::PrintToString(overrides);
  ASSERT_TRUE(has("spec.workloads[chat-svc].arrival.rate=")) << testing::PrintToString(overrides);
  ASSERT_TRUE(has("spec.seed=7")) << testing::PrintToString(overrides);

  const std::string saved = tmp.file("time-slicing-whatif.yaml");
  QString error;
  ASSERT_TRUE(w.save_scenario_as(QString::fromStdString(saved), &error)) << error.toStdString();
  const std::string text = read_text(saved);
  EXPECT_NE(text.find("# Saved by gputwin-gui from " + fs::absolute(TIME_SLICING).lexically_normal().string()),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--set 'spec.seed=7'"), std::string::npos) << text;
  // tenants are untouched and stay a $ref (rewritten for the new directory); workloads are inlined, since
  // an override reaches into them.
  const YAML::Node doc = YAML::Load(text);
  ASSERT_TRUE(doc["spec"]["tenants"]["$ref"]) << text;
  ASSERT_TRUE(doc["spec"]["workloads"].IsSequence()) << text;
  int refs = 0;
  expect_refs_resolve(doc, tmp.path(), refs);
  EXPECT_EQ(refs, 1);
  EXPECT_EQ(doc["spec"]["seed"].Scalar(), "7");

  EXPECT_EQ(validate(saved), "");
  std::vector<std::string> with_set = {"run", TIME_SLICING, "-o", tmp.file("with-set"), "--format", "json"};
  for (const auto& o : overrides) {
    with_set.push_back("--set");
    with_set.push_back(o);
  }
  const auto a = gputwin(with_set);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = gputwin({"run", saved, "-o", tmp.file("saved"), "--format", "json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto ja = comparable_report(tmp.file("with-set"));
  const auto jb = comparable_report(tmp.file("saved"));
  EXPECT_EQ(ja.dump(2), jb.dump(2));
  EXPECT_EQ(ja["scenario"]["seed"], 7);
  EXPECT_GT(ja["summary"]["events"].get<int>(), 0) << "a run that simulated something";
}

// default.yaml takes its node pool from fragments/: kept as a $ref when nothing reaches into it, inlined
// (and addressable by the fragment's pool name) when an override does; saved in another directory both
// still validate, and the inlined one runs as the original with --set.
TEST(ScenarioSave, RefFragmentsAreKeptOrInlinedAndStillResolveFromAnotherDirectory) {
  TempDir tmp;
  {
    const std::string saved = tmp.file("kept.yaml");
    std::string error;
    ASSERT_TRUE(save_scenario_with_overrides(DEFAULT, {"spec.seed=3"}, saved, &error)) << error;
    const YAML::Node doc = YAML::LoadFile(saved);
    ASSERT_TRUE(doc["spec"]["cluster"]["nodePools"][0]["$ref"]) << read_text(saved);
    int refs = 0;
    expect_refs_resolve(doc, tmp.path(), refs);
    EXPECT_EQ(refs, 1);
    EXPECT_EQ(validate(saved), "");
  }
  {
    fs::create_directories(tmp.file("elsewhere/deeper"));
    const std::string saved = tmp.file("elsewhere/deeper/inlined.yaml");
    const std::vector<std::string> overrides = {"spec.cluster.nodePools[hgx].sharing={mode: timeSlicing, replicas: 2}",
                                                "spec.duration=20s"};
    for (const auto& d : check_overrides(DEFAULT, overrides))
      ASSERT_NE(d.severity, Severity::ERROR) << "the pool of a $ref is named by its fragment: " << d.format();
    std::string error;
    ASSERT_TRUE(save_scenario_with_overrides(DEFAULT, overrides, saved, &error)) << error;
    const YAML::Node pool = YAML::LoadFile(saved)["spec"]["cluster"]["nodePools"][0];
    EXPECT_FALSE(pool["$ref"]) << read_text(saved);
    EXPECT_EQ(pool["name"].Scalar(), "hgx");
    EXPECT_EQ(pool["sharing"]["mode"].Scalar(), "timeSlicing");
    EXPECT_EQ(pool["gpuSharing"][0]["replicas"].Scalar(), "2") << "the rest of the fragment is kept";
    EXPECT_EQ(validate(saved), "");
    std::vector<std::string> with_set = {"run", DEFAULT, "-o", tmp.file("with-set"), "--format", "json"};
    for (const auto& o : overrides) with_set.insert(with_set.end(), {"--set", o});
    ASSERT_EQ(gputwin(with_set).exit_code, 0);
    ASSERT_EQ(gputwin({"run", saved, "-o", tmp.file("saved"), "--format", "json"}).exit_code, 0);
    EXPECT_EQ(comparable_report(tmp.file("with-set")).dump(2), comparable_report(tmp.file("saved")).dump(2));
  }
}

// Trace files (arrival.file, a "path" field of the schema) are relative to the scenario: rewritten when the
// file is saved elsewhere, untouched beside the original.
TEST(ScenarioSave, RelativeTraceFilesFollowTheSavedFile) {
  TempDir tmp;
  const std::string saved = tmp.file("azure.yaml");
  std::string error;
  ASSERT_TRUE(save_scenario_with_overrides(AZURE, {"spec.workloads[conv-svc].replicas=2"}, saved, &error)) << error;
  const YAML::Node arrival = YAML::LoadFile(saved)["spec"]["workloads"][0]["arrival"];
  const fs::path file(arrival["file"].Scalar());
  EXPECT_TRUE(fs::is_regular_file(file.is_relative() ? fs::path(tmp.path()) / file : file)) << file;
  EXPECT_EQ(validate(saved), "");

  const auto beside = scenario_with_overrides(AZURE, {}, default_save_path(AZURE));
  ASSERT_TRUE(beside.ok) << beside.error;
  EXPECT_EQ(YAML::Load(beside.yaml)["spec"]["workloads"][0]["arrival"]["file"].Scalar(),
            "../../data/azure-llm-2023/AzureLLMInferenceTrace_conv.csv");
}

TEST(ScenarioSave, OverridesTheScenarioCannotTakeAreRefusedAndNothingIsWritten) {
  TempDir tmp;
  const auto r = scenario_with_overrides(TIME_SLICING, {"spec.workloads[nope].arrival.rate=1/s"}, tmp.file("x.yaml"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no list item 'nope'"), std::string::npos) << r.error;
  EXPECT_FALSE(scenario_with_overrides(TIME_SLICING, {"spec.workloads[0]=x"}, tmp.file("x.yaml")).ok);
  EXPECT_FALSE(scenario_with_overrides(TIME_SLICING, {"no-equals-sign"}, tmp.file("x.yaml")).ok);

  MainWindow w;
  ASSERT_TRUE(w.open_scenario(QString::fromStdString(TIME_SLICING)));
  w.set_extra_overrides({QStringLiteral("spec.nosuchfield=1")});
  QString error;
  EXPECT_FALSE(w.save_scenario_as(QString::fromStdString(tmp.file("x.yaml")), &error));
  EXPECT_NE(error.indexOf(QStringLiteral("nosuchfield")), -1) << error.toStdString();
  EXPECT_FALSE(fs::exists(tmp.file("x.yaml")));
}

// Saving over the open file (the dialog asks first) writes the changes into it and reopens it: the controls
// start from the saved values, with no overrides left.
TEST(ScenarioSave, SavingOverTheOriginalReopensItWithTheChangesWrittenIn) {
  TempDir tmp;
  fs::copy(EXAMPLES + "/fragments", tmp.file("fragments"), fs::copy_options::recursive);
  const std::string copy = tmp.file("default.yaml");
  fs::copy_file(DEFAULT, copy);
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(QString::fromStdString(copy)));
  ASSERT_TRUE(w.set_knob("run/seed", QStringLiteral("99")));
  ASSERT_EQ(w.current_overrides(), QStringList{QStringLiteral("spec.seed=99")});
  QString error;
  ASSERT_TRUE(w.save_scenario_as(QString::fromStdString(copy), &error)) << error.toStdString();
  EXPECT_TRUE(w.current_overrides().isEmpty());
  EXPECT_EQ(w.knob_value("run/seed"), QStringLiteral("99"));
  EXPECT_EQ(YAML::LoadFile(copy)["spec"]["cluster"]["nodePools"][0]["$ref"].Scalar(), "fragments/hgx-h100-node.yaml");
  EXPECT_EQ(validate(copy), "");
}

}  // namespace
}  // namespace gtw::gui
