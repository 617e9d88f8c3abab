#include "widgets/gui/run_model_dialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
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
}  // namespace

RunModelDialog::RunModelDialog(core::TraceJobFunction job, QWidget* parent) : QDialog(parent) {
    setWindowTitle("Run a checkpoint on a text");
    m_model = new QLineEdit(this);
    m_text = new QLineEdit(this);
    m_out = new QLineEdit(QDir::temp().filePath("gatescope-trace.h5"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_stage = new QLabel(this);
    m_run = new QPushButton("Run", this);
    m_cancel = new QPushButton("Cancel", this);
    m_runner = new TraceJobRunner(std::move(job), this);
    auto* form = new QFormLayout;
    form->addRow("Checkpoint folder", withBrowse(m_model, this, true, false));
    form->addRow("Input text", withBrowse(m_text, this, false, false));
    form->addRow("Trace to write", withBrowse(m_out, this, false, true));
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_stage);
    layout->addLayout(buttons);
    connect(m_run, &QPushButton::clicked, this, &RunModelDialog::run);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_runner->running())
            m_runner->cancel();
        else
            reject();
    });
    connect(m_runner, &TraceJobRunner::progress, this, [this](double f, const QString& stage) {
        m_progress->setValue(static_cast<int>(f * 1000));
        m_stage->setText(stage);
    });
    connect(m_runner, &TraceJobRunner::finished, this, &RunModelDialog::onFinished);
}

void RunModelDialog::run() {
    core::TraceRequest request;
    request.modelDir = m_model->text().toStdString();
    request.input.path = m_text->text().toStdString();
    request.out = m_out->text().toStdString();
    if (m_runner->start(request)) {
        m_run->setEnabled(false);
        m_stage->setText("starting");
    }
}

void RunModelDialog::onFinished(bool ok, const QString& path, const QString& error) {
    m_run->setEnabled(true);
    if (!ok) {
        m_stage->setText("Failed: " + error);
        return;
    }
    emit traceReady(path);
    accept();
}

}  // namespace gatescope::widgets
