// Many chunks of one dataset written at once: compressed on worker threads, stored in order.
#pragma once

#include <atomic>
#include <functional>
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

/// Encodes `chunks` (each `chunkBytes` long) as `encoding` says on up to `threads` threads
/// (0: all cores; never more than there are chunks) and stores them in order with
/// Dataset::writeRawChunk, a bounded batch at a time; the next batch is encoded while one is
/// stored. Encoding runs without the HDF5 lock when the caller does not hold it. Errors: Internal
/// (an encoder failed), Io (a write failed), Cancelled (`cancel` was set when a batch was due: a
/// large array stops within two batches); chunks of earlier batches may then be stored.
Status writeChunks(Dataset& dataset, const ChunkEncoding& encoding, size_t chunkBytes,
                   const std::vector<PlainChunk>& chunks, int threads,
                   const std::atomic<bool>* cancel = nullptr);

}  // namespace gatescope::data::h5
