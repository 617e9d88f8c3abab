// TraceJobRunner: runs a trace job (checkpoint folder + text -> trace) on a worker thread,
// reporting progress and the outcome through queued signals, cancellable from the GUI. The job
// function is given by the owner (app/ passes the engine's runTraceJob), so widgets/ links no
// model code. Create and use on the GUI thread; the destructor cancels and waits for the worker.
#pragma once

#include <atomic>
#include <thread>

#include <QObject>
#include <QString>

#include "core/trace/trace_request.h"

namespace gatescope::widgets {

class TraceJobRunner : public QObject {
    Q_OBJECT
public:
    /// `job` runs each request (on the worker thread); it must not be empty.
    explicit TraceJobRunner(core::TraceJobFunction job, QObject* parent = nullptr)
        : QObject(parent), m_job(std::move(job)) {}
    ~TraceJobRunner() override;

    /// Starts the job; false when one is already running.
    bool start(core::TraceRequest request);
    /// Asks the job to stop; finished() follows with a "cancelled" error.
    void cancel() { m_cancel = true; }
    bool running() const { return m_thread.joinable() && !m_done; }
    /// Whether the last job that finished was cancelled (Cancel, or a Cancelled error), so the
    /// owner can say "Cancelled" rather than show the job's error.
    bool lastCancelled() const { return m_lastCancelled; }

signals:
    void progress(double fraction, QString stage);
    /// ok: `path` is the new trace; otherwise `error` says why (no file is left behind).
    void finished(bool ok, QString path, QString error);

private:
    core::TraceJobFunction m_job;
    std::thread m_thread;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_done{true};
    std::atomic<bool> m_lastCancelled{false};
};

}  // namespace gatescope::widgets
