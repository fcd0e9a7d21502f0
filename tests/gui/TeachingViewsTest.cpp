// The views that teach (issue 23): the Security tab against report.json, the Compare tab's difference table and
// trade-off chart, the Topology tab, the guided labs (every lab runs each of its what-ifs and renders), and the
// control fixes (wheel guard, "ended early" only for stays that failed). Real runs through the built gputwin.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QWheelEvent>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ChartPanel.hpp"
#include "Charts.hpp"
#include "Compare.hpp"
#include "CompareView.hpp"
#include "Lab.hpp"
#include "LabPanel.hpp"
#include "MainWindow.hpp"
#include "ScenarioModel.hpp"
#include "SecurityView.hpp"
#include "TopologyView.hpp"

namespace gtw::gui {
namespace {

using json = nlohmann::json;

const QString SCENARIOS = QStringLiteral(GTW_GUI_EXAMPLES) + QStringLiteral("/..");
const QString GUI_BINARY = QStringLiteral(GTW_GUI_BINARY);
constexpr int RUN_LIMIT_MS = 240000;  // a hung child fails the test instead of blocking it; not a timing check

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

bool wait_for(MainWindow& w, const std::function<bool()>& start) {
  QSignalSpy spy(&w, &MainWindow::run_finished);
  if (!start()) return false;
  if (!spy.wait(RUN_LIMIT_MS)) return false;
  return spy.front().front().toBool();
}

bool run_and_wait(MainWindow& w) {
  return wait_for(w, [&w] { return w.run_scenario(); });
}

json report_json(const MainWindow& w) {
  std::ifstream in(w.report()->path);
  return json::parse(in);
}

double value_of(QTableWidget* t, int row, int column, int role) {
  const QTableWidgetItem* item = t->item(row, column);
  return item ? item->data(role).toDouble() : NAN;
}

int column_named(QTableWidget* t, const QString& name) {
  for (int c = 0; c < t->columnCount(); ++c)
    if (t->horizontalHeaderItem(c)->text() == name) return c;
  return -1;
}

// ---- Security view

TEST(SecurityView, RemanenceScrapeBytesAttackAndPairBitsEqualReportJson) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(SCENARIOS + QStringLiteral("/attacks/remanence-scrape.yaml")));
  ASSERT_TRUE(run_and_wait(w));
  const json j = report_json(w);
  const json& l = j.at("leakage");
  SecurityView* v = w.security_view();
  ASSERT_TRUE(v);

  // The totals line states report.json's totals.
  const double total_bits = l["totals"]["bits"].get<double>();
  const double total_bytes = l["totals"]["bytes"].get<double>();
  EXPECT_TRUE(v->totals()->text().contains(q(format_value(total_bits, "bit")))) << v->totals()->text().toStdString();
  EXPECT_TRUE(v->totals()->text().contains(q(format_value(total_bytes, "B")))) << v->totals()->text().toStdString();

  // Every discrete exposure is a row; the open ones add up to the total bytes.
  QTableWidget* exposures = v->table(SecurityView::EXPOSURES);
  ASSERT_EQ(exposures->rowCount(), static_cast<int>(l["discrete"].size()));
  const int bytes_col = column_named(exposures, QStringLiteral("Bytes"));
  double open_bytes = 0;
  for (int r = 0; r < exposures->rowCount(); ++r)
    if (!l["discrete"][static_cast<size_t>(r)]["closed"].get<bool>())
      open_bytes += value_of(exposures, r, bytes_col, SecurityView::VALUE_ROLE);
  EXPECT_DOUBLE_EQ(open_bytes, total_bytes);

  // The attack: what it recovered beside its bound, as report.json has them (the GUI used to show 0 bit).
  QTableWidget* attacks = v->table(SecurityView::ATTACKS);
  ASSERT_EQ(attacks->rowCount(), static_cast<int>(l["attacks"].size()));
  bool found = false;
  for (int r = 0; r < attacks->rowCount(); ++r) {
    const json& a = l["attacks"][static_cast<size_t>(r)];
    if (a["type"] != "remanenceScrape") continue;
    found = true;
    const double recovered = a["achieved"]["bytes_recovered"].get<double>();
    EXPECT_GT(recovered, 1e9) << "the scrape recovers gigabytes of the victim's weights";
    EXPECT_DOUBLE_EQ(value_of(attacks, r, column_named(attacks, QStringLiteral("Achieved")), SecurityView::VALUE_ROLE),
                     recovered);
    EXPECT_DOUBLE_EQ(value_of(attacks, r, column_named(attacks, QStringLiteral("Bound")), SecurityView::VALUE_ROLE),
                     a["achieved"]["bound_bytes"].get<double>());
  }
  EXPECT_TRUE(found) << "the scenario replays a remanence scrape";

  // Bits per pair: the counted channels of report.json, pair by pair, and the heatmap's label of each pair.
  std::map<std::pair<std::string, std::string>, double> expected;
  for (const auto& c : l["channels"])
    if (c["counted"].get<bool>() && c["bound_bits"].is_number())
      expected[{c["observer"], c["source"]}] += c["bound_bits"].get<double>();
  const auto pairs = leakage_by_pair(*w.report());
  double sum = 0;
  for (const auto& [pair, bits] : expected) {
    ASSERT_TRUE(pairs.count(pair)) << pair.first << " <- " << pair.second;
    EXPECT_NEAR(pairs.at(pair).bits, bits, 1e-9 * std::max(1.0, bits));
  }
  for (const auto& [pair, cell] : pairs) sum += cell.bits;
  EXPECT_NEAR(sum, total_bits, 1e-6 * std::max(1.0, total_bits));
  QChart* heat = v->heatmap()->chart();
  ASSERT_TRUE(heat);
  for (const auto& [pair, cell] : pairs) {
    if (pair.first == pair.second || !(cell.bytes > 0)) continue;
    QScatterSeries* label = nullptr;
    for (auto* s : heat->series())
      if (s->objectName() == QStringLiteral("label:%1<-%2").arg(q(pair.first), q(pair.second)))
        label = qobject_cast<QScatterSeries*>(s);
    ASSERT_TRUE(label) << pair.first << " <- " << pair.second;
    const QString text = label->property("text").toString();
    EXPECT_TRUE(text.contains(q(format_value(cell.bytes, "B")))) << text.toStdString();
  }

  // Model IP: one row per exposure of every model; closed channels with their reason.
  size_t model_rows = 0;
  for (const auto& m : l["models"]) model_rows += m["exposures"].size();
  EXPECT_EQ(v->table(SecurityView::MODELS)->rowCount(), static_cast<int>(model_rows));
  EXPECT_EQ(v->table(SecurityView::CLOSED)->rowCount(), static_cast<int>(l["closed"].size()));
  EXPECT_EQ(v->table(SecurityView::CHANNELS)->rowCount(), static_cast<int>(l["channels"].size()));
  EXPECT_EQ(v->table(SecurityView::BOUNDARIES)->rowCount(), static_cast<int>(j["isolation_boundaries"].size()));
}

TEST(SecurityView, InvocationsSecretLeaksAndIncidentsEqualReportJson) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(SCENARIOS + QStringLiteral("/../tests/fixtures/scenarios/agents-secrets.yaml")));
  ASSERT_TRUE(run_and_wait(w));
  const json l = report_json(w).at("leakage");
  SecurityView* v = w.security_view();
  ASSERT_TRUE(v);
  QTableWidget* agents = v->table(SecurityView::AGENTS);
  ASSERT_EQ(agents->rowCount(), 1);
  const json& inv = l["agents"]["invocations"][0];
  EXPECT_EQ(agents->item(0, column_named(agents, QStringLiteral("Confused deputy")))->text().toInt(),
            inv["confused_deputy"].get<int>());
  EXPECT_DOUBLE_EQ(
      value_of(agents, 0, column_named(agents, QStringLiteral("First deputy at")), SecurityView::VALUE_ROLE),
      inv["first_deputy_at_s"].get<double>());
  EXPECT_EQ(agents->item(0, column_named(agents, QStringLiteral("Refused because")))->text(),
            QStringLiteral("revoked 1"));
  QTableWidget* leaks = v->table(SecurityView::SECRET_LEAKS);
  ASSERT_EQ(leaks->rowCount(), 1);
  EXPECT_DOUBLE_EQ(value_of(leaks, 0, column_named(leaks, QStringLiteral("Usable until")), SecurityView::VALUE_ROLE),
                   l["secret_leaks"][0]["end_s"].get<double>());
  EXPECT_EQ(leaks->item(0, column_named(leaks, QStringLiteral("Ended by")))->text(),
            QStringLiteral("emergencyRotation"));
  QTableWidget* incidents = v->table(SecurityView::INCIDENTS);
  ASSERT_EQ(incidents->rowCount(), static_cast<int>(l["incidents"].size()));
  EXPECT_EQ(incidents->item(0, column_named(incidents, QStringLiteral("Known at")))->text(), QStringLiteral("never"));
  EXPECT_TRUE(v->totals()->text().contains(QStringLiteral("4 confused-deputy hops at run time")))
      << v->totals()->text().toStdString();
  // The difference table counts the deputy hops and the leak's exposure.
  const auto rows = difference_rows(*w.report(), nullptr);
  const auto row = [&](const std::string& metric) {
    for (const auto& r : rows)
      if (r.metric == metric) return r.current;
    ADD_FAILURE() << "no row " << metric;
    return static_cast<double>(NAN);
  };
  EXPECT_EQ(row("confused-deputy hops at run time"), 4);
  EXPECT_EQ(row("leaked secrets usable for"), 15);
}

TEST(SecurityView, LeakageColoursAreAbsoluteNotPerChart) {
  // The same bits give the same colour whatever else is in the chart; more bits are darker.
  EXPECT_EQ(leakage_color(1.8e6), leakage_color(1.8e6));
  EXPECT_GT(leakage_color(1.8e6).lightnessF(), leakage_color(9.4e9).lightnessF());
  EXPECT_GT(leakage_color(10).lightnessF(), leakage_color(1e4).lightnessF());
  EXPECT_EQ(leakage_color(1e15), leakage_color(1e13)) << "saturates past the top of the scale";
  Report r;
  r.has_leakage = true;
  r.tenants = {{"a", "", "", 0, 0, 0}, {"b", "", "", 0, 0, 0}};
  LeakChannel small{"a", "b", "sm", "timeSlicing", "open", 10, 1, 1.8e6, true, ""};
  r.leak_channels = {small};
  std::unique_ptr<QChart> chart(make_leakage_heatmap(r, nullptr));
  ASSERT_TRUE(chart);
  int scale_bands = 0;
  for (auto* s : chart->series()) scale_bands += s->objectName().startsWith(QLatin1String("scale:")) ? 1 : 0;
  EXPECT_EQ(scale_bands, static_cast<int>(LEAKAGE_SCALE_DECADES)) << "a colour bar: one band per decade";
}

// ---- Compare view

TEST(CompareView, DifferenceTableAndTradeOffOfABaselineAndAWhatIf) {
  MainWindow w;
  const QString scenario = QStringLiteral(GTW_GUI_EXAMPLES) + QStringLiteral("/isolation/time-slicing.yaml");
  ASSERT_TRUE(w.open_scenario(scenario));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("2m")));
  ASSERT_TRUE(run_and_wait(w));
  w.pin_baseline();
  ASSERT_TRUE(w.set_knob("spec.cluster.nodePools[serve].sharing|mode", QStringLiteral("mig")));
  ASSERT_TRUE(run_and_wait(w));
  ASSERT_TRUE(w.baseline());
  CompareView* v = w.compare_view();
  const auto rows = difference_rows(*w.report(), w.baseline());
  QTableWidget* t = v->table();
  ASSERT_EQ(t->rowCount(), static_cast<int>(rows.size()));
  bool latency = false, leakage = false, cost = false;
  for (int r = 0; r < t->rowCount(); ++r) {
    const DiffRow& row = rows[static_cast<size_t>(r)];
    EXPECT_EQ(t->item(r, CompareView::COL_METRIC)->text(), q(row.metric));
    const double shown_now = value_of(t, r, CompareView::COL_CURRENT, CompareView::VALUE_ROLE);
    const double shown_base = value_of(t, r, CompareView::COL_BASELINE, CompareView::VALUE_ROLE);
    EXPECT_TRUE(std::isnan(row.current) ? std::isnan(shown_now) : shown_now == row.current) << row.metric;
    EXPECT_TRUE(std::isnan(row.baseline) ? std::isnan(shown_base) : shown_base == row.baseline) << row.metric;
    if (row.metric.ends_with("p99 latency")) {
      latency = true;
      for (const auto& wl : w.report()->workloads)
        if (row.metric == wl.tenant + "/" + wl.name + " p99 latency") {
          EXPECT_EQ(row.current, wl.latency.p99_s);
        }
      for (const auto& wl : w.baseline()->workloads)
        if (row.metric == wl.tenant + "/" + wl.name + " p99 latency") {
          EXPECT_EQ(row.baseline, wl.latency.p99_s);
        }
    }
    if (row.metric == "leakage bound") {
      leakage = true;
      EXPECT_EQ(row.current, w.report()->leakage_bits);
      EXPECT_EQ(row.baseline, w.baseline()->leakage_bits);
      EXPECT_LT(row.current, row.baseline) << "MIG closes the SM and L2 channels time-slicing opens";
    }
    if (row.metric == "GPU-hours provisioned") {
      cost = true;
      EXPECT_EQ(row.current, w.report()->cost.provisioned_gpu_hours);
    }
  }
  EXPECT_TRUE(latency && leakage && cost);
  EXPECT_FALSE(v->warning()->text().contains(QStringLiteral("another scenario")));
  QChart* chart = v->tradeoff_chart()->chart();
  ASSERT_TRUE(chart);
  int pinned = 0, current = 0;
  for (auto* s : chart->series()) {
    pinned += s->objectName().startsWith(QLatin1String("pinned:")) ? 1 : 0;
    current += s->objectName() == QLatin1String("now:tradeoff") ? 1 : 0;
  }
  EXPECT_EQ(pinned, 1);
  EXPECT_EQ(current, 1);

  // A baseline from another scenario is said so, in the header and on the Compare tab.
  QTemporaryDir other;
  json j = report_json(w);
  j["scenario"]["name"] = "another design";
  j["scenario"]["file"] = "elsewhere.yaml";
  {
    std::ofstream out(other.filePath(QStringLiteral("report.json")).toStdString());
    out << j.dump();
  }
  ASSERT_TRUE(w.open_report(other.path()));
  EXPECT_TRUE(v->warning()->text().contains(QStringLiteral("another scenario"))) << v->warning()->text().toStdString();
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("another scenario")));
}

// ---- Topology

TEST(TopologyView, CoResidencyAndRegionsFollowTheReport) {
  MainWindow w;
  const QString scenario = QStringLiteral(GTW_GUI_EXAMPLES) + QStringLiteral("/isolation/time-slicing.yaml");
  ASSERT_TRUE(w.open_scenario(scenario));
  ASSERT_TRUE(w.set_knob("run/duration", QStringLiteral("2m")));
  ASSERT_TRUE(run_and_wait(w));
  const json j = report_json(w);
  // Expected from report.json alone: tenants per physical GPU.
  std::map<std::pair<std::string, int>, std::set<std::string>> tenants;
  for (const auto& g : j["gpus"])
    for (const auto& t : g["tenants"]) tenants[{g["node"], g["local_index"]}].insert(t.get<std::string>());
  int shared = 0;
  for (const auto& [gpu, names] : tenants) shared += names.size() >= 2 ? 1 : 0;
  TopologyView* v = w.topology_view();
  EXPECT_GT(shared, 0) << "time-slicing puts tenants together";
  EXPECT_EQ(v->co_resident_gpus(), shared);
  EXPECT_EQ(v->residency_violations(), 0);
  int gpu_items = 0;
  std::function<void(QTreeWidgetItem*)> walk = [&](QTreeWidgetItem* item) {
    gpu_items += item->data(TopologyView::COL_DEVICE, TopologyView::KIND_ROLE).toString() == QLatin1String("gpu");
    for (int c = 0; c < item->childCount(); ++c) walk(item->child(c));
  };
  for (int i = 0; i < v->tree()->topLevelItemCount(); ++i) walk(v->tree()->topLevelItem(i));
  EXPECT_EQ(gpu_items, w.report()->physical_gpus());
  EXPECT_TRUE(w.header()->text().contains(QStringLiteral("%1 GPUs").arg(w.report()->physical_gpus())));
}

// ---- Labs

TEST(Labs, EveryLabRunsAsWrittenAndWithEachWhatIfAndRenders) {
  const auto labs = bundled_labs();
  ASSERT_GE(labs.size(), 4u) << "one lab per learning outcome of the course";
  std::set<std::string> outcomes;
  QTemporaryDir shots;
  for (const auto& path : labs) {
    SCOPED_TRACE(path.string());
    MainWindow w;
    QString error;
    ASSERT_TRUE(w.open_lab(q(path.string()), &error)) << error.toStdString();
    ASSERT_TRUE(w.lab());
    outcomes.insert(w.lab()->outcome);
    EXPECT_FALSE(w.lab_dock()->isHidden());
    ASSERT_EQ(w.lab_panel()->what_if_count(), static_cast<int>(w.lab()->what_ifs.size()));
    EXPECT_TRUE(w.lab_panel()->text()->text().contains(q(w.lab()->title).toHtmlEscaped()));
    ASSERT_TRUE(wait_for(w, [&w] { return w.run_lab_as_written(); }));
    EXPECT_TRUE(w.current_overrides().isEmpty());
    for (int i = 0; i < w.lab_panel()->what_if_count(); ++i) {
      SCOPED_TRACE(w.lab()->what_ifs[static_cast<size_t>(i)].label);
      ASSERT_TRUE(wait_for(w, [&w, i] { return w.apply_what_if(i); }));
      ASSERT_TRUE(w.baseline()) << "the run as written is pinned first";
      for (const auto& o : w.lab()->what_ifs[static_cast<size_t>(i)].set)
        EXPECT_TRUE(w.current_overrides().contains(q(o))) << o;
      // The what-if changes something the difference table shows.
      bool changed = false;
      for (const auto& row : difference_rows(*w.report(), w.baseline()))
        changed |= std::isfinite(row.current) && std::isfinite(row.baseline) && row.current != row.baseline;
      EXPECT_TRUE(changed);
    }
    const QString shot = shots.filePath(QStringLiteral("lab.png"));
    ASSERT_TRUE(w.save_screenshot(shot, &error)) << error.toStdString();
    EXPECT_FALSE(QImage(shot).isNull());
  }
  EXPECT_GE(outcomes.size(), 4u);
}

TEST(Labs, BadLabFilesAreLocatedErrors) {
  QTemporaryDir dir;
  const auto write = [&dir](const char* name, const std::string& text) {
    std::ofstream(dir.filePath(QString::fromLatin1(name)).toStdString()) << text;
    return std::filesystem::path(dir.filePath(QString::fromLatin1(name)).toStdString());
  };
  write("s.yaml", "apiVersion: gputwin/v1\n");
  const std::string good =
      "title: t\noutcome: o\nscenario: s.yaml\nquestion: q\nsteps: s\nlook_for: l\nwhy: w\n"
      "what_ifs:\n  - label: x\n    set: [\"spec.seed=2\"]\n";
  EXPECT_TRUE(load_lab(write("good.lab.yaml", good)).lab) << load_lab(write("good.lab.yaml", good)).error;
  const LabLoad unknown = load_lab(write("unknown.lab.yaml", good + "colour: red\n"));
  EXPECT_FALSE(unknown.lab);
  EXPECT_NE(unknown.error.find("unknown.lab.yaml:11:1: colour: unknown field (valid: "), std::string::npos)
      << unknown.error;
  std::string missing = good;
  missing.replace(missing.find("scenario: s.yaml"), 16, "scenario: nope.yaml");
  const LabLoad no_file = load_lab(write("nofile.lab.yaml", missing));
  EXPECT_NE(no_file.error.find("nofile.lab.yaml:3:11: scenario: 'nope.yaml' is not a file"), std::string::npos)
      << no_file.error;
  const LabLoad bad_set = load_lab(
      write("badset.lab.yaml", good.substr(0, good.find("what_ifs")) + "what_ifs:\n  - label: x\n    set: [oops]\n"));
  EXPECT_NE(bad_set.error.find("badset.lab.yaml:10:11: set: expected path=value"), std::string::npos) << bad_set.error;
  const LabLoad no_title = load_lab(write("notitle.lab.yaml", good.substr(good.find('\n') + 1)));
  EXPECT_NE(no_title.error.find("title: missing"), std::string::npos) << no_title.error;
  // Not a lab file at all: refused with the reason, never read without end.
  const LabLoad empty = load_lab(write("empty.lab.yaml", ""));
  EXPECT_FALSE(empty.lab);
  EXPECT_NE(empty.error.find("expected a mapping"), std::string::npos) << empty.error;
  EXPECT_FALSE(load_lab(dir.path().toStdString()).lab) << "a directory";
  const LabLoad zero = load_lab("/dev/zero");
  EXPECT_FALSE(zero.lab);
  EXPECT_NE(zero.error.find("/dev/zero"), std::string::npos) << zero.error;
}

TEST(Labs, HeadlessWhatIfRendersTheComparison) {
  const auto labs = bundled_labs();
  ASSERT_FALSE(labs.empty());
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("lab.png"));
  QProcess p;
  p.start(GUI_BINARY, {q(labs.front().string()), QStringLiteral("--what-if"), QStringLiteral("1"),
                       QStringLiteral("--tab"), QStringLiteral("compare"), QStringLiteral("--screenshot"), png});
  ASSERT_TRUE(p.waitForFinished(RUN_LIMIT_MS));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  EXPECT_FALSE(QImage(png).isNull());
  QProcess bad;
  bad.start(GUI_BINARY, {q(labs.front().string()), QStringLiteral("--what-if"), QStringLiteral("99"),
                         QStringLiteral("--screenshot"), png});
  ASSERT_TRUE(bad.waitForFinished(RUN_LIMIT_MS));
  EXPECT_EQ(bad.exitCode(), 2);
  EXPECT_TRUE(bad.readAllStandardError().contains("the lab has what-ifs 1 to"));
}

// ---- Control fixes

TEST(Controls, TheWheelDoesNotChangeAControlWithoutFocus) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(QStringLiteral(GTW_GUI_EXAMPLES) + QStringLiteral("/default.yaml")));
  const QString before = w.knob_value("placement");
  QComboBox* combo = w.findChild<QComboBox*>(QStringLiteral("placement"));
  ASSERT_TRUE(combo);
  ASSERT_FALSE(combo->hasFocus());
  QWheelEvent wheel(QPointF(5, 5), combo->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, -120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(combo, &wheel);
  EXPECT_EQ(w.knob_value("placement"), before);
  EXPECT_TRUE(w.current_overrides().isEmpty());
}

TEST(Controls, OnlyStaysThatFailedAreMarkedEndedEarly) {
  Report r;
  r.scenario.duration_s = 100;
  r.tenants = {{"a", "", "", 0, 0, 0}};
  Gpu g;
  g.index = 0;
  g.node = "n-0";
  r.gpus = {g};
  r.placements = {{"train", "a", 0, 0, 0, 40, "done"},
                  {"train", "a", 1, 0, 40, 60, "fault"},
                  {"serve", "a", 0, 0, 0, NO_VALUE, ""}};
  std::unique_ptr<QChart> chart(make_placement_timeline_chart(r, nullptr));
  ASSERT_TRUE(chart);
  QScatterSeries* ended = nullptr;
  for (auto* s : chart->series())
    if (s->name().startsWith(QLatin1String("ended early"))) ended = qobject_cast<QScatterSeries*>(s);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->count(), 1) << "the fault, not the finished job";
}

}  // namespace
}  // namespace gtw::gui

namespace gtw::gui {
namespace {

// Every sharing mode a sharing control offers, on every bundled example, gives overrides the loader takes: a
// control must not offer a choice that then refuses to run.
TEST(Controls, EverySharingModeOfferedIsAcceptedByTheLoader) {
  for (const auto& path : bundled_examples()) {
    const ScenarioDoc doc = load_scenario_doc(path);
    if (doc.has_errors()) continue;
    for (const auto& k : doc.knobs) {
      if (k.key.size() < 5 || k.key.substr(k.key.size() - 5) != "|mode") continue;
      for (const auto& mode : k.choices) {
        if (mode.empty() || mode == k.initial) continue;
        const auto overrides = overrides_for(doc, {{k.key, mode}});
        std::string errors;
        // A reconfiguration of a pool that is no longer MIG is refused, rightly, where the reconfiguration is.
        for (const auto& d : check_overrides(doc.path, overrides))
          if (d.severity == Severity::ERROR && d.path.rfind("spec.reconfigurations", 0) != 0)
            errors += d.format() + "\n";
        EXPECT_TRUE(errors.empty()) << path.string() << " " << k.key << " = " << mode << ":\n" << errors;
      }
    }
  }
}

}  // namespace
}  // namespace gtw::gui

namespace gtw::gui {
namespace {

QString series_names(QChart* chart) {
  QStringList names;
  for (auto* s : chart->series()) names << s->objectName();
  return names.join(QLatin1Char(' '));
}

// The Timeline tab: tenants stacked per step, a fault and an attack as marks, the baseline's timeline offered.
TEST(TimelineView, StackedTenantsFaultAndAttackMarksAndTheBaseline) {
  MainWindow w;
  ASSERT_TRUE(w.open_scenario(SCENARIOS + QStringLiteral("/ci/fault-mps.yaml")));
  ASSERT_TRUE(run_and_wait(w));
  ASSERT_GT(w.report()->timeline.step_s, 0);
  bool fault = false;
  for (const auto& m : w.report()->marks) fault |= m.kind == "fault";
  EXPECT_TRUE(fault) << "the scenario injects a fault";
  QChart* chart = w.timeline_chart()->chart();
  ASSERT_TRUE(chart);
  EXPECT_TRUE(series_names(chart).contains(QStringLiteral("mark:fault"))) << series_names(chart).toStdString();
  int tenants = 0;
  for (auto* s : chart->series()) tenants += s->objectName().startsWith(QLatin1String("tenant:")) ? 1 : 0;
  EXPECT_EQ(tenants, static_cast<int>(w.report()->timeline.cluster.size()));
  // One device at a time: every device with a series is offered.
  EXPECT_EQ(w.timeline_device()->count(), 1 + static_cast<int>(w.report()->timeline.gpus.size()));

  MainWindow a;
  ASSERT_TRUE(a.open_scenario(SCENARIOS + QStringLiteral("/attacks/remanence-scrape.yaml")));
  ASSERT_TRUE(run_and_wait(a));
  a.pin_baseline();
  ASSERT_TRUE(run_and_wait(a));
  ASSERT_TRUE(a.timeline_chart()->chart());
  EXPECT_TRUE(series_names(a.timeline_chart()->chart()).contains(QStringLiteral("mark:attack")));
  const int base = a.timeline_device()->findText(QStringLiteral("baseline: all devices"));
  ASSERT_GE(base, 0);
  a.timeline_device()->setCurrentIndex(base);
  emit a.timeline_device()->activated(base);
  ASSERT_TRUE(a.timeline_chart()->chart());
  EXPECT_TRUE(a.timeline_chart()->chart()->title().endsWith(QStringLiteral("baseline")));
}

}  // namespace
}  // namespace gtw::gui
