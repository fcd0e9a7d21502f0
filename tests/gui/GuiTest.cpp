// gputwin-gui: the report model, the chart builders, the window and the binary's headless modes, on a
// small hand-written report (tests/gui/fixtures/report.json: 2 tenants, 3 SLOs of which chat/p99-latency
// is missed, 4 GPUs). Runs on the offscreen Qt platform: no display needed.
#include <gtest/gtest.h>

#include <QAbstractBarSeries>
#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QPieSeries>
#include <QProcess>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "ChartExport.hpp"
#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "MainWindow.hpp"
#include "ReportModel.hpp"

namespace gtw::gui {
namespace {

const QString FIXTURES = QStringLiteral(GTW_GUI_FIXTURES);
const QString GUI_BINARY = QStringLiteral(GTW_GUI_BINARY);

// One QApplication for the whole process, created before the first test and destroyed after the last.
class QtEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) qputenv("XDG_RUNTIME_DIR", "/tmp/gtw-xdg");
    // Qt wants its runtime directory to exist and be private; otherwise it only warns, but noisily.
    const std::filesystem::path xdg = qgetenv("XDG_RUNTIME_DIR").toStdString();
    std::error_code ec;
    std::filesystem::create_directories(xdg, ec);
    std::filesystem::permissions(xdg, std::filesystem::perms::owner_all, ec);
    app_ = std::make_unique<QApplication>(argc_, argv_);
  }
  void TearDown() override { app_.reset(); }

 private:
  static inline char name_[] = "gtw_gui_tests";
  static inline char* argv_[] = {name_, nullptr};
  static inline int argc_ = 1;
  std::unique_ptr<QApplication> app_;
};

[[maybe_unused]] ::testing::Environment* const qt_environment = ::testing::AddGlobalTestEnvironment(new QtEnvironment);

Report fixture() {
  LoadResult loaded = load_report(FIXTURES.toStdString());
  if (!loaded.report) throw std::runtime_error("fixture does not load: " + loaded.error);
  return *loaded.report;
}

const Slo& slo_named(const Report& r, const std::string& name) {
  for (const auto& s : r.slos)
    if (s.name == name) return s;
  throw std::runtime_error("no SLO " + name);
}

template <typename T>
T* series_named(QChart* chart, const char* name) {
  for (auto* s : chart->series())
    if (s->objectName() == QLatin1String(name)) return qobject_cast<T*>(s);
  return nullptr;
}

// The fixture with one edit, written to `dir`/report.json.
QString edited_fixture(const QTemporaryDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(FIXTURES.toStdString() + "/report.json");
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  std::ofstream(dir.filePath(QStringLiteral("report.json")).toStdString()) << j.dump(2);
  return dir.path();
}

struct GuiRun {
  int exit_code = -1;
  QString err;
};

GuiRun run_gui(const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(GUI_BINARY, args);
  if (!p.waitForFinished(60000)) return {};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromLocal8Bit(p.readAllStandardError())};
}

// ---- the report model

TEST(ReportModel, LoadsTheFixture) {
  const Report r = fixture();
  EXPECT_EQ(r.schema_version, "1.0");
  EXPECT_EQ(r.scenario.name, "gui-fixture");
  EXPECT_EQ(r.scenario.seed, 7);
  ASSERT_EQ(r.tenants.size(), 2u);
  ASSERT_EQ(r.slos.size(), 3u);
  EXPECT_EQ(r.slos_missed(), 1);
  EXPECT_EQ(r.workloads.size(), 2u);
  ASSERT_EQ(r.gpus.size(), 4u);

  const Slo& p99 = slo_named(r, "p99-latency");
  EXPECT_EQ(p99.tenant, "chat");
  EXPECT_FALSE(p99.met);
  EXPECT_EQ(p99.violated, 3);
  EXPECT_EQ(p99.evaluated, 5);
  ASSERT_EQ(p99.windows.size(), 5u);
  EXPECT_TRUE(std::isinf(p99.windows[2].value)) << "null in report.json means unbounded";
  EXPECT_TRUE(std::isinf(p99.worst));
  ASSERT_TRUE(p99.threshold);
  EXPECT_DOUBLE_EQ(*p99.threshold, 2.5);
  EXPECT_EQ(p99.bound, Bound::AT_MOST);
  ASSERT_EQ(p99.attribution.size(), 3u);
  EXPECT_EQ(p99.attribution[1].who, "analytics");

  const Slo& rate = slo_named(r, "throughput");
  EXPECT_FALSE(rate.error_budget_burn) << "null burn is 'not defined', not a number";
  ASSERT_TRUE(rate.threshold);
  EXPECT_DOUBLE_EQ(*rate.threshold, 20);
  EXPECT_EQ(rate.bound, Bound::AT_LEAST);
  EXPECT_TRUE(slo_named(r, "job-turnaround").per_job());

  EXPECT_TRUE(r.workloads[0].inference());
  EXPECT_DOUBLE_EQ(r.workloads[0].latency.p99_s, 3.05);
  EXPECT_DOUBLE_EQ(r.workloads[1].mean_slowdown, 4.2);
  // utilisation_by_tenant comes back in tenant order, not the alphabetical order of the JSON library.
  ASSERT_EQ(r.gpus[2].utilisation_by_tenant.size(), 2u);
  EXPECT_EQ(r.gpus[2].utilisation_by_tenant[0].tenant, "chat");
  EXPECT_EQ(r.gpus[2].sharing, "timeSlicing");
  EXPECT_EQ(r.gpus[2].slot_count, 2);
}

TEST(ReportModel, AcceptsTheReportJsonPathItself) {
  const LoadResult loaded = load_report((FIXTURES + QStringLiteral("/report.json")).toStdString());
  ASSERT_TRUE(loaded.report) << loaded.error;
  EXPECT_EQ(loaded.report->slos.size(), 3u);
}

TEST(ReportModel, MissingFileIsAnError) {
  const LoadResult gone = load_report("/nonexistent/gputwin-out");
  EXPECT_FALSE(gone.report);
  EXPECT_NE(gone.error.find("/nonexistent/gputwin-out"), std::string::npos) << gone.error;

  QTemporaryDir empty;
  const LoadResult none = load_report(empty.path().toStdString());
  EXPECT_FALSE(none.report);
  EXPECT_NE(none.error.find("no report.json"), std::string::npos) << none.error;
}

TEST(ReportModel, WrongSchemaVersionIsAnError) {
  QTemporaryDir dir;
  const LoadResult loaded =
      load_report(edited_fixture(dir, [](nlohmann::json& j) { j["schema_version"] = "2.0"; }).toStdString());
  EXPECT_FALSE(loaded.report);
  EXPECT_NE(loaded.error.find("schema_version '2.0'"), std::string::npos) << loaded.error;

  const LoadResult absent =
      load_report(edited_fixture(dir, [](nlohmann::json& j) { j.erase("schema_version"); }).toStdString());
  EXPECT_FALSE(absent.report);
  EXPECT_NE(absent.error.find("schema_version"), std::string::npos) << absent.error;
}

TEST(ReportModel, MalformedJsonIsAnError) {
  for (const std::string& text : {std::string("{\"schema_version\": \"1.0\", \"tenants\": ["), std::string(),
                                  std::string("[1, 2]"), std::string("not json")}) {
    const LoadResult r = parse_report(text, "x/report.json");
    EXPECT_FALSE(r.report) << text;
    EXPECT_NE(r.error.find("x/report.json"), std::string::npos) << r.error;
  }
  QTemporaryDir dir;
  std::ofstream(dir.filePath(QStringLiteral("report.json")).toStdString()) << "{\"schema_version\": ";
  const LoadResult r = load_report(dir.path().toStdString());
  EXPECT_FALSE(r.report);
  EXPECT_NE(r.error.find("malformed JSON"), std::string::npos) << r.error;
}

TEST(ReportModel, AMissingOrMistypedFieldIsNamed) {
  QTemporaryDir dir;
  const LoadResult missing = load_report(
      edited_fixture(dir, [](nlohmann::json& j) { j["tenants"][0]["slos"][1].erase("met"); }).toStdString());
  EXPECT_FALSE(missing.report);
  EXPECT_NE(missing.error.find("tenants[0].slos[1].met"), std::string::npos) << missing.error;

  const LoadResult mistyped =
      load_report(edited_fixture(dir, [](nlohmann::json& j) { j["gpus"] = "four"; }).toStdString());
  EXPECT_FALSE(mistyped.report);
  EXPECT_NE(mistyped.error.find("gpus"), std::string::npos) << mistyped.error;
}

TEST(ReportModel, ParsesObjectiveBoundsInTheSloUnit) {
  const auto ms = parse_objective_bound("p99 latency <= 250.00 ms per 60.00 s window");
  ASSERT_TRUE(ms);
  EXPECT_DOUBLE_EQ(ms->first, 0.25);
  EXPECT_EQ(ms->second, Bound::AT_MOST);
  const auto rate = parse_objective_bound("completed requests >= 12.5/s per 2.0 min window");
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(rate->first, 12.5);
  EXPECT_EQ(rate->second, Bound::AT_LEAST);
  EXPECT_DOUBLE_EQ(parse_objective_bound("job slowdown vs alone <= 1.1x")->first, 1.1);
  EXPECT_DOUBLE_EQ(parse_objective_bound("job completion <= 2.0 min")->first, 120);
  EXPECT_FALSE(parse_objective_bound("whatever"));
  EXPECT_FALSE(parse_objective_bound("latency <= soon"));
}

TEST(ReportModel, FormatsValuesForPeople) {
  EXPECT_EQ(format_value(2.5, "s"), "2.5 s");
  EXPECT_EQ(format_value(0.0123, "s"), "12.3 ms");
  EXPECT_EQ(format_value(600, "s"), "10 min");
  EXPECT_EQ(format_value(29.2, "1/s"), "29.2/s");
  EXPECT_EQ(format_value(1.0, "x"), "1.00x");
  EXPECT_EQ(format_value(INFINITY, "s"), "unbounded");
  EXPECT_EQ(format_value(NO_VALUE, "s"), "-");
}

// ---- the charts

TEST(Charts, WindowChartOfAMissedSloHasThresholdAndViolatedPoints) {
  const Report r = fixture();
  const Slo& p99 = slo_named(r, "p99-latency");
  std::unique_ptr<QChart> chart(make_slo_window_chart(p99, r.scenario.duration_s, tenant_color(0)));
  ASSERT_TRUE(chart);

  auto* values = series_named<QXYSeries>(chart.get(), SERIES_VALUES);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->count(), 5);
  EXPECT_TRUE(qobject_cast<QLineSeries*>(values)) << "windows are joined by a line";

  auto* threshold = series_named<QLineSeries>(chart.get(), SERIES_THRESHOLD);
  ASSERT_TRUE(threshold);
  ASSERT_EQ(threshold->count(), 2);
  EXPECT_DOUBLE_EQ(threshold->at(0).y(), 2.5);
  EXPECT_DOUBLE_EQ(threshold->at(1).y(), 2.5);
  EXPECT_LT(threshold->at(0).x(), threshold->at(1).x());

  auto* violated = series_named<QScatterSeries>(chart.get(), SERIES_VIOLATED);
  ASSERT_TRUE(violated);
  EXPECT_EQ(violated->count(), 3);
  // The unbounded window is drawn, on the top of the chart, above every finite value.
  const QPointF unbounded = violated->at(1);
  EXPECT_DOUBLE_EQ(unbounded.x(), 120);
  EXPECT_TRUE(std::isfinite(unbounded.y()));
  EXPECT_GT(unbounded.y(), 3.1);
}

TEST(Charts, WindowChartOfAMetJobSloShowsJobsWithoutViolations) {
  const Report r = fixture();
  std::unique_ptr<QChart> chart(
      make_slo_window_chart(slo_named(r, "job-turnaround"), r.scenario.duration_s, tenant_color(1)));
  auto* values = series_named<QXYSeries>(chart.get(), SERIES_VALUES);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->count(), 6);
  EXPECT_TRUE(qobject_cast<QScatterSeries*>(values)) << "independent jobs are points, not a line";
  ASSERT_TRUE(series_named<QLineSeries>(chart.get(), SERIES_THRESHOLD));
  EXPECT_DOUBLE_EQ(series_named<QLineSeries>(chart.get(), SERIES_THRESHOLD)->at(0).y(), 60);
  EXPECT_EQ(series_named<QScatterSeries>(chart.get(), SERIES_VIOLATED)->count(), 0);
}

TEST(Charts, GpuChartHasOneBarSetPerTenant) {
  const Report r = fixture();
  std::unique_ptr<QChart> chart(make_gpu_utilisation_chart(r));
  ASSERT_TRUE(chart);
  ASSERT_EQ(chart->series().size(), 1);
  auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().front());
  ASSERT_TRUE(bars);
  ASSERT_EQ(bars->barSets().size(), 2);
  EXPECT_EQ(bars->barSets()[0]->label(), QStringLiteral("chat"));
  EXPECT_EQ(bars->barSets()[1]->label(), QStringLiteral("analytics"));
  for (auto* set : bars->barSets()) EXPECT_EQ(set->count(), 4);

  QStringList categories;
  for (auto* axis : chart->axes())
    if (auto* c = qobject_cast<QBarCategoryAxis*>(axis)) categories = c->categories();
  EXPECT_EQ(categories.size(), 4);
  EXPECT_TRUE(categories.contains(QStringLiteral("GPU 0 (exclusive)"))) << categories.join(',').toStdString();
  EXPECT_TRUE(categories.contains(QStringLiteral("GPU 3 (timeSlicing)")));
  // GPU 3 is listed first (bottom-up axis, GPU 0 on top): chat 61%, analytics 30%.
  EXPECT_DOUBLE_EQ(bars->barSets()[0]->at(0), 61);
  EXPECT_DOUBLE_EQ(bars->barSets()[1]->at(0), 30);
}

TEST(Charts, LatencyChartGroupsPercentilesPerInferenceWorkload) {
  const Report r = fixture();
  std::unique_ptr<QChart> chart(make_latency_chart(r));
  ASSERT_TRUE(chart);
  auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().front());
  ASSERT_TRUE(bars);
  ASSERT_EQ(bars->barSets().size(), 3);
  EXPECT_EQ(bars->barSets()[0]->label(), QStringLiteral("p50"));
  EXPECT_EQ(bars->barSets()[2]->label(), QStringLiteral("p99"));
  EXPECT_EQ(bars->barSets()[2]->count(), 1) << "one inference workload";
  EXPECT_DOUBLE_EQ(bars->barSets()[2]->at(0), 3.05);

  Report no_inference = r;
  std::erase_if(no_inference.workloads, [](const Workload& w) { return w.inference(); });
  EXPECT_EQ(make_latency_chart(no_inference), nullptr) << "nothing to draw is no chart, not an empty one";
}

TEST(Charts, AttributionOnlyForSlosWithOne) {
  const Report r = fixture();
  std::unique_ptr<QChart> chart(make_attribution_chart(slo_named(r, "p99-latency"), r));
  ASSERT_TRUE(chart);
  auto* pie = qobject_cast<QPieSeries*>(chart->series().front());
  ASSERT_TRUE(pie);
  EXPECT_EQ(pie->count(), 3);
  EXPECT_NEAR(pie->sum(), 1.0, 1e-9);
  EXPECT_EQ(make_attribution_chart(slo_named(r, "throughput"), r), nullptr);
}

TEST(Charts, ExportWritesEveryChart) {
  QTemporaryDir dir;
  const ExportResult out = export_charts(fixture(), dir.filePath(QStringLiteral("charts")), QSize(640, 360));
  ASSERT_TRUE(out.error.isEmpty()) << out.error.toStdString();
  // latency, GPUs, 3 SLO window charts, 1 attribution
  EXPECT_EQ(out.files.size(), 6) << out.files.join(' ').toStdString();
  for (const auto& f : out.files) {
    const QImage img(f);
    EXPECT_FALSE(img.isNull()) << f.toStdString();
    EXPECT_GE(img.height(), 360) << f.toStdString();
  }
}

// ---- the window

TEST(MainWindow, FillsTheSloTableAndMarksTheMissedSlo) {
  MainWindow w;
  QString error;
  ASSERT_TRUE(w.open_report(FIXTURES, &error)) << error.toStdString();
  QTableWidget* table = w.slo_table();
  ASSERT_EQ(table->rowCount(), 3);
  int missed_rows = 0;
  for (int row = 0; row < table->rowCount(); ++row) {
    const QTableWidgetItem* status = table->item(row, MainWindow::COL_STATUS);
    ASSERT_TRUE(status);
    const bool met = status->data(Qt::UserRole).toBool();
    if (met) {
      EXPECT_FALSE(status->text().contains(QStringLiteral("MISSED")));
      continue;
    }
    ++missed_rows;
    EXPECT_EQ(table->item(row, MainWindow::COL_SLO)->text(), QStringLiteral("p99-latency"));
    EXPECT_TRUE(status->text().contains(QStringLiteral("MISSED")));
    EXPECT_EQ(status->foreground().color(), violation_color());
    EXPECT_EQ(table->item(row, MainWindow::COL_VIOLATED)->text(), QStringLiteral("3 / 5"));
  }
  EXPECT_EQ(missed_rows, 1);
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("1 of 3 SLOs missed")));
  EXPECT_TRUE(w.header()->text().contains(violation_color().name()));
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("gui-fixture")));
}

TEST(MainWindow, OpensOnTheMissedSloAndFollowsTheSelection) {
  MainWindow w;
  ASSERT_TRUE(w.open_report(FIXTURES));
  ASSERT_EQ(w.selected_slo(), 0) << "chat/p99-latency, the missed one";
  ASSERT_TRUE(w.slo_chart()->chart());
  EXPECT_EQ(series_named<QScatterSeries>(w.slo_chart()->chart(), SERIES_VIOLATED)->count(), 3);
  ASSERT_TRUE(w.attribution_chart()->chart());

  w.slo_table()->selectRow(2);  // analytics/job-turnaround
  EXPECT_EQ(w.selected_slo(), 2);
  EXPECT_EQ(series_named<QXYSeries>(w.slo_chart()->chart(), SERIES_VALUES)->count(), 6);
  EXPECT_EQ(w.attribution_chart()->chart(), nullptr) << "a met SLO has nothing to attribute";
  EXPECT_FALSE(w.attribution_chart()->placeholder().isEmpty());

  ASSERT_TRUE(w.latency_chart()->chart());
  ASSERT_TRUE(w.gpu_chart()->chart());
  EXPECT_EQ(w.workload_table()->rowCount(), 2);
}

TEST(MainWindow, AReportThatDoesNotLoadLeavesTheWindowUsable) {
  MainWindow w;
  QString error;
  EXPECT_FALSE(w.open_report(QStringLiteral("/nonexistent/out"), &error));
  EXPECT_FALSE(error.isEmpty());
  EXPECT_EQ(w.report(), nullptr);

  ASSERT_TRUE(w.open_report(FIXTURES));
  QTemporaryDir dir;
  EXPECT_FALSE(w.open_report(edited_fixture(dir, [](nlohmann::json& j) { j["schema_version"] = "9.1"; }), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("9.1")));
  ASSERT_TRUE(w.report()) << "the report on show stays";
  EXPECT_EQ(w.slo_table()->rowCount(), 3);
}

// ---- the binary

TEST(GuiBinary, ScreenshotWritesASanePng) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("window.png"));
  const GuiRun r = run_gui({FIXTURES, QStringLiteral("--screenshot"), png});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  QFile file(png);
  ASSERT_TRUE(file.exists());
  EXPECT_GT(file.size(), 20 * 1024) << "a window with tables and charts, not a blank image";
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_TRUE(file.read(8).startsWith("\x89PNG"));
  const QImage img(png);
  EXPECT_GE(img.width(), 800);
  EXPECT_GE(img.height(), 600);
}

TEST(GuiBinary, ScreenshotOfAReportThatDoesNotLoadExits2) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("window.png"));
  const GuiRun missing = run_gui({dir.filePath(QStringLiteral("nothing-here")), QStringLiteral("--screenshot"), png});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.err.contains(QStringLiteral("nothing-here"))) << missing.err.toStdString();
  EXPECT_FALSE(QFile::exists(png));

  const QString bad = edited_fixture(dir, [](nlohmann::json& j) { j["schema_version"] = "2.0"; });
  const GuiRun wrong = run_gui({bad, QStringLiteral("--screenshot"), png});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(wrong.err.contains(QStringLiteral("schema_version"))) << wrong.err.toStdString();
}

TEST(GuiBinary, ExportChartsWritesPngs) {
  QTemporaryDir dir;
  const GuiRun r = run_gui({FIXTURES, QStringLiteral("--export-charts"), dir.filePath(QStringLiteral("charts"))});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  for (const char* name : {"latency.png", "gpu-utilisation.png", "slo-chat-p99-latency.png",
                           "attribution-chat-p99-latency.png", "slo-analytics-job-turnaround.png"})
    EXPECT_TRUE(QFile::exists(dir.filePath(QStringLiteral("charts/") + QLatin1String(name)))) << name;
}

TEST(GuiBinary, UsageErrorsExit1) {
  EXPECT_EQ(run_gui({QStringLiteral("--no-such-option")}).exit_code, 1);
  EXPECT_EQ(run_gui({FIXTURES, QStringLiteral("--tab"), QStringLiteral("nope"), QStringLiteral("--screenshot"),
                     QStringLiteral("/tmp/never.png")})
                .exit_code,
            1);
}

}  // namespace
}  // namespace gtw::gui
