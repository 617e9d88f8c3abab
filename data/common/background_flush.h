// Writes a growing file's dirty pages to disk while the file is still being written. Linux keeps
// written pages in memory until a tenth of free memory is dirty (or 30 s pass), so on a machine
// with 128 GB a 2 GB trace reached the disk only in commit's fsync, after the last byte: the
// trace took its write time plus the disk's. With this running beside the writer, the disk works
// while the trace is produced, and the final fsync waits only for the tail.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

#include "data/common/result.h"

namespace gatescope::data {

/// A thread that fdatasyncs `path` each time it has grown by `stepBytes` since the last flush
/// began (fdatasync, not sync_file_range: through overlayfs only fsync reaches the real file).
/// It opens its own read-only descriptor, so the file's writer (HDF5 here) is untouched.
///
/// Errors: a failed flush is kept and returned by stop(). Its caller must not commit the file
/// then: the kernel reports a writeback error once per file, and this thread may have been the
/// one told. Threading: start, stop and the destructor from one thread.
class BackgroundFlush {
public:
    /// How a flush is done: fdatasync's contract (0, or -1 with errno set). Tests pass a failing
    /// one.
    using FlushFunction = int (*)(int fd);

    /// Opens `path` (which must exist) and starts the thread. Errors: Io naming `path`.
    static Result<std::unique_ptr<BackgroundFlush>> start(const std::filesystem::path& path,
                                                          uint64_t stepBytes = 64u << 20,
                                                          FlushFunction flush = ::fdatasync);
    ~BackgroundFlush();
    BackgroundFlush(const BackgroundFlush&) = delete;
    BackgroundFlush& operator=(const BackgroundFlush&) = delete;

    /// Ends the thread (a flush in progress completes first) and closes the descriptor. Returns
    /// the first failed flush's error (Io naming the file, with the reason). Idempotent.
    Status stop();

    /// Flushes begun so far (for tests and benchmarks).
    int flushes() const { return m_flushes.load(); }

private:
    BackgroundFlush(std::filesystem::path path, int fd, uint64_t stepBytes, FlushFunction flush);
    void run();

    std::filesystem::path m_path;
    int m_fd = -1;
    uint64_t m_stepBytes;
    FlushFunction m_flush;
    std::atomic<int> m_flushes{0};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    std::optional<Error> m_failure;  ///< set by the thread; read after join
    std::thread m_thread;
};

}  // namespace gatescope::data
