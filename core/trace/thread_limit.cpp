#include "core/trace/thread_limit.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

namespace gatescope::core {

int maxThreadRequest() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::clamp(4u * cores, 4u, 1024u));
}

Status checkThreadCount(int threads) {
    if (threads >= 0 && threads <= maxThreadRequest()) return Ok{};
    return Error{ErrorKind::Usage,
                 fmt::format("{} threads: use 0 (all {} cores) up to {} (4 x the cores)", threads,
                             std::max(1u, std::thread::hardware_concurrency()), maxThreadRequest()),
                 {},
                 {}};
}

}  // namespace gatescope::core
