// WhatIfDialog: right-click on the map > What if... (issue 27). For the shown layer and head,
// choose a change (forgetting off, a constant gate, a scaled log gate, a clamp, or the head
// ablated: `trace --intervene`'s changes) and, for per-channel gates (Wall, GSA), all of the
// head's gate channels or one, then Run: the current trace's checkpoint (from its
// manifest) runs again on the trace's own text with that intervention, on a worker
// (TraceJobRunner, the injected trace job) with progress and Cancel. When it is done,
// traceReady(path) asks the window to open compare mode: the current trace as A, the
// intervened one as B. A trace that cannot be run again says why in the dialog. GUI thread only.
#pragma once

#include <optional>

#include <QDialog>

#include "core/trace/trace_request.h"
#include "widgets/view/what_if.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace gatescope::widgets {

class TraceJobRunner;

class WhatIfDialog : public QDialog {
    Q_OBJECT
public:
    /// `job` runs the trace; `source` is the current trace's manifest and source bytes; `stem`
    /// names the output (written under the temporary folder); `channels`: the layer's gate
    /// channels per head (1: scalar gates, no channel choice).
    WhatIfDialog(core::TraceJobFunction job, WhatIfSource source, int layer, int head, int channels,
                 QString stem, QWidget* parent = nullptr);

    /// The change as chosen in the form.
    WhatIfChoice choice() const;
    /// Selects a change by its `--intervene` spelling ("gate=1", "gate", "log_gate", "clamp",
    /// "ablate"), with `value` for gate=C and log_gate*S. False for another word.
    bool setChange(const QString& word, double value);
    /// One gate channel of the head (per-channel gates), or none for all; false when the layer
    /// has no such channel.
    bool setChannel(std::optional<int> channel);
    /// Presses Run / Cancel.
    void run();
    void cancel();
    /// The status line (what the job does, or why it cannot run).
    QString statusText() const;

signals:
    void traceReady(QString path);
    void jobFinished(bool ok);

private:
    void updateFields();
    void onFinished(bool ok, const QString& path, const QString& error);

    WhatIfSource m_source;
    int m_layer, m_head;
    QString m_stem;
    TraceJobRunner* m_runner;
    QComboBox* m_change;
    QComboBox* m_channel = nullptr;  ///< per-channel gates only: all, then channel 0, 1, ...
    QComboBox* m_device;             ///< cpu, cuda; the trace's own first
    QDoubleSpinBox* m_value;
    QDoubleSpinBox* m_low;
    QDoubleSpinBox* m_high;
    QLabel* m_status;
    QProgressBar* m_progress;
    QPushButton* m_run;
    QPushButton* m_cancel;
};

}  // namespace gatescope::widgets
