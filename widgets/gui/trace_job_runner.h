// TraceJobRunner: runs core::runTraceJob (checkpoint folder + text -> trace) on a worker thread,
// reporting progress and the outcome through queued signals, cancellable from the GUI.
// Create and use on the GUI thread; the destructor cancels and waits for the worker.
#pragma once

#include <atomic>
#include <thread>

#include <QObject>
#include <QString>

#include "engine/trace/trace_job.h"

namespace gatescope::widgets {

class TraceJobRunner : public QObject {
    Q_OBJECT
public:
    explicit TraceJobRunner(QObject* parent = nullptr) : QObject(parent) {}
    ~TraceJobRunner() override;

    /// Starts the job; false when one is already running.
    bool start(core::TraceRequest request);
    /// Asks the job to stop; finished() follows with a "cancelled" error.
    void cancel() { m_cancel = true; }
    bool running() const { return m_thread.joinable() && !m_done; }

signals:
    void progress(double fraction, QString stage);
    /// ok: `path` is the new trace; otherwise `error` says why (no file is left behind).
    void finished(bool ok, QString path, QString error);

private:
    std::thread m_thread;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_done{true};
};

}  // namespace gatescope::widgets
