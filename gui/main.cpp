// gputwin-gui: shows the results of `gputwin run` (report.json in an output directory).
//
//   gputwin-gui [DIR]                        interactive viewer
//   gputwin-gui DIR --screenshot OUT.png     render the window to a PNG and exit (no display needed)
//   gputwin-gui DIR --export-charts OUTDIR   write every chart as a PNG and exit
//   --tab slos|latency|gpus|workloads        the tab to open on (for screenshots of each tab)
//
// Exit codes: 0 success, 1 usage error or an output that could not be written, 2 the report could not
// be loaded.
#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <string_view>

#include "gui/MainWindow.hpp"
#include "gui/charts/ChartExport.hpp"

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
      QStringLiteral("Result viewer for gputwin: opens an output directory of "
                     "`gputwin run` (or its report.json) and shows its SLOs, "
                     "latencies and GPU utilisation."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("directory"),
                               QStringLiteral("Output directory of `gputwin run`, or a report.json."),
                               QStringLiteral("[directory]"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Render the window into <png> and exit."), QStringLiteral("png"));
  const QCommandLineOption export_dir(QStringLiteral("export-charts"),
                                      QStringLiteral("Write every chart as a PNG into <dir> and exit."),
                                      QStringLiteral("dir"));
  const QCommandLineOption tab(QStringLiteral("tab"),
                               QStringLiteral("Open on tab <name>: slos, latency, gpus or workloads."),
                               QStringLiteral("name"), QStringLiteral("slos"));
  parser.addOption(tab);
  parser.addOption(screenshot);
  parser.addOption(export_dir);
  parser.process(app);  // --help, --version and unknown options end here (exit 0, 0 and 1)
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    fail(QStringLiteral("expected one directory, got %1 arguments").arg(positional.size()));
    return 1;
  }
  const QString path = positional.value(0);

  const QStringList tabs = {QStringLiteral("slos"), QStringLiteral("latency"), QStringLiteral("gpus"),
                            QStringLiteral("workloads")};
  const auto tab_index = tabs.indexOf(parser.value(tab).toLower());
  if (tab_index < 0) {
    fail(QStringLiteral("unknown tab '%1' (expected %2)").arg(parser.value(tab), tabs.join(QStringLiteral(", "))));
    return 1;
  }

  gtw::gui::MainWindow window;
  window.tabs()->setCurrentIndex(static_cast<int>(tab_index));
  if (parser.isSet(screenshot) || parser.isSet(export_dir)) {
    if (path.isEmpty()) {
      fail(QStringLiteral("--screenshot and --export-charts need an output directory to read"));
      return 2;
    }
    QString error;
    if (!window.open_report(path, &error)) {
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
      const auto exported = gtw::gui::export_charts(*window.report(), parser.value(export_dir));
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
  if (!path.isEmpty()) {
    // After the event loop starts, so that the message box has a visible window to sit on.
    QTimer::singleShot(0, &window, [&window, path] {
      QString error;
      if (!window.open_report(path, &error))
        QMessageBox::warning(&window, QStringLiteral("Cannot open the report"), error);
    });
  }
  return QApplication::exec();
}
