// The what-if explorer: scenarios, controls, runs in a child gputwin, the comparison charts, the headless
// screenshot. Runs real (short) simulations through the built gputwin binary; offscreen Qt platform.
#include <gtest/gtest.h>

#include <QAbstractAxis>
#include <QAreaSeries>
#include <QChart>
#include <QCryptographicHash>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ChartExport.hpp"
#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "MainWindow.hpp"
#include "RunController.hpp"
#include "ScenarioModel.hpp"

namespace gtw::gui {
namespace {

const QString FIXTURES = QStringLiteral(GTW_GUI_FIXTURES);
const QString GUI_BINARY = QStringLiteral(GTW_GUI_BINARY);
const QString EXAMPLES = QStringLiteral(GTW_GUI_EXAMPLES);
const QString TIME_SLICING = EXAMPLES + QStringLiteral("/isolation/time-slicing.yaml");
const std::string SERVE_MODE = "spec.cluster.nodePools[serve].sharing|mode";

// A run is a child process; a hung one must fail the test, not block it. Not a timing assertion.
constexpr int RUN_LIMIT_MS = 240000;

bool run_and_wait(MainWindow& w) {
  QSignalSpy spy(&w, &MainWindow::run_finished);
  if (!w.run_scenario()) return false;
  if (!spy.wait(RUN_LIMIT_MS)) return false;
  return spy.front().front().toBool();
}

QByteArray sha(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

std::vector<QAbstractSeries*> series_with_prefix(QChart* chart, const char* prefix) {
  std::vector<QAbstractSeries*> out;
  if (!chart) return out;
  for (auto* s : chart->series())
    if (s->objectName().startsWith(QLatin1String(prefix))) out.push_back(s);
  return out;
}

QXYSeries* series_named(QChart* chart, const QString& name) {
  if (!chart) return nullptr;
  for (auto* s : chart->series())
    if (s->objectName() == name) return qobject_cast<QXYSeries*>(s);
  return nullptr;
}

// The latency at which a CDF series (x: seconds, y: percent) first reaches `percent`.
double latency_at(const QXYSeries* s, double percent) {
  for (const auto& p : s->points())
    if (p.y() >= percent - 1e-9) return p.x();
  return INFINITY;
}

void expect_labelled_axes(QChart* chart, const char* what) {
  ASSERT_TRUE(chart) << what;
  EXPECT_FALSE(chart->series().isEmpty()) << what;
  ASSERT_GE(chart->axes().size(), 2) << what;
  for (auto* axis : chart->axes()) EXPECT_FALSE(axis->titleText().isEmpty()) << what;
}

// ---- scenarios and controls (no runs)

TEST(Explorer, EveryBundledExampleFillsTheStructureAndTheControls) {
  const auto examples = bundled_examples();
  ASSERT_GE(examples.size(), 7u) << "default, mig-reconfigure and the isolation folder";
  for (const auto& path : examples) {
    SCOPED_TRACE(path.string());
    const QString file = QString::fromStdString(path.string());
    const QByteArray before = sha(file);
    MainWindow w;
    QString error;
    ASSERT_TRUE(w.open_scenario(file, &error)) << error.toStdString();
    ASSERT_TRUE(w.scenario());
    QTreeWidget* tree = w.structure_view();
    ASSERT_GE(tree->topLevelItemCount(), 4);
    EXPECT_EQ(tree->topLevelItem(0)->text(0), QStringLiteral("Cluster"));
    ASSERT_GE(tree->topLevelItem(0)->childCount(), 1) << "a node pool";
    QTreeWidgetItem* node = tree->topLevelItem(0)->child(0)->child(0);
    ASSERT_TRUE(node);
    EXPECT_GE(node->childCount(), 1) << "its GPUs";
    EXPECT_EQ(tree->topLevelItem(1)->childCount(), static_cast<int>(w.scenario()->spec.tenants.size()));
    EXPECT_EQ(tree->topLevelItem(2)->childCount(), static_cast<int>(w.scenario()->spec.workloads.size()));
    // Controls: seed, duration, a sharing mode per pool, the placement policy, tenant mitigations.
    EXPECT_GE(w.knob_count(), 6);
    EXPECT_FALSE(w.knob_value("run/seed").isEmpty());
    EXPECT_FALSE(w.knob_value("run/duration").isEmpty());
    EXPECT_FALSE(w.knob_value("placement").isEmpty());
    for (const auto& pool : w.scenario()->spec.node_pools)
      EXPECT_FALSE(w.knob_value("spec.cluster.nodePools[" + pool.name + "].sharing|mode").isEmpty()) << pool.name;
    EXPECT_TRUE(w.current_overrides().isEmpty()) << w.current_overrides().join(' ').toStdString();
    EXPECT_TRUE(w.run_button()->isEnabled());
    EXPECT_EQ(sha(file), before) << "opening never writes the scenario";
  }
}

TEST(Explorer, ControlsBecomeSetOverridesThatTheLoaderAccepts) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(TIME_SLICING));
  const QByteArray before = sha(TIME_SLICING);
  EXPECT_EQ(w.knob_value(SERVE_MODE), QStringLiteral("timeSlicing"));
  ASSERT_TRUE(w.set_knob(SERVE_MODE, QStringLiteral("mig")));
  ASSERT_TRUE(w.set_knob("load/chat", QStringLiteral("2")));
  ASSERT_TRUE(w.set_knob("placement", QStringLiteral("tightest-fit")));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("2m")));
  ASSERT_TRUE(w.set_knob("dedicated/research", QStringLiteral("yes")));
  // A field the window has no code for, generated from the schema: under a mapping the scenario lacks,
  // the mapping is set whole.
  ASSERT_TRUE(w.set_knob("field|spec.policies.isolation.scrubOnFree", QStringLiteral("true")));
  const QStringList o = w.current_overrides();
  EXPECT_TRUE(o.contains(QStringLiteral("spec.policies.isolation={scrubOnFree: true}"))) << o.join('\n').toStdString();
  EXPECT_TRUE(
      o.contains(QStringLiteral("spec.cluster.nodePools[serve].sharing={mode: mig, migLayout: [4g.40gb, 3g.40gb]}")))
      << o.join('\n').toStdString();
  EXPECT_TRUE(o.contains(QStringLiteral("spec.workloads[chat-svc].arrival.rate=36/s"))) << o.join('\n').toStdString();
  EXPECT_TRUE(o.contains(QStringLiteral("spec.policies.placement={name: tightest-fit}")));
  EXPECT_TRUE(o.contains(QStringLiteral("spec.duration=2m")));
  EXPECT_TRUE(o.contains(QStringLiteral("spec.workloads[finetune].placement={sharing: [exclusive], nodePool: train}")));
  std::vector<std::string> overrides;
  for (const auto& s : o) overrides.push_back(s.toStdString());
  for (const auto& d : check_overrides(TIME_SLICING.toStdString(), overrides))
    EXPECT_NE(d.severity, Severity::ERROR) << d.format();
  EXPECT_TRUE(w.overrides_view()->toPlainText().contains(QStringLiteral("mode: mig")));
  EXPECT_EQ(sha(TIME_SLICING), before) << "the scenario file is never modified";

  ASSERT_TRUE(w.set_knob(SERVE_MODE, QStringLiteral("timeSlicing")));
  ASSERT_TRUE(w.set_knob("load/chat", QStringLiteral("1")));
  ASSERT_TRUE(w.set_knob("placement", QStringLiteral("spread")));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("10m")));
  ASSERT_TRUE(w.set_knob("dedicated/research", QStringLiteral("no")));
  ASSERT_TRUE(w.set_knob("field|spec.policies.isolation.scrubOnFree", QString()));
  EXPECT_TRUE(w.current_overrides().isEmpty()) << "back to the scenario as written";
}

TEST(Explorer, SharingFieldsKnowTheirModesFromTheSchema) {
  const ScenarioDoc doc = load_scenario_doc(TIME_SLICING.toStdString());
  ASSERT_FALSE(doc.has_errors());
  const auto find = [&](const std::string& field) -> const Knob* {
    for (const auto& k : doc.knobs)
      if (k.key == "spec.cluster.nodePools[serve].sharing|" + field) return &k;
    return nullptr;
  };
  ASSERT_TRUE(find("mode"));
  EXPECT_GE(find("mode")->choices.size(), 6u) << "every sharing mode of the schema";
  ASSERT_TRUE(find("timeSlice"));
  EXPECT_EQ(find("timeSlice")->modes, std::vector<std::string>{"timeSlicing"});
  ASSERT_TRUE(find("migLayout"));
  EXPECT_EQ(find("migLayout")->modes, std::vector<std::string>{"mig"});
  EXPECT_FALSE(find("migLayout")->suggestions.empty()) << "layouts from the H100 profile";
  ASSERT_TRUE(find("replicas"));
  EXPECT_EQ(find("replicas")->initial, "2");
}

TEST(Explorer, AScenarioWithErrorsShowsThemAndNoRunStarts) {
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
  std::ofstream(bad.toStdString()) << "apiVersion: gputwin.dev/v1alpha1\n"
                                      "kind: Scenario\n"
                                      "metadata: {name: bad}\n"
                                      "spec:\n"
                                      "  duration: 10 minutes\n"
                                      "  cluster:\n"
                                      "    nodePools:\n"
                                      "      - {name: p, count: 1, gpu: H100-80GB-SXM, gpusPerNode: 2}\n"
                                      "  tenants:\n"
                                      "    - {name: a, clasification: internal}\n"
                                      "  workloads: []\n";
  MainWindow w;
  QString error;
  EXPECT_FALSE(w.open_scenario(bad, &error));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.yaml:"))) << error.toStdString();
  QListWidget* list = w.diagnostics_view();
  EXPECT_FALSE(list->isHidden());
  const QRegularExpression located(QStringLiteral(R"(bad\.yaml:(\d+):\d+: error: )"));
  QSet<QString> lines;
  for (int i = 0; i < list->count(); ++i)
    if (const auto m = located.match(list->item(i)->text()); m.hasMatch()) lines << m.captured(1);
  EXPECT_TRUE(lines.contains(QStringLiteral("5"))) << "the duration's line";
  EXPECT_TRUE(lines.contains(QStringLiteral("10"))) << "the misspelt key's line";
  EXPECT_FALSE(w.run_button()->isEnabled());
  EXPECT_FALSE(w.run_scenario());
  EXPECT_EQ(w.runner()->started(), 0);
  EXPECT_FALSE(w.running());

  // A valid scenario with an invalid change: the change is refused before anything runs.
  ASSERT_TRUE(w.open_scenario(TIME_SLICING));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("ten minutes")));
  EXPECT_FALSE(w.run_scenario());
  EXPECT_EQ(w.runner()->started(), 0);
  bool named = false;
  for (int i = 0; i < list->count(); ++i)
    named = named || list->item(i)->text().contains(QStringLiteral("spec.duration"));
  EXPECT_TRUE(named);
}

// ---- runs

TEST(Explorer, TimeSlicingToMigTradesChatCapacityForPredictabilityAndTheChartsShowBothRuns) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(TIME_SLICING));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("3m")));
  ASSERT_TRUE(run_and_wait(w)) << w.diagnostics_view()->count();
  ASSERT_TRUE(w.report());
  EXPECT_GE(w.runner()->arguments().indexOf(QStringLiteral("spec.duration=3m")), 0);
  w.pin_baseline();
  ASSERT_TRUE(w.baseline());

  ASSERT_TRUE(w.set_knob(SERVE_MODE, QStringLiteral("mig")));
  ASSERT_TRUE(run_and_wait(w));
  ASSERT_TRUE(w.report());
  for (const auto& g : w.report()->gpus)
    if (g.pool == "serve") {
      EXPECT_EQ(g.sharing, "mig");
    }

  // What the partition models predict (docs/models/partitions.md, "MIG buys predictability with capacity"):
  // chat's decode is memory-bound and a 4g/3g instance has about half the GPU's memory bandwidth, so its
  // median latency rises (about 2x); time-slicing stretched the tail with the batch tenant's quanta, which MIG
  // removes, so the distribution gets much narrower (p99 / p50 falls).
  QChart* cdf = w.cdf_chart()->chart();
  ASSERT_TRUE(cdf);
  QXYSeries* now = series_named(cdf, QStringLiteral("now:chat/chat-svc"));
  QXYSeries* base = series_named(cdf, QStringLiteral("base:chat/chat-svc"));
  ASSERT_TRUE(now && base);
  EXPECT_GT(latency_at(now, 50), 1.5 * latency_at(base, 50));
  EXPECT_LT(latency_at(now, 99) / latency_at(now, 50), 0.75 * latency_at(base, 99) / latency_at(base, 50));
  EXPECT_EQ(base->pen().style(), Qt::DashLine);
  bool slo_line = false;
  for (auto* s : cdf->series()) slo_line = slo_line || s->objectName().startsWith(QLatin1String("slo:chat"));
  EXPECT_TRUE(slo_line) << "chat's latency SLO drawn at its threshold";

  // Every comparison chart draws both runs.
  for (ChartPanel* panel : {w.cdf_chart(), w.violation_chart(), w.utilisation_chart(), w.placement_chart()}) {
    EXPECT_FALSE(series_with_prefix(panel->chart(), NOW_PREFIX).empty());
    EXPECT_FALSE(series_with_prefix(panel->chart(), BASE_PREFIX).empty());
  }
  ASSERT_TRUE(w.leakage_chart()->chart());
  EXPECT_TRUE(w.leakage_chart()->chart()->title().contains(QStringLiteral("baseline")));
  for (ChartPanel* panel :
       {w.cdf_chart(), w.violation_chart(), w.utilisation_chart(), w.leakage_chart(), w.placement_chart()})
    expect_labelled_axes(panel->chart(), "overview chart");
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("baseline")));

  const QImage summary = w.render_summary(QSize(1600, 1000));
  ASSERT_FALSE(summary.isNull());
  QTemporaryDir dir;
  const ExportResult out = export_whatif_charts(*w.report(), w.baseline(), dir.path(), {}, {}, QSize(800, 450));
  ASSERT_TRUE(out.error.isEmpty()) << out.error.toStdString();
  for (const char* f : {"latency-cdf.png", "sla-violations.png", "utilisation-over-time.png", "leakage-heatmap.png",
                        "placements.png", "summary.png"})
    EXPECT_TRUE(QFile::exists(dir.filePath(QLatin1String(f)))) << f;

  w.clear_baseline();
  EXPECT_TRUE(series_with_prefix(w.cdf_chart()->chart(), BASE_PREFIX).empty());
}

TEST(Explorer, CancelStopsTheRunAndKeepsTheWindowUsable) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(TIME_SLICING));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("2h")));
  QSignalSpy spy(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.run_scenario());
  EXPECT_TRUE(w.running());
  EXPECT_FALSE(w.run_button()->isEnabled());
  EXPECT_FALSE(w.run_scenario()) << "one run at a time";
  w.cancel_run();
  ASSERT_TRUE(spy.wait(RUN_LIMIT_MS));
  EXPECT_FALSE(spy.front().front().toBool());
  EXPECT_FALSE(w.running());
  EXPECT_TRUE(w.run_button()->isEnabled());
  EXPECT_EQ(w.report(), nullptr);
}

TEST(Explorer, HeadlessScreenshotRunsTheScenarioAndDrawsLabelledCharts) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("main.png"));
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(GUI_BINARY,
          {QStringLiteral("--screenshot"), png, QStringLiteral("--set"), QStringLiteral("spec.duration=2m"),
           QStringLiteral("--compare"),
           QStringLiteral("spec.cluster.nodePools[serve].sharing={mode: mig, migLayout: [4g.40gb, 3g.40gb]}"),
           TIME_SLICING});
  ASSERT_TRUE(p.waitForFinished(2 * RUN_LIMIT_MS));
  ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  const QImage img(png);
  ASSERT_FALSE(img.isNull());
  EXPECT_GE(img.width(), 1200);
  EXPECT_GE(img.height(), 800);
  // The charts fill the right-hand side: a good share of its pixels are neither white nor the window grey.
  int inked = 0, total = 0;
  for (int y = img.height() / 4; y < img.height() * 9 / 10; y += 4)
    for (int x = img.width() / 3; x < img.width() - 10; x += 4) {
      const QColor c = img.pixelColor(x, y);
      ++total;
      if (c.lightness() < 200 || c.saturation() > 60) ++inked;
    }
  EXPECT_GT(inked, total / 50) << inked << " of " << total;

  // A scenario with errors: exit 2 with the located diagnostics, no screenshot.
  const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
  std::ofstream(bad.toStdString())
      << "apiVersion: gputwin.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec: {durationn: 1m}\n";
  const QString png2 = dir.filePath(QStringLiteral("bad.png"));
  p.start(GUI_BINARY, {QStringLiteral("--screenshot"), png2, bad});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_EQ(p.exitCode(), 2);
  EXPECT_TRUE(QString::fromLocal8Bit(p.readAllStandardError()).contains(QStringLiteral("bad.yaml:4:")));
  EXPECT_FALSE(QFile::exists(png2));
}

// ---- charts and tables from hand-written reports

QString fixture_with(const QTemporaryDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(FIXTURES.toStdString() + "/report.json");
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  std::ofstream(dir.filePath(QStringLiteral("report.json")).toStdString()) << j.dump(2);
  return dir.path();
}

nlohmann::json leakage_section() {
  return nlohmann::json::parse(R"({
    "totals": {"bits": 3000, "bytes": 0, "open_channels": 3, "unquantified_channels": 1},
    "channels": [
      {"observer": "analytics", "source": "chat", "resource": "l2", "mode": "timeSlicing", "state": "open",
       "exposure_s": 100, "capacity_bps": 20, "bound_bits": 2000},
      {"observer": "analytics", "source": "chat", "resource": "sm", "mode": "timeSlicing", "state": "open",
       "exposure_s": 100, "capacity_bps": 10, "bound_bits": 1000},
      {"observer": "chat", "source": "analytics", "resource": "hbm", "mode": "timeSlicing", "state": "open-unquantified",
       "exposure_s": 100, "capacity_bps": null, "bound_bits": null}],
    "discrete": []})");
}

TEST(ExplorerCharts, LeakageHeatmapHasACellPerPairAndFiltersByChannel) {
  QTemporaryDir dir;
  const auto loaded =
      load_report(fixture_with(dir, [](nlohmann::json& j) { j["leakage"] = leakage_section(); }).toStdString());
  ASSERT_TRUE(loaded.report) << loaded.error;
  const Report& r = *loaded.report;
  EXPECT_EQ(leakage_resources(r, nullptr), (QStringList{"hbm", "l2", "sm"}));
  std::unique_ptr<QChart> all(make_leakage_heatmap(r, nullptr));
  ASSERT_TRUE(all);
  int cells = 0;
  QStringList labels;
  // The cells and their labels (the colour bar beside them has areas and labels of its own).
  for (auto* s : all->series()) {
    if (qobject_cast<QAreaSeries*>(s) && s->objectName().startsWith(QLatin1String("cell:"))) ++cells;
    if (auto* t = qobject_cast<QScatterSeries*>(s); t && s->objectName().startsWith(QLatin1String("label:")))
      labels << t->pointLabelsFormat();
  }
  EXPECT_EQ(cells, 4) << "2 tenants: 2 x 2";
  EXPECT_TRUE(labels.contains(QStringLiteral("3 kbit"))) << labels.join('|').toStdString();
  EXPECT_TRUE(labels.contains(QStringLiteral("open ?")));
  EXPECT_TRUE(all->title().contains(QStringLiteral("3 kbit")));
  std::unique_ptr<QChart> l2(make_leakage_heatmap(r, nullptr, QStringLiteral("l2")));
  labels.clear();
  for (auto* s : l2->series())
    if (auto* t = qobject_cast<QScatterSeries*>(s); t && s->objectName().startsWith(QLatin1String("label:")))
      labels << t->pointLabelsFormat();
  EXPECT_TRUE(labels.contains(QStringLiteral("2 kbit")));
  EXPECT_FALSE(labels.contains(QStringLiteral("open ?")));
  EXPECT_EQ(make_leakage_heatmap(r, nullptr, QStringLiteral("l2")) != nullptr, true);
}

TEST(ExplorerCharts, ComplianceTableOrAnEmptyState) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(FIXTURES));
  EXPECT_FALSE(w.compliance_placeholder()->text().isEmpty());
  EXPECT_EQ(w.compliance_table()->rowCount(), 0);

  QTemporaryDir dir;
  const QString with = fixture_with(dir, [](nlohmann::json& j) {
    j["compliance"] = nlohmann::json::parse(R"J({"findings": [
      {"rule": "scrub-on-free", "status": "fail", "severity": "high", "requirements": ["HIPAA 164.312(c)"],
       "evidence": {"events": [12, 40]}},
      {"rule": "data-residency", "status": "pass", "severity": "medium", "requirements": ["GDPR Art. 44"]}]})J");
  });
  ASSERT_TRUE(w.open_report(with));
  ASSERT_EQ(w.compliance_table()->rowCount(), 2);
  EXPECT_EQ(w.compliance_table()->item(0, 1)->text(), QStringLiteral("scrub-on-free"));
  EXPECT_EQ(w.compliance_table()->item(0, 2)->foreground().color(), violation_color());
  EXPECT_TRUE(w.compliance_table()->item(0, 4)->text().contains(QStringLiteral("HIPAA")));
  // The headline gives the compliance verdict next to the SLOs'.
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("1 of 2 compliance rules fail: scrub-on-free")))
      << w.header()->text().toStdString();
}

// The Quotas tab: a sentence when no tenant has a quota; else a row per tenant, the fair-sharing columns only
// when the run had fair sharing, an unbounded share (weight 0 while borrowing) said in words.
TEST(ExplorerCharts, QuotaTableOrAnEmptyState) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(FIXTURES));
  EXPECT_TRUE(w.quota_placeholder()->text().contains(QStringLiteral("No quotas")))
      << w.quota_placeholder()->text().toStdString();
  EXPECT_EQ(w.quota_table()->rowCount(), 0);
  const auto row = [](const char* tenant, int peak, int preempted, const char* fair) {
    return nlohmann::json::parse(
        std::string(R"J({"tenant": ")J") + tenant +
        R"J(", "nominal_gpus": 4, "borrowing_limit": null, "lending_limit": null, "peak_gpus": )J" +
        std::to_string(peak) +
        R"J(, "gpu_seconds": 1276, "borrowed_gpu_seconds": 440, "admissions": 10, "queued": 4,
                                 "total_wait_s": 300, "max_wait_s": 109.84, "preempted": )J" +
        std::to_string(preempted) +
        R"J(, "preempted_within_queue": 0, "reclaimed": 0, "still_queued": ["beta-3"],
                                 "resources": [])J" +
        (*fair ? std::string(", \"fair_sharing\": ") + fair : std::string()) + "}");
  };
  QTemporaryDir dir;
  const QString fair = fixture_with(dir, [&](nlohmann::json& j) {
    j["quotas"] =
        nlohmann::json::array({row("alpha", 12, 4, R"J({"weight": 1, "peak_share": 666.67, "mean_share": 49.2})J"),
                               row("beta", 6, 0, R"J({"weight": 0, "peak_share": null, "mean_share": null})J")});
  });
  ASSERT_TRUE(w.open_report(fair));
  ASSERT_EQ(w.quota_table()->rowCount(), 2);
  EXPECT_EQ(w.quota_table()->item(0, 1)->text(), QStringLiteral("alpha"));
  EXPECT_EQ(w.quota_table()->item(0, 3)->text(), QStringLiteral("12"));
  EXPECT_EQ(w.quota_table()->item(0, 8)->foreground().color(), violation_color()) << "preempted";
  EXPECT_EQ(w.quota_table()->item(0, 10)->text(), QStringLiteral("beta-3"));
  EXPECT_EQ(w.quota_table()->item(0, 12)->text(), QStringLiteral("667"));
  EXPECT_EQ(w.quota_table()->item(1, 12)->text(), QStringLiteral("unbounded"));
  EXPECT_FALSE(w.quota_table()->isColumnHidden(12));
  QTemporaryDir dir2;
  const QString classical =
      fixture_with(dir2, [&](nlohmann::json& j) { j["quotas"] = nlohmann::json::array({row("alpha", 4, 0, "")}); });
  ASSERT_TRUE(w.open_report(classical));
  ASSERT_EQ(w.quota_table()->rowCount(), 1);
  EXPECT_TRUE(w.quota_table()->isColumnHidden(12)) << "no fair sharing: no share columns";
}

TEST(ExplorerCharts, OlderReportsWithoutTimeSeriesGiveSentencesNotEmptyCharts) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(FIXTURES));  // the fixture predates latency_cdf, utilisation_windows, placements
  ASSERT_TRUE(w.cdf_chart()->chart()) << "a CDF from the percentiles";
  EXPECT_EQ(w.utilisation_chart()->chart(), nullptr);
  EXPECT_FALSE(w.utilisation_chart()->placeholder().isEmpty());
  EXPECT_EQ(w.placement_chart()->chart(), nullptr);
  ASSERT_TRUE(w.violation_chart()->chart());
  expect_labelled_axes(w.violation_chart()->chart(), "violations");
}

}  // namespace
}  // namespace gtw::gui
