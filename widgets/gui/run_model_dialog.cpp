#include "widgets/gui/run_model_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/gui/trace_job_runner.h"

namespace gatescope::widgets {

namespace {
QWidget* withBrowse(QLineEdit* edit, QWidget* parent, bool folder, bool save) {
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit);
    auto* browse = new QPushButton("Browse...", row);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, row, [edit, parent, folder, save] {
        const QString path = folder ? QFileDialog::getExistingDirectory(parent, "Checkpoint folder")
                             : save ? QFileDialog::getSaveFileName(parent, "Write trace",
                                                                   edit->text(), "Traces (*.h5)")
                                    : QFileDialog::getOpenFileName(parent, "Input text");
        if (!path.isEmpty()) edit->setText(path);
    });
    return row;
}

QLineEdit* lineEdit(QWidget* parent, const QString& name, const QString& placeholder = {}) {
    auto* edit = new QLineEdit(parent);
    edit->setObjectName(name);
    edit->setPlaceholderText(placeholder);
    return edit;
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

/// QSettings keys of the form, under "runModel/".
RunInputs loadInputs() {
    QSettings st;
    RunInputs in;
    auto text = [&](const char* key, const std::string& fallback) {
        return st.value(QString("runModel/") + key, q(fallback)).toString().toStdString();
    };
    in.model = text("model", in.model);
    in.input = text("input", in.input);
    in.out = text("out", QDir::temp().filePath("gatescope-trace.h5").toStdString());
    in.range = text("range", in.range);
    in.layers = text("layers", in.layers);
    in.heads = text("heads", in.heads);
    in.device = text("device", in.device);
    in.dtype = text("dtype", in.dtype);
    in.pyramids = st.value("runModel/pyramids", in.pyramids).toBool();
    in.pyramidSide = st.value("runModel/pyramidSide", qlonglong(in.pyramidSide)).toLongLong();
    return in;
}

void saveInputs(const RunInputs& in) {
    QSettings st;
    st.setValue("runModel/model", q(in.model));
    st.setValue("runModel/input", q(in.input));
    st.setValue("runModel/out", q(in.out));
    st.setValue("runModel/range", q(in.range));
    st.setValue("runModel/layers", q(in.layers));
    st.setValue("runModel/heads", q(in.heads));
    st.setValue("runModel/device", q(in.device));
    st.setValue("runModel/dtype", q(in.dtype));
    st.setValue("runModel/pyramids", in.pyramids);
    st.setValue("runModel/pyramidSide", qlonglong(in.pyramidSide));
}
}  // namespace

RunModelDialog::RunModelDialog(core::TraceJobFunction job, QWidget* parent) : QDialog(parent) {
    setWindowTitle("Run a checkpoint on a text");
    m_model = lineEdit(this, "model");
    m_text = lineEdit(this, "input");
    m_out = lineEdit(this, "out");
    m_range = lineEdit(this, "range", "all tokens; or START:END, e.g. 0:4096");
    m_layers = lineEdit(this, "layers", "all; or e.g. 0,5,10-12");
    m_heads = lineEdit(this, "heads", "all; or e.g. 0-3");
    m_device = new QComboBox(this);
    m_device->setObjectName("device");
    m_device->setEditable(true);  // cuda:1 and the like
    m_device->addItems({"cpu", "cuda"});
    m_dtype = new QComboBox(this);
    m_dtype->setObjectName("dtype");
    m_dtype->addItems({"float32", "bfloat16"});
    m_pyramids = new QCheckBox("build attention and decay pyramids", this);
    m_pyramids->setObjectName("pyramids");
    m_pyramidSide = new QSpinBox(this);
    m_pyramidSide->setObjectName("pyramidSide");
    m_pyramidSide->setRange(1, 16384);
    m_pyramidSide->setSuffix(" cells a side");
    connect(m_pyramids, &QCheckBox::toggled, m_pyramidSide, &QWidget::setEnabled);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_stage = new QLabel(this);
    m_stage->setObjectName("stage");
    m_stage->setWordWrap(true);  // errors are long: wrapped, and selectable to copy
    m_stage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_run = new QPushButton("Run", this);
    m_cancel = new QPushButton("Cancel", this);
    m_runner = new TraceJobRunner(std::move(job), this);
    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    auto* form = new QFormLayout;
    form->addRow("Checkpoint folder", withBrowse(m_model, this, true, false));
    form->addRow("Input text", withBrowse(m_text, this, false, false));
    form->addRow("Trace to write", withBrowse(m_out, this, false, true));
    form->addRow("Token range (--range)", m_range);
    form->addRow("Layers (--layers)", m_layers);
    form->addRow("Pyramid heads (--heads)", m_heads);
    form->addRow("Device (--device)", m_device);
    form->addRow("Precision (--dtype)", m_dtype);
    form->addRow("Pyramids", m_pyramids);
    form->addRow("Finest level (--pyramid-side)", m_pyramidSide);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_stage);
    layout->addLayout(buttons);
    setInputs(loadInputs());
    connect(m_run, &QPushButton::clicked, this, &RunModelDialog::run);
    connect(m_cancel, &QPushButton::clicked, this, &RunModelDialog::cancel);
    connect(m_runner, &TraceJobRunner::progress, this, [this](double f, const QString& stage) {
        m_last.fraction = f;
        m_last.stage = stage.toStdString();
        showProgress();
    });
    connect(m_tick, &QTimer::timeout, this, &RunModelDialog::showProgress);
    connect(m_runner, &TraceJobRunner::finished, this, &RunModelDialog::onFinished);
}

RunInputs RunModelDialog::inputs() const {
    RunInputs in;
    in.model = m_model->text().toStdString();
    in.input = m_text->text().toStdString();
    in.out = m_out->text().toStdString();
    in.range = m_range->text().trimmed().toStdString();
    in.layers = m_layers->text().trimmed().toStdString();
    in.heads = m_heads->text().trimmed().toStdString();
    in.device = m_device->currentText().trimmed().toStdString();
    in.dtype = m_dtype->currentText().toStdString();
    in.pyramids = m_pyramids->isChecked();
    in.pyramidSide = m_pyramidSide->value();
    return in;
}

void RunModelDialog::setInputs(const RunInputs& in) {
    m_model->setText(q(in.model));
    m_text->setText(q(in.input));
    m_out->setText(q(in.out));
    m_range->setText(q(in.range));
    m_layers->setText(q(in.layers));
    m_heads->setText(q(in.heads));
    m_device->setCurrentText(q(in.device));
    m_dtype->setCurrentText(q(in.dtype));
    m_pyramids->setChecked(in.pyramids);
    m_pyramidSide->setValue(static_cast<int>(in.pyramidSide));
    m_pyramidSide->setEnabled(in.pyramids);
}

QString RunModelDialog::stageText() const {
    return m_stage->text();
}

void RunModelDialog::run() {
    const RunInputs in = inputs();
    saveInputs(in);  // remembered even when the run fails: fix one field and run again
    auto request = toTraceRequest(in);
    if (!request) {
        m_stage->setText(q("Not run: " + request.error().describe()));
        return;
    }
    if (m_runner->start(*request)) {
        m_run->setEnabled(false);
        m_last = core::TraceProgress{0, "loading", 0};
        m_clock.start();
        m_tick->start();
        showProgress();
    }
}

void RunModelDialog::cancel() {
    if (m_runner->running())
        m_runner->cancel();
    else
        reject();
}

void RunModelDialog::showProgress() {
    // Until the first layer is recorded the job cannot say how far it is: a busy bar.
    if (m_last.fraction <= 0)
        m_progress->setRange(0, 0);
    else
        m_progress->setRange(0, 1000),
            m_progress->setValue(static_cast<int>(m_last.fraction * 1000));
    m_stage->setText(
        q(describeProgress(m_last, m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0)));
}

void RunModelDialog::onFinished(bool ok, const QString& path, const QString& error) {
    m_tick->stop();
    m_run->setEnabled(true);
    m_progress->setRange(0, 1000);
    m_progress->setValue(ok ? 1000 : 0);
    m_stage->setText(q(describeOutcome(ok, m_runner->lastCancelled(), error.toStdString())));
    emit jobFinished(ok);
    if (!ok) return;
    emit traceReady(path);
    accept();
}

}  // namespace gatescope::widgets
