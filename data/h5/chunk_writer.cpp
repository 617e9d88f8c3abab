#include "data/h5/chunk_writer.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace gatescope::data::h5 {
namespace {

int resolveThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Stored from the caller's memory as it is: nothing to encode or gather.
bool storedAsIs(const ChunkSet& set, const PlainChunk& chunk) {
    return set.encoding.compression == Compression::None && !chunk.fill;
}

}  // namespace

// Named, not anonymous: ChunkWriter::Pool (external linkage) points at it.
namespace chunk_job {

/// One write(): its chunks in order, taken by the encoders one at a time (at most `window` ahead
/// of the store) and stored by the caller in order as each becomes ready.
struct Job {
    const std::vector<ChunkSet>* sets = nullptr;
    std::vector<std::pair<uint32_t, uint32_t>> order;  ///< (set, chunk)
    size_t window = 1;
    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::condition_variable readyChanged, storedChanged;
    /// Per chunk, set once it is encoded (a chunk is ready when it has a value); guarded by mutex.
    std::vector<std::optional<Result<std::vector<unsigned char>>>> encoded;
    size_t stored = 0;   ///< guarded by mutex
    bool abort = false;  ///< guarded by mutex
    int holders = 0;     ///< encoders inside encodeAll(); guarded by Pool::mutex

    Result<std::vector<unsigned char>> encode(size_t i) const {
        const auto [s, c] = order[i];
        const ChunkSet& set = (*sets)[s];
        const PlainChunk& chunk = set.chunks[c];
        if (storedAsIs(set, chunk)) return std::vector<unsigned char>();
        if (!chunk.fill) return encodeChunk(chunk.data, set.chunkBytes, set.encoding);
        std::vector<unsigned char> filled(set.chunkBytes);
        chunk.fill(filled.data());
        if (set.encoding.compression == Compression::None) return filled;
        return encodeChunk(filled.data(), set.chunkBytes, set.encoding);
    }

    /// An encoder's loop: takes chunks until none is left or the write is abandoned.
    void encodeAll() {
        for (size_t i; (i = next.fetch_add(1)) < order.size();) {
            {
                std::unique_lock lock(mutex);
                storedChanged.wait(lock, [&] { return abort || i < stored + window; });
                if (abort) return;
            }
            auto bytes = encode(i);
            {
                std::lock_guard lock(mutex);
                encoded[i] = std::move(bytes);
            }
            readyChanged.notify_one();
        }
    }
};

}  // namespace chunk_job

using chunk_job::Job;

// Encoders wait for a posted job and work on it until it has no chunk left; the caller unposts
// the job and waits until no encoder holds it before it goes away.
struct ChunkWriter::Pool {
    int threads = 1;
    std::mutex mutex;
    std::condition_variable work, idle;
    Job* posted = nullptr;
    uint64_t generation = 0;
    bool stopping = false;
    std::vector<std::thread> encoders;

    void startEncoders() {
        if (!encoders.empty() || threads <= 1) return;
        try {
            for (int w = 1; w < threads; ++w)
                encoders.emplace_back([this] { run(); });
        } catch (const std::system_error&) {  // fewer encoders
        }
    }

    void run() {
        uint64_t seen = 0;
        for (;;) {
            Job* job = nullptr;
            {
                std::unique_lock lock(mutex);
                work.wait(lock, [&] { return stopping || (posted && generation != seen); });
                if (stopping) return;
                seen = generation;
                job = posted;
                ++job->holders;
            }
            job->encodeAll();
            std::lock_guard lock(mutex);
            if (--job->holders == 0) idle.notify_all();
        }
    }

    void post(Job& job) {
        {
            std::lock_guard lock(mutex);
            posted = &job;
            ++generation;
        }
        work.notify_all();
    }

    /// Stops `job` (abandoned: encoders take nothing more) and waits until no encoder holds it.
    void retire(Job& job, bool abandoned) {
        if (abandoned) {
            {
                std::lock_guard lock(job.mutex);
                job.abort = true;
            }
            job.storedChanged.notify_all();
        }
        std::unique_lock lock(mutex);
        if (posted == &job) posted = nullptr;
        idle.wait(lock, [&] { return job.holders == 0; });
    }

    ~Pool() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        work.notify_all();
        for (auto& encoder : encoders)
            encoder.join();
    }
};

ChunkWriter::ChunkWriter(int threads) : m_pool(std::make_unique<Pool>()) {
    m_pool->threads = resolveThreads(threads);
}

ChunkWriter::~ChunkWriter() = default;

Status ChunkWriter::write(const std::vector<ChunkSet>& sets, const std::atomic<bool>* cancel) {
    auto cancelled = [&] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
    Job job;
    job.sets = &sets;
    bool anyEncoded = false;
    for (uint32_t s = 0; s < sets.size(); ++s)
        for (uint32_t c = 0; c < sets[s].chunks.size(); ++c) {
            job.order.emplace_back(s, c);
            anyEncoded = anyEncoded || !storedAsIs(sets[s], sets[s].chunks[c]);
        }
    const size_t total = job.order.size();
    if (total == 0) return Ok{};
    if (cancelled()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
    Pool& pool = *m_pool;
    if (anyEncoded) pool.startEncoders();
    const bool encoders = anyEncoded && !pool.encoders.empty();
    // Encoded chunks wait for the store in memory: a few per encoder, enough to ride out chunks
    // that encode slower than they store (and the other way round).
    job.window = 8 * static_cast<size_t>(pool.threads);
    job.encoded.resize(total);
    if (encoders) pool.post(job);
    // This thread stores, in order (HDF5 is serial), each chunk as it becomes ready; without
    // encoders it encodes each itself first.
    Status rc = Ok{};
    for (size_t i = 0; i < total; ++i) {
        if (i % 64 == 63 && cancelled()) {
            rc = Error{ErrorKind::Cancelled, "cancelled", {}, {}};
            break;
        }
        std::optional<Result<std::vector<unsigned char>>> bytes;
        if (encoders) {
            std::unique_lock lock(job.mutex);
            job.readyChanged.wait(lock, [&] { return job.encoded[i].has_value(); });
            bytes = std::move(job.encoded[i]);
        } else {
            bytes = job.encode(i);
        }
        const auto [s, c] = job.order[i];
        const ChunkSet& set = sets[s];
        const PlainChunk& chunk = set.chunks[c];
        if (!*bytes)
            rc = bytes->error();
        else if (storedAsIs(set, chunk))
            rc = set.dataset->writeRawChunk(chunk.offset, chunk.data, set.chunkBytes);
        else
            rc = set.dataset->writeRawChunk(chunk.offset, (*bytes)->data(), (*bytes)->size());
        if (!rc) break;
        if (encoders) {
            {
                std::lock_guard lock(job.mutex);
                ++job.stored;
            }
            job.storedChanged.notify_all();
        }
    }
    if (encoders) pool.retire(job, !rc);
    return rc;
}

}  // namespace gatescope::data::h5
