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

}  // namespace

size_t chunkBatch(int threads) {
    // Enough to balance the workers, while the encoded bytes in memory stay a small multiple of
    // one chunk per thread.
    return 4 * static_cast<size_t>(resolveThreads(threads));
}

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
    std::vector<std::optional<Result<std::vector<unsigned char>>>> encoded(
        std::min(batch, chunks.size()));
    for (size_t first = 0; first < chunks.size(); first += batch) {
        if (cancelled()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        const size_t count = std::min(batch, chunks.size() - first);
        std::atomic<size_t> next{0};
        auto work = [&] {
            std::vector<unsigned char> filled;
            for (size_t i; (i = next.fetch_add(1)) < count;) {
                const PlainChunk& chunk = chunks[first + i];
                if (chunk.fill) {
                    filled.resize(chunkBytes);
                    chunk.fill(filled.data());
                }
                encoded[i] =
                    encodeChunk(chunk.fill ? filled.data() : chunk.data, chunkBytes, encoding);
            }
        };
        {
            std::vector<std::jthread> helpers;
            const size_t workers = std::min<size_t>(static_cast<size_t>(threads), count);
            try {
                for (size_t w = 1; w < workers; ++w)
                    helpers.emplace_back(work);
            } catch (const std::system_error&) {
                // Out of threads: the helpers started so far and this thread share the batch.
            }
            work();
        }
        for (size_t i = 0; i < count; ++i) {
            const auto& chunk = *encoded[i];
            if (!chunk) return chunk.error();
            auto rc = dataset.writeRawChunk(chunks[first + i].offset, chunk->data(), chunk->size());
            if (!rc) return rc;
        }
    }
    return Ok{};
}

}  // namespace gatescope::data::h5
