// RunModelDialog: File > Run Model on Text. Asks for a checkpoint folder, an input text file,
// where to write the trace and the CLI's options (token range, layers, pyramid heads, device,
// dtype, pyramids and their finest side), remembered in QSettings between runs; runs the trace
// job in the background (TraceJobRunner) with a progress bar, what the job is doing, the time
// it has taken, and Cancel. Emits traceReady(path) on success; errors stay in the dialog,
// wrapped and selectable. GUI thread only.
#pragma once

#include <QDialog>
#include <QElapsedTimer>

#include "core/trace/trace_request.h"
#include "widgets/view/run_request.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;

namespace gatescope::widgets {

class TraceJobRunner;

class RunModelDialog : public QDialog {
    Q_OBJECT
public:
    /// `job` runs the trace (app/ passes the engine's runTraceJob); it must not be empty.
    explicit RunModelDialog(core::TraceJobFunction job, QWidget* parent = nullptr);

    /// The form as typed (what Run would use and remember).
    RunInputs inputs() const;
    /// Fills the form (as restored from QSettings when the dialog opens).
    void setInputs(const RunInputs& inputs);
    /// The progress label's text (for tests).
    QString stageText() const;
    /// Presses Run / Cancel (as the buttons do).
    void run();
    void cancel();

signals:
    void traceReady(QString path);
    /// The job ended (after the label says how).
    void jobFinished(bool ok);

private:
    void onFinished(bool ok, const QString& path, const QString& error);
    void showProgress();

    QLineEdit* m_model;
    QLineEdit* m_text;
    QLineEdit* m_out;
    QLineEdit* m_range;
    QLineEdit* m_layers;
    QLineEdit* m_heads;
    QComboBox* m_device;
    QComboBox* m_dtype;
    QCheckBox* m_pyramids;
    QSpinBox* m_pyramidSide;
    QProgressBar* m_progress;
    QLabel* m_stage;
    QPushButton* m_run;
    QPushButton* m_cancel;
    TraceJobRunner* m_runner;
    QTimer* m_tick;  // the elapsed time, once a second while a job runs
    QElapsedTimer m_clock;
    core::TraceProgress m_last;
};

}  // namespace gatescope::widgets
