// The HDF5 objects behind one TraceWriter: its file, root group, and per layer the group and the
// datasets declared so far. Internal to the writer's sources (trace_writer.cpp, writer_*.cpp), so
// that trace_writer.h names no HDF5 type. Every member is used under the library lock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/common/background_flush.h"
#include "data/h5/chunk_writer.h"
#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "data/trace/trace_writer.h"

namespace gatescope::data {

/// A declared gates or factor array [H, N, ...], written head by head.
struct TraceWriter::ArrayState {
    h5::Dataset dataset;
    std::vector<int64_t> shape;
    ElementType type = ElementType::Float32;
};

/// A created pyramid: one dataset per stored (pool, level); levels without one are dropped.
struct TraceWriter::PyramidState {
    PyramidLevels levels;
    int heads = 0;
    /// Derived by readers from log_decay_cumsum (format v3): no datasets, tiles are dropped.
    bool derived = false;
    std::map<std::pair<Pool, int>, h5::Dataset> datasets;
};

/// A written layer: /layers/<l> and what has been declared under it.
struct TraceWriter::LayerState {
    LayerHeader header;
    h5::Group group;
    std::unique_ptr<ArrayState> gates;
    std::map<std::string, ArrayState, std::less<>> factors;
    std::map<std::string, PyramidState, std::less<>> pyramids;
    /// Per head of a [H, N] log_decay_cumsum: written and non-increasing (derived decay maps).
    std::vector<char> monotoneDecay;
};

/// The open temporary file. Empty (no file) before create() opens it and after commit() or a
/// failure closes it.
struct TraceWriter::Storage {
    h5::File file;
    /// Writes the file's pages to disk as it grows (null when the options turn it off).
    std::unique_ptr<BackgroundFlush> flush;
    /// Encodes and stores chunks; its threads live as long as the writer.
    std::unique_ptr<h5::ChunkWriter> chunkWriter;
    /// Chunks queued by TraceWriter::store and the buffers they point into (holdWrites).
    std::vector<h5::ChunkSet> queued;
    std::vector<std::unique_ptr<unsigned char[]>> queuedBuffers;
    bool holding = false;
    h5::Group root;
    std::map<int, LayerState> layers;
};

}  // namespace gatescope::data
