#include "data/common/background_flush.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace gatescope::data {
namespace {

// Growth is polled: the writer does not know this thread exists, and a stat every few
// milliseconds costs nothing beside the writes it waits for.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

}  // namespace

Result<std::unique_ptr<BackgroundFlush>> BackgroundFlush::start(const std::filesystem::path& path,
                                                                uint64_t stepBytes,
                                                                FlushFunction flush) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{ErrorKind::Io,
                     std::string("cannot open the file to flush it: ") + std::strerror(errno),
                     path.string(),
                     {}};
    return std::unique_ptr<BackgroundFlush>(new BackgroundFlush(path, fd, stepBytes, flush));
}

BackgroundFlush::BackgroundFlush(std::filesystem::path path, int fd, uint64_t stepBytes,
                                 FlushFunction flush)
    : m_path(std::move(path)), m_fd(fd), m_stepBytes(stepBytes), m_flush(flush) {
    m_thread = std::thread([this] { run(); });
}

BackgroundFlush::~BackgroundFlush() {
    (void)stop();
}

Status BackgroundFlush::stop() {
    if (m_thread.joinable()) {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_failure) return *m_failure;
    return Ok{};
}

void BackgroundFlush::run() {
    uint64_t flushedUpTo = 0;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        struct stat st {};
        const uint64_t size = ::fstat(m_fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
        if (size >= flushedUpTo + m_stepBytes && size > 0) {
            lock.unlock();
            ++m_flushes;
            const bool flushed = m_flush(m_fd) == 0;
            const int reason = errno;
            lock.lock();
            if (!flushed) {
                m_failure = Error{ErrorKind::Io,
                                  std::string("cannot flush the file: ") + std::strerror(reason),
                                  m_path.string(),
                                  {}};
                return;
            }
            flushedUpTo = size;
            continue;
        }
        m_wake.wait_for(lock, kPollInterval, [this] { return m_stopping; });
    }
}

}  // namespace gatescope::data
