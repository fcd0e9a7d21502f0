// gputwin-gui and continuous batching: the `serving` block of report.json (tests/gui/fixtures/serving:
// a chat service and a heavy neighbour batched continuously on one time-sliced H100, plus a statically
// batched reranker; chat's ttft-p99 SLO is missed), the serving table of the Workloads tab with and
// without a pinned baseline, the one-page summary, and how the structure view describes serving
// workloads and their SLOs. The older fixture (tests/gui/fixtures/report.json) has no `serving` block.
// The QApplication comes from GuiTest.cpp's environment (same binary).
#include <gtest/gtest.h>

#include <QImage>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "ChartExport.hpp"
#include "Charts.hpp"
#include "MainWindow.hpp"
#include "ReportModel.hpp"
#include "ScenarioModel.hpp"

namespace gtw::gui {
namespace {

const QString FIXTURES = QStringLiteral(GTW_GUI_FIXTURES);
const QString SERVING = FIXTURES + QStringLiteral("/serving");
const QString EXAMPLES = QStringLiteral(GTW_GUI_EXAMPLES);

const Workload& workload_named(const Report& r, const std::string& name) {
  for (const auto& w : r.workloads)
    if (w.name == name) return w;
  throw std::runtime_error("no workload " + name);
}

// The serving fixture with one edit, written to `dir`/report.json.
QString edited_serving(const QTemporaryDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(SERVING.toStdString() + "/report.json");
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  std::ofstream(dir.filePath(QStringLiteral("report.json")).toStdString()) << j.dump(2);
  return dir.path();
}

nlohmann::json& chat_serving(nlohmann::json& j) {
  return j["tenants"][0]["workloads"][0]["serving"];
}

// Rows of the serving table for one workload, keyed by their Run cell ("current", "baseline", "change").
std::map<QString, int> rows_of(QTableWidget* t, const QString& workload) {
  std::map<QString, int> out;
  for (int row = 0; row < t->rowCount(); ++row)
    if (t->item(row, MainWindow::COL_S_WORKLOAD)->text() == workload)
      out[t->item(row, MainWindow::COL_S_RUN)->text()] = row;
  return out;
}

QString text(QTableWidget* t, int row, int column) {
  const QTableWidgetItem* item = t->item(row, column);
  return item ? item->text() : QStringLiteral("(no item)");
}

// ---- the report model

TEST(Serving, TheServingBlockIsRead) {
  const LoadResult loaded = load_report(SERVING.toStdString());
  ASSERT_TRUE(loaded.report) << loaded.error;
  const Report& r = *loaded.report;
  ASSERT_EQ(r.workloads.size(), 3u);

  const Workload& chat = workload_named(r, "chat");
  ASSERT_TRUE(chat.continuous());
  const ServingStats& s = *chat.serving;
  EXPECT_EQ(s.batching, "continuous");
  EXPECT_EQ(s.ttft.count, 106);
  EXPECT_DOUBLE_EQ(s.ttft.p50_s, 0.135);
  EXPECT_DOUBLE_EQ(s.ttft.p99_s, 0.769);
  EXPECT_DOUBLE_EQ(s.tpot.p99_s, 0.0146);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 452.3);
  EXPECT_DOUBLE_EQ(s.generated_tokens, 13568);
  EXPECT_EQ(s.steps, 2202);
  EXPECT_EQ(s.preemptions, 0);
  EXPECT_DOUBLE_EQ(s.kv_peak, 0.0552);
  EXPECT_DOUBLE_EQ(s.goodput, 0.887);

  const Workload& bulk = workload_named(r, "bulk");
  ASSERT_TRUE(bulk.continuous());
  EXPECT_EQ(bulk.serving->preemptions, 30);
  EXPECT_TRUE(std::isnan(bulk.serving->goodput)) << "null goodput is 'no ttft/tpot SLO', not unbounded";
  EXPECT_FALSE(workload_named(r, "rerank").continuous()) << "statically batched: no serving block";

  // ttft / tpot SLOs: thresholds from their objective text, in seconds.
  ASSERT_EQ(r.slos.size(), 2u);
  EXPECT_EQ(r.slos[0].kind, "ttft");
  ASSERT_TRUE(r.slos[0].threshold);
  EXPECT_DOUBLE_EQ(*r.slos[0].threshold, 0.3);
  EXPECT_EQ(r.slos[1].kind, "tpot");
  ASSERT_TRUE(r.slos[1].threshold);
  EXPECT_DOUBLE_EQ(*r.slos[1].threshold, 0.025);
}

TEST(Serving, OlderReportsWithoutServingStillLoad) {
  const LoadResult loaded = load_report(FIXTURES.toStdString());
  ASSERT_TRUE(loaded.report) << loaded.error;
  for (const auto& w : loaded.report->workloads) EXPECT_FALSE(w.continuous()) << w.name;

  QTemporaryDir dir;
  const LoadResult null_block =
      load_report(edited_serving(dir, [](nlohmann::json& j) { chat_serving(j) = nullptr; }).toStdString());
  ASSERT_TRUE(null_block.report) << null_block.error;
  EXPECT_FALSE(workload_named(*null_block.report, "chat").continuous()) << "null is as absent";
}

TEST(Serving, AMalformedServingBlockIsAClearError) {
  const struct {
    std::function<void(nlohmann::json&)> edit;
    const char* expected;
  } cases[] = {
      {[](nlohmann::json& j) { chat_serving(j)["ttft"] = "fast"; },
       "'tenants[0].workloads[0].serving.ttft' is not an object"},
      {[](nlohmann::json& j) { chat_serving(j).erase("tpot"); },
       "missing field 'tenants[0].workloads[0].serving.tpot'"},
      {[](nlohmann::json& j) { chat_serving(j)["ttft"]["p99_s"] = "0.8 s"; },
       "'tenants[0].workloads[0].serving.ttft.p99_s' is not a number"},
      {[](nlohmann::json& j) { chat_serving(j) = 42; }, "'tenants[0].workloads[0].serving' is not an object"},
      {[](nlohmann::json& j) { chat_serving(j)["preemptions"] = "none"; },
       "'tenants[0].workloads[0].serving.preemptions' is not a number"},
      {[](nlohmann::json& j) { chat_serving(j)["kv_peak"] = 1.7; },
       "'tenants[0].workloads[0].serving.kv_peak' is 1.700000, not a share between 0 and 1"},
      {[](nlohmann::json& j) { chat_serving(j)["batching"] = true; },
       "'tenants[0].workloads[0].serving.batching' is not a string"},
  };
  for (const auto& c : cases) {
    QTemporaryDir dir;
    const LoadResult r = load_report(edited_serving(dir, c.edit).toStdString());
    EXPECT_FALSE(r.report) << c.expected;
    EXPECT_NE(r.error.find(c.expected), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("report.json"), std::string::npos) << "names the file: " << r.error;
  }
}

TEST(Serving, DeltasAndDirections) {
  const auto& m = serving_metrics();
  ASSERT_EQ(m.size(), 9u);
  EXPECT_STREQ(m[1].label, "TTFT p99");
  EXPECT_EQ(format_delta(0.9, 0.769, "s"), "+131 ms (+17%)");
  EXPECT_EQ(format_delta(400, 452.3, "tok/s"), "-52.3 tok/s (-12%)");
  EXPECT_EQ(format_delta(0.8, 0.887, "share"), "-8.7 pp");
  EXPECT_EQ(format_delta(3, 0, "count"), "+3");
  EXPECT_EQ(format_delta(1, 1, "s"), "\u00b10");
  EXPECT_EQ(format_delta(0.9, 0.769, "s", true), "+17%");
  EXPECT_EQ(format_delta(0.769, 0.771, "s", true), "-0.3%") << "small, not nothing";
  EXPECT_EQ(format_delta(0.8, 0.887, "share", true), "-8.7 pp") << "shares stay in points";
  EXPECT_EQ(format_delta(0.1, 0, "s", true), "+100 ms") << "no relative change from zero";
  EXPECT_EQ(format_delta(NO_VALUE, 0.5, "share"), "-");
  EXPECT_EQ(delta_direction(m[1], 0.9, 0.769), -1) << "a longer TTFT is worse";
  EXPECT_EQ(delta_direction(m[4], 500, 452.3), 1) << "more tokens/s is better";
  EXPECT_EQ(delta_direction(m[7], 1.0, 0.5), 0) << "KV use is neither";
  EXPECT_EQ(format_value(0.887, "share"), "88.7%");
  EXPECT_EQ(format_value(3225.6, "tok/s"), "3226 tok/s");
}

// ---- the window

TEST(Serving, TheWorkloadsTabShowsTheServingMetrics) {
  MainWindow w;
  QString error;
  ASSERT_TRUE(w.open_report(SERVING, &error)) << error.toStdString();
  EXPECT_FALSE(w.serving_panel()->isHidden());
  QTableWidget* t = w.serving_table();
  ASSERT_EQ(t->rowCount(), 3) << "every inference workload";
  EXPECT_TRUE(t->isColumnHidden(MainWindow::COL_S_RUN)) << "no baseline: one row per workload";

  const int chat = rows_of(t, QStringLiteral("chat")).at(QStringLiteral("current"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TENANT), QStringLiteral("victim"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_BATCHING), QStringLiteral("continuous"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TTFT_P50), QStringLiteral("135 ms"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TTFT_P99), QStringLiteral("769 ms"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TPOT_P50), QStringLiteral("13.9 ms"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TPOT_P99), QStringLiteral("14.6 ms"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_TOKENS), QStringLiteral("452 tok/s"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_GOODPUT), QStringLiteral("88.7%"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_KV), QStringLiteral("1.3% / 5.5%"));
  EXPECT_EQ(text(t, chat, MainWindow::COL_S_PREEMPTIONS), QStringLiteral("0"));

  const int bulk = rows_of(t, QStringLiteral("bulk")).at(QStringLiteral("current"));
  EXPECT_EQ(text(t, bulk, MainWindow::COL_S_TTFT_P99), QStringLiteral("14.3 s"));
  EXPECT_EQ(text(t, bulk, MainWindow::COL_S_GOODPUT), QStringLiteral("-")) << "no ttft/tpot SLO";
  EXPECT_TRUE(t->item(bulk, MainWindow::COL_S_GOODPUT)->toolTip().contains(QStringLiteral("no ttft or tpot SLO")));
  EXPECT_EQ(text(t, bulk, MainWindow::COL_S_KV), QStringLiteral("68.3% / 100.0%"));
  EXPECT_EQ(text(t, bulk, MainWindow::COL_S_PREEMPTIONS), QStringLiteral("30"));

  // The statically batched reranker: its row says so, and has no token numbers.
  const int rerank = rows_of(t, QStringLiteral("rerank")).at(QStringLiteral("current"));
  EXPECT_EQ(text(t, rerank, MainWindow::COL_S_BATCHING), QStringLiteral("static"));
  for (int c = MainWindow::COL_S_TTFT_P50; c < MainWindow::SERVING_COLUMNS; ++c)
    EXPECT_EQ(text(t, rerank, c), QStringLiteral("-")) << c;

  // The SLO table names the new kinds' objectives as the report does.
  EXPECT_TRUE(
      w.slo_table()->item(0, MainWindow::COL_OBJECTIVE)->text().contains(QStringLiteral("time to first token")));
}

TEST(Serving, AnOlderReportShowsDashesAndNoServingPanel) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(SERVING));
  EXPECT_FALSE(w.serving_panel()->isHidden());
  ASSERT_TRUE(w.open_report(FIXTURES));  // no serving block anywhere
  EXPECT_TRUE(w.serving_panel()->isHidden()) << "nothing batched continuously: no panel";
  QTableWidget* t = w.serving_table();
  ASSERT_EQ(t->rowCount(), 1) << "chat-svc, the one inference workload";
  EXPECT_EQ(text(t, 0, MainWindow::COL_S_BATCHING), QStringLiteral("static"));
  for (int c = MainWindow::COL_S_TTFT_P50; c < MainWindow::SERVING_COLUMNS; ++c)
    EXPECT_EQ(text(t, 0, c), QStringLiteral("-")) << c;
  EXPECT_EQ(w.workload_table()->rowCount(), 2) << "the workload table as before";
}

TEST(Serving, AMalformedServingBlockLeavesTheWindowUsable) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(SERVING));
  QTemporaryDir dir;
  QString error;
  EXPECT_FALSE(w.open_report(edited_serving(dir, [](nlohmann::json& j) { chat_serving(j)["tpot"] = "slow"; }), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("serving.tpot' is not an object"))) << error.toStdString();
  ASSERT_TRUE(w.report());
  EXPECT_EQ(w.serving_table()->rowCount(), 3) << "the report on show stays";
}

TEST(Serving, ThePinnedBaselineIsShownBesideTheCurrentRunWithTheChange) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(SERVING));
  w.pin_baseline();
  QTemporaryDir dir;
  // The "what-if": chat's first tokens come later, fewer tokens per second, a few preemptions; the
  // reranker is now batched continuously too.
  ASSERT_TRUE(w.open_report(edited_serving(dir, [](nlohmann::json& j) {
    auto& s = chat_serving(j);
    s["ttft"]["p99_s"] = 0.9;
    s["output_tokens_per_s"] = 400;
    s["preemptions"] = 3;
    s["goodput"] = 0.8;
    nlohmann::json rerank = s;
    j["tenants"][0]["workloads"][1]["serving"] = rerank;
  })));
  ASSERT_TRUE(w.baseline());
  QTableWidget* t = w.serving_table();
  EXPECT_FALSE(t->isColumnHidden(MainWindow::COL_S_RUN));
  ASSERT_EQ(t->rowCount(), 9) << "baseline, current and change for each of the three";

  const auto chat = rows_of(t, QStringLiteral("chat"));
  ASSERT_EQ(chat.size(), 3u);
  EXPECT_EQ(text(t, chat.at(QStringLiteral("baseline")), MainWindow::COL_S_TTFT_P99), QStringLiteral("769 ms"));
  EXPECT_EQ(text(t, chat.at(QStringLiteral("current")), MainWindow::COL_S_TTFT_P99), QStringLiteral("900 ms"));
  const int change = chat.at(QStringLiteral("change"));
  // The change row: relative for durations and rates (the two values are just above), the absolute
  // change in the tooltip; percentage points for shares; counts as counts.
  EXPECT_EQ(text(t, change, MainWindow::COL_S_TTFT_P99), QStringLiteral("+17%"));
  QTableWidgetItem* ttft = t->item(change, MainWindow::COL_S_TTFT_P99);
  EXPECT_EQ(ttft->toolTip(), QStringLiteral("+131 ms (+17%)"));
  EXPECT_LT(ttft->data(Qt::UserRole).toInt(), 0) << "worse";
  EXPECT_EQ(ttft->foreground().color(), violation_color());
  EXPECT_EQ(text(t, change, MainWindow::COL_S_TTFT_P50), QStringLiteral("\u00b10"));
  EXPECT_EQ(text(t, change, MainWindow::COL_S_TOKENS), QStringLiteral("-12%"));
  EXPECT_EQ(t->item(change, MainWindow::COL_S_TOKENS)->foreground().color(), violation_color()) << "fewer is worse";
  EXPECT_EQ(text(t, change, MainWindow::COL_S_GOODPUT), QStringLiteral("-8.7 pp"));
  EXPECT_EQ(text(t, change, MainWindow::COL_S_KV), QStringLiteral("\u00b10 / \u00b10"));
  EXPECT_EQ(text(t, change, MainWindow::COL_S_PREEMPTIONS), QStringLiteral("+3"));

  const auto rerank = rows_of(t, QStringLiteral("rerank"));
  EXPECT_EQ(text(t, rerank.at(QStringLiteral("baseline")), MainWindow::COL_S_TTFT_P99), QStringLiteral("-"));
  EXPECT_EQ(text(t, rerank.at(QStringLiteral("change")), MainWindow::COL_S_BATCHING),
            QStringLiteral("static \u2192 continuous"));
  EXPECT_EQ(text(t, rerank.at(QStringLiteral("change")), MainWindow::COL_S_TTFT_P99), QStringLiteral("-"));

  // The one-page summary draws both runs; clearing the baseline goes back to one row per workload.
  EXPECT_FALSE(w.render_summary(QSize(1600, 1000)).isNull());
  w.clear_baseline();
  EXPECT_EQ(t->rowCount(), 3);
  EXPECT_TRUE(t->isColumnHidden(MainWindow::COL_S_RUN));
}

// ---- the scenario's structure

const TreeNode* child_named(const TreeNode& n, const std::string& label) {
  for (const auto& c : n.children)
    if (c.label == label) return &c;
  return nullptr;
}

const TreeNode& section(const ScenarioDoc& doc, const std::string& label) {
  for (const auto& n : doc.structure)
    if (n.label == label) return n;
  throw std::runtime_error("no section " + label);
}

TEST(Serving, TheStructureDescribesBatchingAndTokenSlos) {
  const ScenarioDoc doc = load_scenario_doc((EXAMPLES + QStringLiteral("/serving/time-slicing.yaml")).toStdString());
  ASSERT_FALSE(doc.has_errors());
  const TreeNode* chat = child_named(section(doc, "Tenants"), "chat");
  ASSERT_TRUE(chat);
  const TreeNode* ttft = child_named(*chat, "SLO ttft-p99");
  ASSERT_TRUE(ttft);
  EXPECT_EQ(ttft->detail, "p99 time to first token <= 250ms per 30s window in 75% of windows (chat-svc)");
  const TreeNode* tpot = child_named(*chat, "SLO tpot-p99");
  ASSERT_TRUE(tpot);
  EXPECT_NE(tpot->detail.find("p99 time per output token <= 25ms"), std::string::npos) << tpot->detail;

  const TreeNode* svc = child_named(section(doc, "Workloads"), "chat-svc");
  ASSERT_TRUE(svc);
  EXPECT_NE(svc->detail.find("llama-3.1-8b, continuous batching"), std::string::npos) << svc->detail;
  const TreeNode* mode = child_named(*svc, "batching.mode");
  ASSERT_TRUE(mode);
  EXPECT_EQ(mode->detail,
            "continuous, up to 256 sequences, 8192 tokens per step (default: the model has an id or an architecture)");
  ASSERT_TRUE(child_named(*svc, "parallelism"));
  EXPECT_EQ(child_named(*svc, "parallelism")->detail, "tensor 1, pipeline 1");

  // Static (only a parameter count, no shape: the default) and continuous set explicitly on a
  // tensor-parallel group: the batcher's limits and the group's width.
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("structure.yaml"));
  std::ofstream(file.toStdString()) << R"(apiVersion: gputwin.dev/v1alpha1
kind: Scenario
metadata: {name: structure}
spec:
  duration: 30s
  cluster:
    nodePools:
      - {name: serve, count: 1, gpu: H100-80GB-SXM, gpusPerNode: 8, sharing: {mode: exclusive}}
  tenants:
    - name: chat
  workloads:
    - name: old
      kind: inference
      tenant: chat
      model: {parameters: 7e9}
      arrival: {process: poisson, rate: 2/s}
    - name: large
      kind: inference
      tenant: chat
      model: {id: llama-3.1-70b, dtype: fp16}
      batching: {mode: continuous, maxNumSeqs: 128}
      parallelism: {tensor: 4}
      arrival: {process: poisson, rate: 1/s}
)";
  const ScenarioDoc both = load_scenario_doc(file.toStdString());
  ASSERT_FALSE(both.has_errors()) << (both.diagnostics.empty() ? "" : both.diagnostics.front().format());
  const TreeNode* old = child_named(section(both, "Workloads"), "old");
  ASSERT_TRUE(old);
  EXPECT_NE(old->detail.find("7B params, static batching"), std::string::npos) << old->detail;
  ASSERT_TRUE(child_named(*old, "batching.mode"));
  EXPECT_EQ(child_named(*old, "batching.mode")->detail,
            "static, batches of up to 8 (default: no model.id or model.architecture)");
  EXPECT_FALSE(child_named(*old, "parallelism")) << "nothing to say for a static one-GPU replica";

  const TreeNode* large = child_named(section(both, "Workloads"), "large");
  ASSERT_TRUE(large);
  EXPECT_NE(large->detail.find("llama-3.1-70b, continuous batching, TP 4"), std::string::npos) << large->detail;
  ASSERT_TRUE(child_named(*large, "batching.mode"));
  EXPECT_EQ(child_named(*large, "batching.mode")->detail, "continuous, up to 128 sequences, 8192 tokens per step");
  ASSERT_TRUE(child_named(*large, "parallelism"));
  EXPECT_EQ(child_named(*large, "parallelism")->detail, "tensor 4, pipeline 1");
}

}  // namespace
}  // namespace gtw::gui
