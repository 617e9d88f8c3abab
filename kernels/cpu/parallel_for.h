// A small fork-join helper for the CPU kernels: splits an index range into chunks and runs them
// on short-lived std::threads (the calling thread works too). No global pool, no state between
// calls, so it is safe to use from any thread, including from several threads at once.
#pragma once

#include <cstdint>
#include <functional>

namespace gatescope::kernels {

/// No call runs more workers than this, whatever it asks for (jobs refuse larger requests up
/// front with a usage error; this is the kernels' own guard).
inline constexpr int kMaxWorkerThreads = 1024;

/// The number of workers a `threads` request means: threads <= 0 asks for
/// std::thread::hardware_concurrency() (at least 1); at most kMaxWorkerThreads.
int resolveThreads(int threads);

/// Calls fn(chunkBegin, chunkEnd) for disjoint, contiguous chunks covering [begin, end), each at
/// most `grain` items long (grain < 1 counts as 1). Up to `threads` workers (0: hardware count,
/// never more than there are chunks) take chunks in increasing order as they become free, so
/// put the most expensive items first for balance. Returns when every chunk is done. fn runs
/// concurrently on different chunks and must be thread-safe. If fn throws, no new chunks start
/// and the first exception is rethrown here after all workers have stopped. The workers run
/// under the calling thread's cancellation test (kernels/cpu/cancel.h), so fn may call
/// throwIfCancelled() wherever it runs.
void parallelFor(int64_t begin, int64_t end, int64_t grain,
                 const std::function<void(int64_t, int64_t)>& fn, int threads = 0);

/// Convenience: fn(i) for every i in [0, count), one item per chunk.
void parallelFor(int64_t count, int threads, const std::function<void(int64_t)>& fn);

}  // namespace gatescope::kernels
