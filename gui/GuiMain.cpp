// gputwin-gui: the what-if explorer. Opens a scenario (or the results of `gputwin run`), runs it in a
// child `gputwin run` with the changes made in the window, and charts the results against a baseline.
//
//   gputwin-gui [SCENARIO.yaml | DIR]            interactive
//   gputwin-gui SCENARIO --screenshot OUT.png    run the scenario, render the window to a PNG, exit (no display)
//   gputwin-gui DIR --screenshot OUT.png         the same for existing results
//   --export-charts OUTDIR                       write every chart and the one-page summary as PNGs
//   --set path=value                             an override for the runs (repeatable)
//   --compare path=value                         run first without, pin that as the baseline, then with these
//   --tab NAME                                   the tab to open on (overview, compare, security, ...)
//   gputwin-gui LAB.lab.yaml [--what-if N]       a guided lab: its scenario and text; headless, what-if N after
//                                                the run as written
//
// Exit codes: 0 success, 1 usage error or an output that could not be written, 2 the scenario or report
// could not be loaded or the run failed.
#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QListWidget>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <string_view>

#include "ChartExport.hpp"
#include "MainWindow.hpp"

namespace {

// Modes that show no window, so must not need a display: the headless exports, --help and --version.
bool wants_headless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--screenshot") || a.starts_with("--export-charts") || a == "-h" || a == "--help" ||
        a == "--help-all" || a == "-v" || a == "--version")
      return true;
  }
  return false;
}

// Without a display, the offscreen platform warns about every top-level widget it cannot size for a
// window manager, and QStandardPaths about a missing XDG_RUNTIME_DIR (nothing here uses it): expected,
// and it would only hide real messages.
void quiet_offscreen_noise(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.contains(QLatin1String("propagateSizeHints")) || message.contains(QLatin1String("XDG_RUNTIME_DIR")))
    return;
  std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

void fail(const QString& message) {
  std::fprintf(stderr, "gputwin-gui: %s\n", qPrintable(message));
}

// Whether an X11 or Wayland display is there to connect to (Linux and the BSDs; elsewhere there always is).
bool display_available() {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
  return true;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // Headless modes must work without a display: pick the offscreen platform before Qt looks for one,
  // unless the caller chose a platform. Without any display, the same lets the options be parsed (and
  // usage errors reported) before saying that the window cannot be shown, instead of Qt aborting.
  const bool headless = wants_headless(argc, argv);
  const bool no_display = qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && !display_available();
  if (headless || no_display) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quiet_offscreen_noise);
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("gputwin-gui"));
  QApplication::setApplicationVersion(QStringLiteral(GTW_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("What-if explorer for gputwin: opens a scenario, runs it with the changes made in "
                     "the window (as gputwin run --set overrides) and charts the results against a "
                     "pinned baseline; also opens an output directory of gputwin run."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("scenario"),
      QStringLiteral("A scenario (.yaml), or an output directory of `gputwin run` or its report.json."),
      QStringLiteral("[scenario|directory]"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Render the window into <png> and exit."), QStringLiteral("png"));
  const QCommandLineOption export_dir(QStringLiteral("export-charts"),
                                      QStringLiteral("Write every chart as a PNG into <dir> and exit."),
                                      QStringLiteral("dir"));
  const QCommandLineOption tab(
      QStringLiteral("tab"),
      QStringLiteral("Open on tab <name>: %1.").arg(gtw::gui::MainWindow::tab_names().join(QStringLiteral(", "))),
      QStringLiteral("name"), QStringLiteral("overview"));
  const QCommandLineOption what_if(
      QStringLiteral("what-if"),
      QStringLiteral("With a lab file (NN-name.lab.yaml): after running it as written, pin that run and apply "
                     "the lab's what-if <n> (1 = the first; headless modes)."),
      QStringLiteral("n"));
  const QCommandLineOption set(QStringLiteral("set"),
                               QStringLiteral("Override <path=value> in every run (repeatable)."),
                               QStringLiteral("path=value"));
  const QCommandLineOption compare(
      QStringLiteral("compare"),
      QStringLiteral("Run once as given, pin that as the baseline, then run again with <path=value> added "
                     "(repeatable; headless modes)."),
      QStringLiteral("path=value"));
  parser.addOption(tab);
  parser.addOption(set);
  parser.addOption(compare);
  parser.addOption(what_if);
  const QCommandLineOption window_size(QStringLiteral("size"),
                                       QStringLiteral("Window size <WxH> for --screenshot (default 1600x1000)."),
                                       QStringLiteral("WxH"));
  parser.addOption(window_size);
  parser.addOption(screenshot);
  parser.addOption(export_dir);
  parser.process(app);  // --help, --version and unknown options end here (exit 0, 0 and 1)
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    fail(QStringLiteral("expected one directory, got %1 arguments").arg(positional.size()));
    return 1;
  }
  const QString path = positional.value(0);

  const QStringList tabs = gtw::gui::MainWindow::tab_names();
  QString tab_name = parser.value(tab).toLower();
  if (tab_name == QLatin1String("latency")) tab_name = QStringLiteral("overview");  // the 0.1 name
  if (tab_name == QLatin1String("leakage")) tab_name = QStringLiteral("security");  // the 0.2 name
  const auto tab_index = tabs.indexOf(tab_name);
  if (tab_index < 0) {
    fail(QStringLiteral("unknown tab '%1' (expected %2)").arg(parser.value(tab), tabs.join(QStringLiteral(", "))));
    return 1;
  }

  gtw::gui::MainWindow window;
  if (parser.isSet(window_size)) {
    const QStringList wh = parser.value(window_size).toLower().split(QLatin1Char('x'));
    const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
    if (wh.size() != 2 || w < 640 || h < 480 || w > 8000 || h > 8000) {
      fail(QStringLiteral("--size %1: expected WIDTHxHEIGHT, at least 640x480 (e.g. 1280x800)")
               .arg(parser.value(window_size)));
      return 1;
    }
    window.resize(w, h);
  }
  window.tabs()->setCurrentIndex(static_cast<int>(tab_index));
  const bool is_lab = QFileInfo(path).isFile() && path.endsWith(QLatin1String(".lab.yaml"));
  const bool is_scenario = !is_lab && QFileInfo(path).isFile() &&
                           (path.endsWith(QLatin1String(".yaml")) || path.endsWith(QLatin1String(".yml")));
  if (parser.isSet(what_if) && !is_lab) {
    fail(QStringLiteral("--what-if needs a lab file (scenarios/labs/*.lab.yaml)"));
    return 2;
  }
  if (parser.isSet(screenshot) || parser.isSet(export_dir)) {
    if (path.isEmpty()) {
      fail(QStringLiteral("--screenshot and --export-charts need a scenario or an output directory"));
      return 2;
    }
    QString error;
    if (is_scenario || is_lab) {
      if (is_lab && !window.open_lab(path, &error)) {
        fail(error);
        for (int i = 0; i < window.diagnostics_view()->count(); ++i)
          std::fprintf(stderr, "%s\n", qPrintable(window.diagnostics_view()->item(i)->text()));
        return 2;
      }
      if (is_scenario && !window.open_scenario(path, &error)) {
        for (int i = 0; i < window.diagnostics_view()->count(); ++i)
          std::fprintf(stderr, "%s\n", qPrintable(window.diagnostics_view()->item(i)->text()));
        return 2;
      }
      // Run (twice with --compare: the first run becomes the baseline), waiting in an event loop so that the
      // child's progress is read as in the window.
      const auto run_once = [&window](const std::function<bool()>& start) {
        QEventLoop loop;
        bool ok = false;
        QObject::connect(&window, &gtw::gui::MainWindow::run_finished, &loop, [&](bool success) {
          ok = success;
          loop.quit();
        });
        if (!start()) return false;
        loop.exec();
        return ok;
      };
      const auto run = [&window] { return window.run_scenario(); };
      const auto run_failed = [&window]() {
        for (int i = 0; i < window.diagnostics_view()->count(); ++i)
          std::fprintf(stderr, "%s\n", qPrintable(window.diagnostics_view()->item(i)->text()));
        return 2;
      };
      window.set_extra_overrides(parser.values(set));
      if (!run_once(run)) return run_failed();
      if (parser.isSet(compare)) {
        window.pin_baseline();
        window.set_extra_overrides(parser.values(set) + parser.values(compare));
        if (!run_once(run)) return run_failed();
      }
      if (parser.isSet(what_if)) {
        bool number = false;
        const int n = parser.value(what_if).toInt(&number);
        const int count = window.lab() ? static_cast<int>(window.lab()->what_ifs.size()) : 0;
        if (!number || n < 1 || n > count) {
          fail(QStringLiteral("--what-if %1: the lab has what-ifs 1 to %2").arg(parser.value(what_if)).arg(count));
          return 2;
        }
        if (!run_once([&window, n] { return window.apply_what_if(n - 1); })) return run_failed();
      }
    } else if (!window.open_report(path, &error)) {
      fail(error);
      return 2;
    }
    if (parser.isSet(screenshot)) {
      if (!window.save_screenshot(parser.value(screenshot), &error)) {
        fail(error);
        return 1;
      }
      std::printf("%s\n", qPrintable(parser.value(screenshot)));
    }
    if (parser.isSet(export_dir)) {
      auto exported = gtw::gui::export_charts(*window.report(), parser.value(export_dir));
      if (exported.error.isEmpty()) {
        const auto more = gtw::gui::export_whatif_charts(*window.report(), window.baseline(), parser.value(export_dir));
        exported.files << more.files;
        exported.error = more.error;
      }
      for (const auto& f : exported.files) std::printf("%s\n", qPrintable(f));
      if (!exported.error.isEmpty()) {
        fail(exported.error);
        return 1;
      }
    }
    return 0;
  }

  if (no_display) {
    fail(
        QStringLiteral("no display to show the window on (DISPLAY and WAYLAND_DISPLAY are unset); "
                       "use --screenshot or --export-charts to render without one"));
    return 1;
  }
  window.show();
  window.set_extra_overrides(parser.values(set));
  if (!path.isEmpty()) {
    // After the event loop starts, so that the message box has a visible window to sit on. A scenario with
    // errors is still opened: its problems are listed in the window.
    QTimer::singleShot(0, &window, [&window, path, is_scenario, is_lab] {
      QString error;
      if (is_lab) {
        if (!window.open_lab(path, &error)) QMessageBox::warning(&window, QStringLiteral("Cannot open the lab"), error);
      } else if (is_scenario) {
        window.open_scenario(path, &error);
      } else if (!window.open_report(path, &error))
        QMessageBox::warning(&window, QStringLiteral("Cannot open the report"), error);
    });
  }
  return QApplication::exec();
}
