// Chunks of datasets written at once: compressed on a pool of worker threads, stored in order.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "data/h5/chunk_codec.h"
#include "data/h5/dataset.h"

namespace gatescope::data::h5 {

/// One chunk to store: its offset in the dataset (a multiple of the chunk dims) and its elements,
/// a whole chunk dense and row-major (edge chunks padded, with zeros by convention): at `data`,
/// or, when `fill` is set, written by it into a buffer of the chunk's size on the encoding worker
/// (so that gathering a chunk from a larger array runs in parallel too; it must be thread-safe).
struct PlainChunk {
    Dims offset;
    const void* data = nullptr;
    std::function<void(void* out)> fill = {};
};

/// Chunks of one dataset, each `chunkBytes` long, to be encoded as `encoding` says (the
/// dataset's own pipeline: chunk_codec.h).
struct ChunkSet {
    Dataset* dataset = nullptr;  ///< not owned; must stay open until its chunks are stored
    ChunkEncoding encoding;
    size_t chunkBytes = 0;
    std::vector<PlainChunk> chunks;
};

/// Encodes chunks on encoder threads that live as long as it does, and stores them in order with
/// Dataset::writeRawChunk on the calling thread (HDF5 is serial), each as soon as it is encoded;
/// encoded bytes are handed over, so a file from File::create copies them to disk on its own I/O
/// thread (background_write_driver.h, up to 32 MiB more in memory), and a failed copy is
/// returned by a later call (File::flush at the latest).
/// The encoders take chunks one at a time, across writes in the order they were handed over, and
/// run at most 32 MiB of plain chunk bytes ahead of the store, which bounds the encoded bytes in
/// memory. Many small sets (a layer's factors and pyramid levels) handed over in one write share
/// the encoders, so storing one overlaps encoding the next; writeAhead() carries that overlap
/// from one write to the next (a layer's tail is stored while the next layer is encoded).
///
/// Threading: the methods are called from one thread at a time (not necessarily the same one);
/// only the calling thread calls HDF5, so the encoders run without the HDF5 lock.
class ChunkWriter {
public:
    /// `threads` threads in all (0: all cores): the calling thread stores, threads - 1 encode
    /// (with one, the calling thread encodes too). The encoders start at the first write that
    /// has chunks to encode.
    explicit ChunkWriter(int threads = 0);
    /// Drops what writeAhead() left unstored (see discard()).
    ~ChunkWriter();
    ChunkWriter(const ChunkWriter&) = delete;
    ChunkWriter& operator=(const ChunkWriter&) = delete;

    /// Stores what earlier writeAhead() calls left, then every chunk of `sets`, in order. Errors:
    /// Internal (an encoder failed), Io (a store failed), Cancelled (`cancel` is polled every 64
    /// chunks stored); the chunks before the failure are then stored, the others are dropped
    /// (those left by writeAhead() included).
    Status write(std::vector<ChunkSet> sets, const std::atomic<bool>* cancel = nullptr);

    /// As write(), but returns as soon as every chunk of `sets` is encoded: their sources (`data`,
    /// and what `fill` reads) are no longer read, while the encoded rest waits, in this writer's
    /// memory, for the next write(), writeAhead() or finish() to store it first. Chunks stored
    /// from the caller's memory as they are (no compression, no fill) are all stored before it
    /// returns. The datasets must stay open until then. A failure to store the rest is returned
    /// by that next call.
    Status writeAhead(std::vector<ChunkSet> sets, const std::atomic<bool>* cancel = nullptr);

    /// Stores what writeAhead() left. Errors as write().
    Status finish(const std::atomic<bool>* cancel = nullptr);

    /// Drops what writeAhead() left unstored (after a failure elsewhere: the file is going away),
    /// waiting for the encoders to let go of it.
    void discard();

private:
    struct Pool;
    std::unique_ptr<Pool> m_pool;
};

}  // namespace gatescope::data::h5
