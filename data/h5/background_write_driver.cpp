#include "data/h5/background_write_driver.h"
#include "data/h5/file_driver_parts.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>

#include <fmt/format.h>

namespace gatescope::data::h5 {
// Named: in a unity build, the other driver's anonymous helpers share this file's scope.
namespace background_write {

/// Bytes queued for the I/O thread at most; a handed-over write waits for room beyond it. Small
/// enough that the I/O thread copies chunks the encoders wrote recently (still in the last-level
/// cache: docs/benchmarks.md, session 24), large enough to cover creating a layer's datasets.
constexpr size_t kQueueBytes = size_t{32} << 20;

thread_local std::vector<unsigned char>* t_handoff = nullptr;

struct Queued {
    haddr_t addr = 0;
    std::vector<unsigned char> bytes;
};

/// One open file. `pub` first: HDF5 sees an H5FD_t. eoa, eof and the descriptor belong to
/// HDF5's (serial) calls; the queue, the failure and the flags to `mutex`.
struct WriterFile {
    H5FD_t pub;
    std::string name;
    int fd = -1;
    dev_t device = 0;
    ino_t inode = 0;
    haddr_t eoa = 0, eof = 0;

    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Queued> queue;
    size_t queuedBytes = 0;  ///< queued and in flight
    haddr_t flightAddr = 0;  ///< the write the I/O thread is doing, when flightSize > 0
    size_t flightSize = 0;
    bool stopping = false, detached = false;
    std::string failure;  ///< the first failed background write
    std::thread io;

    bool overlapsPending(haddr_t addr, size_t size) const {
        auto overlaps = [&](haddr_t at, size_t n) { return at < addr + size && addr < at + n; };
        if (flightSize > 0 && overlaps(flightAddr, flightSize)) return true;
        for (const Queued& q : queue)
            if (overlaps(q.addr, q.bytes.size())) return true;
        return false;
    }
    bool idle() const { return queue.empty() && flightSize == 0; }
};

WriterFile* self(H5FD_t* file) {
    return reinterpret_cast<WriterFile*>(file);
}
const WriterFile* self(const H5FD_t* file) {
    return reinterpret_cast<const WriterFile*>(file);
}

void pushError(const std::string& message) {
    H5Epush2(H5E_DEFAULT, __FILE__, "background write driver", __LINE__, H5E_ERR_CLS, H5E_VFL,
             H5E_WRITEERROR, "%s", message.c_str());
}

/// Empty when all `size` bytes were written at `addr`, else why not.
std::string writeAll(int fd, const std::string& name, haddr_t addr, size_t size,
                     const unsigned char* bytes) {
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::pwrite(fd, bytes + done, size - done, static_cast<off_t>(addr + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return fmt::format("cannot write {} bytes at byte {} of '{}': {}", size, addr, name,
                               n < 0 ? std::strerror(errno) : "nothing written");
        done += static_cast<size_t>(n);
    }
    return {};
}

void runWrites(WriterFile* f) {
    std::unique_lock lock(f->mutex);
    for (;;) {
        f->changed.wait(lock, [&] { return f->stopping || !f->queue.empty(); });
        if (f->queue.empty()) return;  // stopping, and all written
        Queued item = std::move(f->queue.front());
        f->queue.pop_front();
        f->flightAddr = item.addr;
        f->flightSize = item.bytes.size();
        const bool skip = !f->failure.empty() || f->detached;
        lock.unlock();
        std::string error =
            skip ? std::string()
                 : writeAll(f->fd, f->name, item.addr, item.bytes.size(), item.bytes.data());
        item.bytes = {};
        lock.lock();
        if (!error.empty() && f->failure.empty() && !f->detached) f->failure = std::move(error);
        f->queuedBytes -= f->flightSize;
        f->flightSize = 0;
        f->changed.notify_all();
    }
}

/// False, with the error pushed, when an earlier background write failed.
bool noFailure(WriterFile* f) {
    std::lock_guard lock(f->mutex);
    if (f->failure.empty() || f->detached) return true;
    pushError(f->failure);
    return false;
}

/// Waits until nothing is queued or in flight; false as noFailure().
bool drain(WriterFile* f) {
    {
        std::unique_lock lock(f->mutex);
        f->changed.wait(lock, [&] { return f->idle(); });
    }
    return noFailure(f);
}

/// Queues `bytes` for `addr`; false when the I/O thread cannot start (write them in place).
bool enqueue(WriterFile* f, haddr_t addr, std::vector<unsigned char>& bytes) {
    std::unique_lock lock(f->mutex);
    if (!f->io.joinable()) {
        try {
            f->io = std::thread(runWrites, f);
        } catch (const std::system_error&) {
            return false;
        }
    }
    const size_t size = bytes.size();
    f->changed.wait(lock,
                    [&] { return f->queuedBytes == 0 || f->queuedBytes + size <= kQueueBytes; });
    f->queue.push_back(Queued{addr, std::move(bytes)});
    f->queuedBytes += size;
    f->changed.notify_all();
    return true;
}

H5FD_t* open(const char* name, unsigned flags, hid_t, haddr_t) {
    int oflags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) oflags |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) oflags |= O_CREAT;
    if (flags & H5F_ACC_EXCL) oflags |= O_EXCL;
    auto file = std::make_unique<WriterFile>();
    std::memset(&file->pub, 0, sizeof file->pub);
    file->name = name;
    if (std::string failed = openDescriptor(*file, name, oflags); !failed.empty()) {
        pushError(failed);
        return nullptr;
    }
    return &file.release()->pub;
}

herr_t close(H5FD_t* file) {
    WriterFile* f = self(file);
    {
        std::lock_guard lock(f->mutex);
        f->stopping = true;
    }
    f->changed.notify_all();
    if (f->io.joinable()) f->io.join();
    const bool ok = noFailure(f);
    if (f->fd >= 0 && ::close(f->fd) != 0 && ok) {
        f->fd = -1;
        pushError(fmt::format("cannot close '{}': {}", f->name, std::strerror(errno)));
        return -1;
    }
    f->fd = -1;
    // Kept, as sec2 keeps its own, when the close fails: HDF5 may still hold the file.
    if (!ok) return -1;
    delete f;
    return 0;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
    auto key = [](const WriterFile* f) { return std::tuple(f->device, f->inode); };
    return key(self(a)) < key(self(b)) ? -1 : (key(self(b)) < key(self(a)) ? 1 : 0);
}

// As sec2: bytes past the end of the file read as zeros.
herr_t read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buffer) {
    WriterFile* f = self(file);
    {
        std::unique_lock lock(f->mutex);
        f->changed.wait(lock, [&] { return !f->overlapsPending(addr, size); });
    }
    auto* out = static_cast<unsigned char*>(buffer);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(f->fd, out + done, size - done, static_cast<off_t>(addr + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            pushError(fmt::format("cannot read {} bytes at byte {} of '{}': {}", size, addr,
                                  f->name, std::strerror(errno)));
            return -1;
        }
        if (n == 0) break;
        done += static_cast<size_t>(n);
    }
    std::memset(out + done, 0, size - done);
    return 0;
}

herr_t write(H5FD_t* file, H5FD_mem_t type, hid_t, haddr_t addr, size_t size, const void* buffer) {
    WriterFile* f = self(file);
    if (addr + size < addr || addr + size > f->eoa) {
        pushError(fmt::format("write of {} bytes at byte {} past the allocated end of '{}'", size,
                              addr, f->name));
        return -1;
    }
    if (!noFailure(f)) return -1;
    std::vector<unsigned char>* handed = t_handoff;
    const bool handedOver = type == H5FD_MEM_DRAW && handed != nullptr && size > 0 &&
                            handed->data() == buffer && handed->size() == size;
    if (handedOver) t_handoff = nullptr;  // one write per handoff
    if (!handedOver || !enqueue(f, addr, *handed)) {
        {
            std::unique_lock lock(f->mutex);
            f->changed.wait(lock, [&] { return !f->overlapsPending(addr, size); });
        }
        const std::string error =
            writeAll(f->fd, f->name, addr, size, static_cast<const unsigned char*>(buffer));
        if (!error.empty()) {
            pushError(error);
            return -1;
        }
    }
    f->eof = std::max(f->eof, addr + size);
    return 0;
}

herr_t flush(H5FD_t* file, hid_t, hbool_t) {
    return drain(self(file)) ? 0 : -1;
}

herr_t truncate(H5FD_t* file, hid_t, hbool_t) {
    WriterFile* f = self(file);
    if (!drain(f)) return -1;
    if (f->eoa == f->eof) return 0;
    if (::ftruncate(f->fd, static_cast<off_t>(f->eoa)) != 0) {
        pushError(fmt::format("cannot set the size of '{}' to {} bytes: {}", f->name, f->eoa,
                              std::strerror(errno)));
        return -1;
    }
    f->eof = f->eoa;
    return 0;
}

// As sec2: a lock other processes honour; file systems without flock() go unlocked.
herr_t lock(H5FD_t* file, hbool_t forWriting) {
    if (::flock(self(file)->fd, (forWriting ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 || errno == ENOSYS)
        return 0;
    pushError(fmt::format("cannot lock '{}': {}", self(file)->name, std::strerror(errno)));
    return -1;
}
herr_t unlock(H5FD_t* file) {
    if (::flock(self(file)->fd, LOCK_UN) == 0 || errno == ENOSYS) return 0;
    pushError(fmt::format("cannot unlock '{}': {}", self(file)->name, std::strerror(errno)));
    return -1;
}

H5FD_class_t makeClass() {
    H5FD_class_t cls;
    std::memset(&cls, 0, sizeof cls);
    fillAddressCallbacks<WriterFile>(cls);
    cls.name = "gatescope_background_write";
    cls.open = open;
    cls.close = close;
    cls.cmp = compare;
    cls.read = read;
    cls.write = write;
    cls.flush = flush;
    cls.truncate = truncate;
    cls.lock = lock;
    cls.unlock = unlock;
    return cls;
}

hid_t backgroundWriteDriver() {
    static const H5FD_class_t cls = makeClass();
    static const hid_t driver = H5FDregister(&cls);
    return driver;
}

}  // namespace background_write

RawBytesHandoff::RawBytesHandoff(std::vector<unsigned char>& bytes) {
    background_write::t_handoff = &bytes;
}

RawBytesHandoff::~RawBytesHandoff() {
    background_write::t_handoff = nullptr;
}

Status useBackgroundWriteDriver(hid_t fapl, const Location& where) {
    const hid_t driver = background_write::backgroundWriteDriver();
    if (driver < 0) return makeError(ErrorKind::Internal, where, "cannot register the file driver");
    return check(H5Pset_driver(fapl, driver, nullptr), ErrorKind::Internal, where,
                 "cannot select the file driver");
}

bool detachBackgroundWrites(hid_t file) {
    void* handle = driverState(file, background_write::backgroundWriteDriver());
    if (handle == nullptr) return false;
    auto* f = static_cast<background_write::WriterFile*>(handle);
    {
        std::lock_guard lock(f->mutex);
        f->detached = true;
        for (const background_write::Queued& q : f->queue)
            f->queuedBytes -= q.bytes.size();
        f->queue.clear();
        f->changed.notify_all();
    }
    const int memory = memfd_create("gatescope-abandoned-hdf5", MFD_CLOEXEC);
    if (memory < 0) return false;
    const bool redirected = dup2(memory, f->fd) == f->fd;
    ::close(memory);
    return redirected;
}

}  // namespace gatescope::data::h5
