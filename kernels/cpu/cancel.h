// Cancellation that reaches inside long CPU kernels. A job installs a CancelScope on the thread
// that runs its forward; the kernels poll it per query block (and every few key blocks), and
// parallelFor hands the scope on to the workers it starts, so a Ctrl-C (or the viewer's Cancel)
// stops a 200k-token attention within milliseconds instead of at the next layer. The scope is
// per thread, like LibTorch's grad mode: code that installs none never sees a cancellation.
#pragma once

#include <exception>
#include <functional>

namespace gatescope::kernels {

/// Thrown by throwIfCancelled(); the job that installed the scope catches it (core turns it into
/// ErrorKind::Cancelled). Outputs of the interrupted kernel are then unspecified.
struct Cancelled : std::exception {
    const char* what() const noexcept override { return "cancelled"; }
};

/// Installs `isCancelled` as this thread's cancellation test until destruction, then restores the
/// previous one (scopes nest; an empty `isCancelled` leaves the enclosing scope in force).
/// `isCancelled` is called from the kernels' worker threads too, at any time while the scope lives,
/// so it must be thread-safe and cheap (an atomic load); it must outlive the scope. Not copyable or
/// movable; create it on the stack.
class CancelScope {
public:
    explicit CancelScope(const std::function<bool()>& isCancelled);
    ~CancelScope();
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

private:
    const std::function<bool()>* m_previous;
};

/// This thread's cancellation test (set by a CancelScope here, or handed on by parallelFor), or
/// null. parallelFor passes it to its workers with AdoptCancel.
const std::function<bool()>* currentCancelTest();

/// Makes `test` (may be null) this thread's test until destruction: what parallelFor's workers run
/// under. Restores the previous one.
class AdoptCancel {
public:
    explicit AdoptCancel(const std::function<bool()>* test);
    ~AdoptCancel();
    AdoptCancel(const AdoptCancel&) = delete;
    AdoptCancel& operator=(const AdoptCancel&) = delete;

private:
    const std::function<bool()>* m_previous;
};

/// True when this thread runs under a scope whose test says so.
bool cancelRequested();

/// Throws Cancelled when cancelRequested(). What the kernels call between blocks.
void throwIfCancelled();

}  // namespace gatescope::kernels
