// Streams, events, page-locked host memory and device-to-host copies, for callers that overlap
// copies with work on the legacy default stream (core/trace's layer pipeline). Opaque handles
// (void*: cudaStream_t, cudaEvent_t), so CPU-only code can see this header. Only compiled into
// gatescope_kernels when GATESCOPE_HAS_CUDA is defined. Every function returns an empty string on
// success, else the CUDA error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gatescope::kernels::cuda {

/// A stream that does not synchronize with the legacy default stream (cudaStreamNonBlocking).
std::string createStream(void** stream);
void destroyStream(void* stream);
/// Blocks the calling thread until everything queued on `stream` has completed.
std::string synchronizeStream(void* stream);

/// An event without timing (cheap to record and wait on).
std::string createEvent(void** event);
void destroyEvent(void* event);
/// Records `event` on `stream` (nullptr: the legacy default stream).
std::string recordEvent(void* event, void* stream);
/// Work queued on `stream` after this call waits for `event`.
std::string streamWaitEvent(void* stream, void* event);
/// Blocks the calling thread until `event` has completed.
std::string synchronizeEvent(void* event);

/// Page-locked host memory (cudaMallocHost), so that copies into it are asynchronous.
std::string allocPinned(std::size_t bytes, void** ptr);
void freePinned(void* ptr);

/// Asynchronous device-to-host copy of `bytes` on `stream`.
std::string copyToHostAsync(void* hostDst, const void* deviceSrc, std::size_t bytes, void* stream);

/// Asynchronous device-to-host copy, on `stream`, of the causal part of `count` square float
/// grids stored one after another (side x side each, row-major; the same layout on both sides):
/// for each band of `tile` rows only the columns up to the band's diagonal tile, which is all a
/// pyramid level's causal tiles read. Host cells right of a band's diagonal tile are not written.
std::string copyCausalBandsToHostAsync(float* hostDst, const float* deviceSrc, int count,
                                       std::int64_t side, std::int64_t tile, void* stream);

}  // namespace gatescope::kernels::cuda
