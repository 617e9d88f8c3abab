#include "widgets/gui/what_if_dialog.h"

#include <filesystem>

#include <fmt/format.h>
#include <unistd.h>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "widgets/gui/trace_job_runner.h"

namespace gatescope::widgets {

namespace {
const char* const kWords[] = {"gate=1", "gate", "log_gate", "clamp", "ablate"};
}  // namespace

WhatIfDialog::WhatIfDialog(core::TraceJobFunction job, WhatIfSource source, int layer, int head,
                           int channels, QString stem, QWidget* parent)
    : QDialog(parent),
      m_source(std::move(source)),
      m_layer(layer),
      m_head(head),
      m_stem(std::move(stem)),
      m_runner(new TraceJobRunner(std::move(job), this)) {
    setWindowTitle(QString("What if... (layer %1, head %2)").arg(layer).arg(head));
    m_change = new QComboBox(this);
    m_change->addItems({"forgetting off (gate = 1)", "constant gate (gate = C)",
                        "scale the log gate (log_gate * S)", "clamp the gate (LO..HI)",
                        "ablate the head"});
    auto spin = [this](double lo, double hi, double value) {
        auto* s = new QDoubleSpinBox(this);
        s->setDecimals(3);
        s->setRange(lo, hi);
        s->setSingleStep(0.05);
        s->setValue(value);
        return s;
    };
    m_value = spin(0, 100, 0.5);
    m_low = spin(0, 1, 0.5);
    m_high = spin(0, 1, 1);
    auto* form = new QFormLayout;
    form->addRow("Change", m_change);
    if (channels > 1) {
        m_channel = new QComboBox(this);
        m_channel->addItem(QString("all %1 gate channels").arg(channels));
        for (int c = 0; c < channels; ++c)
            m_channel->addItem(QString("channel %1").arg(c));
        m_channel->setToolTip("Per-channel gates: change one channel of the head's gate, or all");
        form->addRow("Channels", m_channel);
    }
    form->addRow("C or S", m_value);
    form->addRow("Clamp LO", m_low);
    form->addRow("Clamp HI", m_high);
    m_device = new QComboBox(this);
    m_device->addItems({"cpu", "cuda"});
    m_device->setCurrentText(QString::fromStdString(whatIfDevice(m_source.manifest)));
    m_device->setToolTip(
        "Where the changed trace runs (the trace's own device first); its dtype, "
        "documents and recorded layers are the trace's");
    form->addRow("Device", m_device);
    m_status = new QLabel(
        "Runs this trace's checkpoint again on its text with the change (in the trace's dtype, "
        "recording what it recorded), then compares: this trace (A) with the changed one (B).",
        this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_run = new QPushButton("Run", this);
    m_cancel = new QPushButton("Cancel", this);
    m_cancel->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    auto* top = new QVBoxLayout(this);
    top->addLayout(form);
    top->addWidget(m_status);
    top->addWidget(m_progress);
    top->addLayout(buttons);
    connect(m_change, &QComboBox::currentIndexChanged, this, [this] { updateFields(); });
    connect(m_run, &QPushButton::clicked, this, [this] { run(); });
    connect(m_cancel, &QPushButton::clicked, this, [this] { cancel(); });
    connect(m_runner, &TraceJobRunner::progress, this, [this](double f, const QString& stage) {
        m_progress->setValue(static_cast<int>(f * 1000));
        m_status->setText("Running with " + QString::fromStdString(interventionText(choice())) +
                          ": " + stage);
    });
    connect(m_runner, &TraceJobRunner::finished, this, &WhatIfDialog::onFinished);
    updateFields();
}

WhatIfChoice WhatIfDialog::choice() const {
    WhatIfChoice c;
    c.change = static_cast<WhatIfChange>(m_change->currentIndex());
    c.value = m_value->value();
    c.low = m_low->value();
    c.high = m_high->value();
    c.layer = m_layer;
    c.head = m_head;
    if (m_channel && m_channel->currentIndex() > 0) c.channel = m_channel->currentIndex() - 1;
    c.device = m_device->currentText().toStdString();
    return c;
}

bool WhatIfDialog::setChange(const QString& word, double value) {
    for (int i = 0; i < 5; ++i)
        if (word == kWords[i]) {
            m_change->setCurrentIndex(i);
            m_value->setValue(value);
            return true;
        }
    return false;
}

bool WhatIfDialog::setChannel(std::optional<int> channel) {
    if (!channel) {
        if (m_channel) m_channel->setCurrentIndex(0);
        return true;
    }
    if (!m_channel || *channel < 0 || *channel + 1 >= m_channel->count()) return false;
    m_channel->setCurrentIndex(*channel + 1);
    return true;
}

void WhatIfDialog::updateFields() {
    const auto change = static_cast<WhatIfChange>(m_change->currentIndex());
    m_value->setEnabled(change == WhatIfChange::Constant || change == WhatIfChange::ScaleLog);
    m_low->setEnabled(change == WhatIfChange::Clamp);
    m_high->setEnabled(change == WhatIfChange::Clamp);
    // Ablation removes the head's output: there is no channel to choose.
    if (m_channel) m_channel->setEnabled(change != WhatIfChange::Ablate);
}

QString WhatIfDialog::statusText() const {
    return m_status->text();
}

void WhatIfDialog::run() {
    if (m_runner->running()) return;
    const WhatIfChoice c = choice();
    const auto dir = std::filesystem::temp_directory_path() / "gatescope-what-if";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string name = fmt::format("{}-l{}h{}{}-{}-{}", m_stem.toStdString(), c.layer, c.head,
                                         c.channel ? fmt::format("c{}", *c.channel) : std::string(),
                                         static_cast<int>(c.change), getpid());
    auto request = whatIfRequest(m_source, c, dir / (name + ".txt"), dir / (name + ".h5"));
    if (!request) {
        m_status->setText(QString::fromStdString(request.error().message));
        emit jobFinished(false);
        return;
    }
    std::filesystem::remove(request->out, ec);  // a run before this one with the same choice
    m_progress->setValue(0);
    m_status->setText("Running with " + QString::fromStdString(interventionText(c)) + " ...");
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_runner->start(*request);
}

void WhatIfDialog::cancel() {
    m_runner->cancel();
}

void WhatIfDialog::onFinished(bool ok, const QString& path, const QString& error) {
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    if (ok) {
        m_progress->setValue(1000);
        m_status->setText("Done: opening compare mode with " + path);
        emit traceReady(path);
    } else {
        m_status->setText(m_runner->lastCancelled() ? "Cancelled: no trace was written"
                                                    : "Failed: " + error);
    }
    emit jobFinished(ok);
}

}  // namespace gatescope::widgets
