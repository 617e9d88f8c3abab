#include "widgets/gui/trace_job_runner.h"

#include <QMetaObject>

namespace gatescope::widgets {

TraceJobRunner::~TraceJobRunner() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

bool TraceJobRunner::start(core::TraceRequest request) {
    if (running()) return false;
    if (m_thread.joinable()) m_thread.join();
    m_cancel = false;
    m_done = false;
    m_thread = std::thread([this, request = std::move(request)] {
        auto outcome = m_job(
            request,
            [this](const core::TraceProgress& p) {
                const QString stage = QString::fromStdString(p.stage);
                const double f = p.fraction;
                QMetaObject::invokeMethod(
                    this, [this, f, stage] { emit progress(f, stage); }, Qt::QueuedConnection);
            },
            &m_cancel);
        const bool ok = outcome.ok();
        const QString path = ok ? QString::fromStdString(outcome->path.string()) : QString();
        const QString error = ok ? QString() : QString::fromStdString(outcome.error().describe());
        m_lastCancelled = !ok && (m_cancel || outcome.error().kind == ErrorKind::Cancelled);
        m_done = true;
        QMetaObject::invokeMethod(
            this, [this, ok, path, error] { emit finished(ok, path, error); },
            Qt::QueuedConnection);
    });
    return true;
}

}  // namespace gatescope::widgets
