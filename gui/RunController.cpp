#include "RunController.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>

#ifndef GTW_CLI_BINARY
#define GTW_CLI_BINARY ""
#endif

namespace gtw::gui {

RunController::RunController(QObject* parent) : QObject(parent) {}

RunController::~RunController() {
  if (process_ && process_->state() != QProcess::NotRunning) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

QString RunController::cli_binary() {
  const QString env = qEnvironmentVariable("GPUTWIN_CLI");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate :
       {here.filePath(QStringLiteral("gputwin")), here.filePath(QStringLiteral("../sim/apps/cli/gputwin"))})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  const QString built = QStringLiteral(GTW_CLI_BINARY);
  if (!built.isEmpty() && QFileInfo(built).isExecutable()) return built;
  const QString on_path = QStandardPaths::findExecutable(QStringLiteral("gputwin"));
  return on_path.isEmpty() ? QStringLiteral("gputwin") : on_path;
}

bool RunController::running() const {
  return !done_;
}

bool RunController::start(const QString& scenario, const QStringList& overrides, const QString& out_dir) {
  if (running()) return false;
  delete process_;
  process_ = new QProcess(this);
  out_dir_ = out_dir;
  pending_.clear();
  messages_.clear();
  cancelled_ = false;
  done_ = false;
  ++started_;
  arguments_ = {QStringLiteral("run"),        scenario,
                QStringLiteral("-o"),         out_dir,
                QStringLiteral("--format"),   QStringLiteral("json"),
                QStringLiteral("--progress"), QStringLiteral("json")};
  for (const auto& o : overrides) arguments_ << QStringLiteral("--set") << o;
  process_->setProcessChannelMode(QProcess::SeparateChannels);
  process_->setStandardOutputFile(QProcess::nullDevice());
  connect(process_, &QProcess::readyReadStandardError, this, &RunController::read_stderr);
  connect(process_, &QProcess::finished, this, &RunController::on_finished);
  connect(process_, &QProcess::errorOccurred, this, &RunController::on_error);
  emit progress(0, QStringLiteral("starting gputwin run"));
  process_->start(cli_binary(), arguments_);
  return true;
}

void RunController::cancel() {
  if (!running()) return;
  cancelled_ = true;
  process_->kill();
}

void RunController::read_stderr() {
  pending_ += process_->readAllStandardError();
  qsizetype nl;
  while ((nl = pending_.indexOf('\n')) >= 0) {
    const QByteArray line = pending_.left(nl).trimmed();
    pending_.remove(0, nl + 1);
    if (line.isEmpty()) continue;
    if (line.startsWith('{')) {
      const QJsonObject o = QJsonDocument::fromJson(line).object();
      if (o.contains(QStringLiteral("percent"))) {
        emit progress(o.value(QStringLiteral("percent")).toInt(),
                      QStringLiteral("simulated %1 of %2 s, %3 events")
                          .arg(o.value(QStringLiteral("sim_time_s")).toDouble(), 0, 'f', 0)
                          .arg(o.value(QStringLiteral("sim_end_s")).toDouble(), 0, 'f', 0)
                          .arg(o.value(QStringLiteral("events")).toInteger()));
        continue;
      }
    }
    messages_ << QString::fromUtf8(line);
  }
}

void RunController::on_error(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || done_) return;
  done_ = true;
  emit finished(false, out_dir_,
                QStringLiteral("cannot start %1: %2 (set GPUTWIN_CLI to the gputwin binary)")
                    .arg(cli_binary(), process_->errorString()),
                {});
}

void RunController::on_finished(int exit_code, QProcess::ExitStatus status) {
  if (done_) return;
  read_stderr();
  if (!pending_.trimmed().isEmpty()) messages_ << QString::fromUtf8(pending_.trimmed());
  pending_.clear();
  done_ = true;
  if (cancelled_) {
    emit finished(false, out_dir_, QStringLiteral("run cancelled"), {});
    return;
  }
  static const QRegularExpression located(QStringLiteral(R"(^\S.*:\d+:\d+: (error|warning): )"));
  QStringList diagnostics;
  for (const auto& m : messages_)
    if (located.match(m).hasMatch() || m.contains(QLatin1String(": error: "))) diagnostics << m;
  const bool report = QFileInfo::exists(QDir(out_dir_).filePath(QStringLiteral("report.json")));
  if (status == QProcess::NormalExit && (exit_code == 0 || exit_code == 1) && report) {
    emit finished(true, out_dir_, QString(), diagnostics);
    return;
  }
  QString why = status != QProcess::NormalExit ? QStringLiteral("gputwin run crashed")
                : exit_code == 2               ? QStringLiteral("the scenario is invalid (exit 2)")
                                               : QStringLiteral("gputwin run failed (exit %1)").arg(exit_code);
  if (diagnostics.isEmpty()) diagnostics = messages_;
  emit finished(false, out_dir_, why, diagnostics);
}

}  // namespace gtw::gui
