#include "data/h5/chunk_writer.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace gatescope::data::h5 {
namespace {

using Encoded = Result<std::vector<unsigned char>>;

/// Plain chunk bytes the encoders may hold ahead of the store (encoded, or being encoded): enough
/// for a layer's tail to cover preparing the next layer and encoding its first chunks. 256 MiB
/// made the 64k trace about 7% slower than storing each layer whole, 32 MiB did not
/// (docs/benchmarks.md, session 24); the likely cause, not measured, is the store copying chunks
/// that have left the last-level cache.
constexpr size_t kAheadBytes = size_t{32} << 20;

int resolveThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Stored from the caller's memory as it is: nothing to encode or gather.
bool storedAsIs(const ChunkSet& set, const PlainChunk& chunk) {
    return set.encoding.compression == Compression::None && !chunk.fill;
}

bool cancelRequested(const std::atomic<bool>* cancel) {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

Error cancelledError() {
    return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
}

}  // namespace

// Named, not anonymous: ChunkWriter::Pool (external linkage) holds them.
namespace chunk_job {

/// One write's chunks in order; every counter is guarded by the pool's mutex.
struct Job {
    std::vector<ChunkSet> sets;
    std::vector<std::pair<uint32_t, uint32_t>> order;  ///< (set, chunk)
    std::vector<std::optional<Encoded>> encoded;       ///< a chunk is ready when it has a value
    size_t claimed = 0;                                ///< next chunk to encode
    size_t returned = 0;                               ///< chunks whose encoding came back
    size_t stored = 0;                                 ///< next chunk to store
    bool asIs = false;                                 ///< some chunk is stored from its source
    const std::atomic<bool>* cancel = nullptr;         ///< the write's; no claims once set

    bool cancelled() const { return cancelRequested(cancel); }

    const ChunkSet& setOf(size_t i) const { return sets[order[i].first]; }
    const PlainChunk& chunkOf(size_t i) const { return setOf(i).chunks[order[i].second]; }
    bool done() const { return stored == order.size(); }

    Encoded encode(size_t i) const {
        const ChunkSet& set = setOf(i);
        const PlainChunk& chunk = chunkOf(i);
        if (storedAsIs(set, chunk)) return std::vector<unsigned char>();
        if (!chunk.fill) return encodeChunk(chunk.data, set.chunkBytes, set.encoding);
        std::vector<unsigned char> filled(set.chunkBytes);
        chunk.fill(filled.data());
        if (set.encoding.compression == Compression::None) return filled;
        return encodeChunk(filled.data(), set.chunkBytes, set.encoding);
    }
};

}  // namespace chunk_job

using chunk_job::Job;

// The jobs in store order. Encoders claim chunks from the oldest job that has any left, while
// the plain bytes claimed and not yet stored stay within kAheadBytes; the caller stores the
// front job's chunks in order and drops a job once all are stored.
struct ChunkWriter::Pool {
    int threads = 1;
    std::mutex mutex;
    std::condition_variable claimable, ready;
    std::deque<std::unique_ptr<Job>> jobs;
    size_t aheadBytes = 0;  ///< plain bytes claimed and not stored
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

    /// The chunk an encoder may take next, or none (caller holds mutex).
    std::optional<std::pair<Job*, size_t>> nextClaim() {
        for (auto& job : jobs) {
            if (job->claimed == job->order.size() || job->cancelled()) continue;
            const size_t bytes = job->setOf(job->claimed).chunkBytes;
            if (aheadBytes != 0 && aheadBytes + bytes > kAheadBytes) return std::nullopt;
            aheadBytes += bytes;
            return std::pair{job.get(), job->claimed++};
        }
        return std::nullopt;
    }

    void run() {
        std::unique_lock lock(mutex);
        for (;;) {
            std::optional<std::pair<Job*, size_t>> claim;
            claimable.wait(lock, [&] { return stopping || (claim = nextClaim()); });
            if (stopping) return;
            auto [job, i] = *claim;
            lock.unlock();
            Encoded bytes = job->encode(i);
            lock.lock();
            job->encoded[i] = std::move(bytes);
            ++job->returned;
            ready.notify_one();  // the one caller
        }
    }

    /// Stores the front job's next chunk, waiting for (or, without encoders, doing) its encoding.
    /// Called with `lock` held; releases it around the store.
    Status storeNext(std::unique_lock<std::mutex>& lock) {
        Job& job = *jobs.front();
        const size_t i = job.stored;
        if (encoders.empty() && job.claimed == i) {
            aheadBytes += job.setOf(i).chunkBytes;
            ++job.claimed;
            lock.unlock();
            Encoded bytes = job.encode(i);
            lock.lock();
            job.encoded[i] = std::move(bytes);
            ++job.returned;
        }
        // A cancelled write's encoders take nothing more: its next chunk may never come.
        ready.wait(lock, [&] {
            return job.encoded[i].has_value() || (job.claimed <= i && job.cancelled());
        });
        if (!job.encoded[i]) return cancelledError();
        Encoded bytes = std::move(*job.encoded[i]);
        job.encoded[i].reset();
        lock.unlock();
        const ChunkSet& set = job.setOf(i);
        const PlainChunk& chunk = job.chunkOf(i);
        Status rc = Ok{};
        if (!bytes)
            rc = bytes.error();
        else if (storedAsIs(set, chunk))
            rc = set.dataset->writeRawChunk(chunk.offset, chunk.data, set.chunkBytes);
        else
            rc = set.dataset->writeRawChunk(chunk.offset, std::move(*bytes));
        lock.lock();
        if (!rc) return rc;
        ++job.stored;
        aheadBytes -= set.chunkBytes;
        if (job.done()) jobs.pop_front();
        claimable.notify_one();  // room for about one more chunk ahead
        return Ok{};
    }

    /// Stores chunks until `enough()` (checked with the lock held) or a failure; a failure or a
    /// cancel drops every job.
    template <typename Enough>
    Status storeUntil(std::unique_lock<std::mutex>& lock, const std::atomic<bool>* cancel,
                      Enough enough) {
        for (size_t count = 1; !enough(); ++count) {
            Status rc = Ok{};
            if (count % 64 == 0 && cancelRequested(cancel)) rc = cancelledError();
            if (rc) rc = storeNext(lock);
            if (!rc) {
                dropAll(lock);
                return rc;
            }
        }
        return Ok{};
    }

    /// Takes every unclaimed chunk away, waits until the encoders have returned the claimed ones,
    /// and drops the jobs. Called with `lock` held.
    void dropAll(std::unique_lock<std::mutex>& lock) {
        for (auto& job : jobs)
            job->order.resize(job->claimed);
        ready.wait(lock, [&] {
            return std::all_of(jobs.begin(), jobs.end(),
                               [](const auto& job) { return job->returned == job->claimed; });
        });
        jobs.clear();
        aheadBytes = 0;
    }

    ~Pool() {
        {
            std::unique_lock lock(mutex);
            dropAll(lock);
            stopping = true;
        }
        claimable.notify_all();
        for (auto& encoder : encoders)
            encoder.join();
    }
};

ChunkWriter::ChunkWriter(int threads) : m_pool(std::make_unique<Pool>()) {
    m_pool->threads = resolveThreads(threads);
}

ChunkWriter::~ChunkWriter() = default;

Status ChunkWriter::write(std::vector<ChunkSet> sets, const std::atomic<bool>* cancel) {
    if (auto rc = writeAhead(std::move(sets), cancel); !rc) return rc;
    return finish(cancel);
}

Status ChunkWriter::writeAhead(std::vector<ChunkSet> sets, const std::atomic<bool>* cancel) {
    Pool& pool = *m_pool;
    auto job = std::make_unique<Job>();
    bool anyEncoded = false;
    for (uint32_t s = 0; s < sets.size(); ++s)
        for (uint32_t c = 0; c < sets[s].chunks.size(); ++c) {
            job->order.emplace_back(s, c);
            const bool asIs = storedAsIs(sets[s], sets[s].chunks[c]);
            job->asIs = job->asIs || asIs;
            anyEncoded = anyEncoded || !asIs;
        }
    if (cancelRequested(cancel)) {
        discard();
        return cancelledError();
    }
    if (job->order.empty()) return Ok{};
    if (anyEncoded) pool.startEncoders();
    job->sets = std::move(sets);
    job->cancel = cancel;
    job->encoded.resize(job->order.size());
    Job& mine = *job;
    std::unique_lock lock(pool.mutex);
    pool.jobs.push_back(std::move(job));
    pool.claimable.notify_all();
    // Earlier jobs' tails are stored while the encoders start on this one. This job may be left
    // once nothing of it reads its sources: every chunk encoded, none stored from its source
    // waiting. It is the last job queued and jobs leave from the front, so an empty queue means
    // it is stored (and `mine` is then not read).
    const bool storeAll = mine.asIs;
    return pool.storeUntil(lock, cancel, [&] {
        return pool.jobs.empty() || (!storeAll && mine.returned == mine.order.size());
    });
}

Status ChunkWriter::finish(const std::atomic<bool>* cancel) {
    Pool& pool = *m_pool;
    std::unique_lock lock(pool.mutex);
    return pool.storeUntil(lock, cancel, [&] { return pool.jobs.empty(); });
}

void ChunkWriter::discard() {
    std::unique_lock lock(m_pool->mutex);
    m_pool->dropAll(lock);
}

}  // namespace gatescope::data::h5
