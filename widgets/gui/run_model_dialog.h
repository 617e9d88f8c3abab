// RunModelDialog: asks for a checkpoint folder, an input text file and where to write the trace,
// then runs the trace job in the background (TraceJobRunner) with a progress bar and Cancel.
// Emits traceReady(path) on success; errors are shown in the dialog. GUI thread only.
#pragma once

#include <QDialog>

#include "core/trace/trace_request.h"

class QLineEdit;
class QProgressBar;
class QPushButton;
class QLabel;

namespace gatescope::widgets {

class TraceJobRunner;

class RunModelDialog : public QDialog {
    Q_OBJECT
public:
    /// `job` runs the trace (app/ passes the engine's runTraceJob); it must not be empty.
    explicit RunModelDialog(core::TraceJobFunction job, QWidget* parent = nullptr);

signals:
    void traceReady(QString path);

private:
    void run();
    void onFinished(bool ok, const QString& path, const QString& error);

    QLineEdit* m_model;
    QLineEdit* m_text;
    QLineEdit* m_out;
    QProgressBar* m_progress;
    QLabel* m_stage;
    QPushButton* m_run;
    QPushButton* m_cancel;
    TraceJobRunner* m_runner;
};

}  // namespace gatescope::widgets
