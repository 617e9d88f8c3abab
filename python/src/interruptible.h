// Long calls from Python (a trace job, stats with attention, compare) that Ctrl+C can stop: the
// work runs on a thread of its own without the GIL, while the calling thread waits and, every
// tick, takes the GIL to run Python's signal handlers (PyErr_CheckSignals: KeyboardInterrupt in
// a notebook) and the caller's `tick` (the progress callback). When either raises, the work's
// cancel flag is set, the work is waited for (the core's cancellation leaves no partial output),
// and the Python exception propagates. Call with the GIL held.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include <pybind11/pybind11.h>

namespace gatescope::python {

/// Runs `work(&cancel)` and returns what it returns; `tick` (may be empty) runs with the GIL on
/// the calling thread about every `period`. Exceptions of `work` propagate after it ends.
template <class Work>
auto runInterruptible(Work work, const std::function<void()>& tick = {},
                      std::chrono::milliseconds period = std::chrono::milliseconds(50)) {
    namespace py = pybind11;
    std::atomic<bool> cancel{false};
    auto future = std::async(std::launch::async, [&] { return work(&cancel); });
    for (;;) {
        bool done = false;
        {
            py::gil_scoped_release release;
            done = future.wait_for(period) == std::future_status::ready;
        }
        try {
            if (tick) tick();
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        } catch (...) {
            cancel = true;
            {
                py::gil_scoped_release release;
                future.wait();
            }
            throw;
        }
        if (done) return future.get();
    }
}

}  // namespace gatescope::python
