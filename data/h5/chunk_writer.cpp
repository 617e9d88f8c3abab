#include "data/h5/chunk_writer.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <system_error>
#include <thread>

namespace gatescope::data::h5 {

namespace {

int resolveThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// How many chunks writeChunks encodes before it stores them: enough to balance the workers,
// while the encoded bytes in memory stay a small multiple of one chunk per thread.
size_t chunkBatch(int threads) {
    return 4 * static_cast<size_t>(resolveThreads(threads));
}

}  // namespace

Status writeChunks(Dataset& dataset, const ChunkEncoding& encoding, size_t chunkBytes,
                   const std::vector<PlainChunk>& chunks, int threads,
                   const std::atomic<bool>* cancel) {
    auto cancelled = [&] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
    if (encoding.compression == Compression::None) {  // nothing to encode: no threads
        std::vector<unsigned char> filled;
        for (const auto& chunk : chunks) {
            if (cancelled()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
            if (chunk.fill) filled.resize(chunkBytes);
            const void* data = chunk.fill ? (chunk.fill(filled.data()), filled.data()) : chunk.data;
            if (auto rc = dataset.writeRawChunk(chunk.offset, data, chunkBytes); !rc) return rc;
        }
        return Ok{};
    }
    threads = resolveThreads(threads);
    const size_t batch = chunkBatch(threads);
    // Two batches in flight: while this thread stores batch k (HDF5 is serial), the helpers
    // encode batch k + 1; this thread then joins them on what is left of it.
    struct Batch {
        size_t first = 0, count = 0;
        std::atomic<size_t> next{0};
        std::vector<std::optional<Result<std::vector<unsigned char>>>> encoded;
    };
    Batch batches[2];
    auto encode = [&](Batch& b) {
        std::vector<unsigned char> filled;
        for (size_t i; (i = b.next.fetch_add(1)) < b.count;) {
            const PlainChunk& chunk = chunks[b.first + i];
            if (chunk.fill) {
                filled.resize(chunkBytes);
                chunk.fill(filled.data());
            }
            b.encoded[i] =
                encodeChunk(chunk.fill ? filled.data() : chunk.data, chunkBytes, encoding);
        }
    };
    // Starts encoding the batch at `first` on up to threads - 1 helpers (none when out of threads:
    // this thread then encodes it alone when it joins).
    auto start = [&](Batch& b, size_t first, std::vector<std::jthread>& helpers) {
        b.first = first;
        b.count = std::min(batch, chunks.size() - first);
        b.next = 0;
        b.encoded.assign(b.count, std::nullopt);
        const size_t workers = std::min<size_t>(static_cast<size_t>(threads), b.count);
        try {
            for (size_t w = 1; w < workers; ++w)
                helpers.emplace_back([&encode, &b] { encode(b); });
        } catch (const std::system_error&) {
        }
    };
    if (chunks.empty()) return Ok{};
    if (cancelled()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
    std::vector<std::jthread> helpers[2];
    start(batches[0], 0, helpers[0]);
    encode(batches[0]);
    helpers[0].clear();  // joins
    for (int cur = 0;; cur ^= 1) {
        Batch& done = batches[cur];
        Batch& ahead = batches[cur ^ 1];
        const size_t nextFirst = done.first + done.count;
        const bool stop = nextFirst < chunks.size() && cancelled();
        const bool more = nextFirst < chunks.size() && !stop;
        if (more) start(ahead, nextFirst, helpers[cur ^ 1]);
        for (size_t i = 0; i < done.count; ++i) {
            const auto& chunk = *done.encoded[i];
            if (!chunk) return chunk.error();  // the helpers of `ahead` join on return
            auto rc =
                dataset.writeRawChunk(chunks[done.first + i].offset, chunk->data(), chunk->size());
            if (!rc) return rc;
        }
        if (stop) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        if (!more) return Ok{};
        encode(ahead);
        helpers[cur ^ 1].clear();
    }
}

}  // namespace gatescope::data::h5
