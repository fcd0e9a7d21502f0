#pragma once
// Runs `gputwin run SCENARIO -o DIR --set ... --progress json` as a child process (SimGrid allows one engine
// per process, and the window must never wait on a simulation): progress from its NDJSON lines on stderr,
// cancel by killing it, and on exit either the output directory or the diagnostics it printed.
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace gtw::gui {

class RunController : public QObject {
  Q_OBJECT

 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  /// The gputwin binary: $GPUTWIN_CLI, else `gputwin` next to this program or in the build tree's sim/apps/cli,
  /// else the one this GUI was built with, else `gputwin` on PATH.
  static QString cli_binary();

  /// Starts a run; false (and nothing started) while another one runs.
  bool start(const QString& scenario, const QStringList& overrides, const QString& out_dir);
  void cancel();
  bool running() const;
  /// Runs started so far (for tests: a scenario with errors must start none).
  int started() const { return started_; }
  QStringList arguments() const { return arguments_; }

 signals:
  void progress(int percent, const QString& text);
  /// ok: report.json is in `out_dir`. Otherwise `message` says why and `diagnostics` holds the
  /// "file:line:col: error: ..." lines the run printed.
  void finished(bool ok, const QString& out_dir, const QString& message, const QStringList& diagnostics);

 private:
  void read_stderr();
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void on_error(QProcess::ProcessError error);

  QProcess* process_ = nullptr;
  QString out_dir_;
  QByteArray pending_;
  QStringList messages_;
  QStringList arguments_;
  bool cancelled_ = false;
  bool done_ = true;
  int started_ = 0;
};

}  // namespace gtw::gui
