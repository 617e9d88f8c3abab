// Ctrl-C (SIGINT) and SIGTERM become a cancellation flag that long jobs poll, so they stop cleanly
// (no partial file under the final name) instead of dying mid-write.
#pragma once

#include <atomic>

namespace gatescope::app {

/// Installs the handlers (idempotent) and returns the flag they set.
const std::atomic<bool>& installInterruptFlag();

}  // namespace gatescope::app
