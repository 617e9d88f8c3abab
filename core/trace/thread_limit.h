// The one rule for how many worker threads a job may ask for (`--threads`, a recipe's
// trace.threads, the viewer's Run Model dialog): 0 means all cores; more than a few times the
// cores only slows a job down, and a huge request (100000) used to stall it creating threads.
#pragma once

#include "data/common/result.h"

namespace gatescope::core {

/// The largest request accepted: 4 x std::thread::hardware_concurrency(), at least 4, at most
/// 1024. Thread-safe.
int maxThreadRequest();

/// Ok for 0 (all cores) up to maxThreadRequest(); otherwise a Usage error whose message names
/// the value and the accepted range (the caller adds the option's name as Error::object).
Status checkThreadCount(int threads);

}  // namespace gatescope::core
