// TraceWriter: writes one trace (format v4, see docs/trace-format.md) crash-safely, layer by layer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/compression.h"
#include "data/common/result.h"
#include "data/trace/pyramid_geometry.h"
#include "data/trace/trace_types.h"

namespace gatescope::data {

namespace h5 {  // the HDF5 layer (data/h5), named only by TraceWriter's private part
class Dataset;
class Group;
class Object;
struct ChunkEncoding;
struct ChunkSet;
}  // namespace h5

struct TraceWriterOptions {
    /// Deflate (default) opens in stock h5py; zstd and lz4 need hdf5plugin there. See
    /// docs/benchmarks.md for speed and size.
    Compression compression = Compression::Deflate;
    /// deflate 0-9, zstd 1-22; ignored by lz4 and none. 1: deflate through ISA-L where built with
    /// it (10x zlib's speed at zlib 1's ratio; data/h5/chunk_codec.h).
    int compressionLevel = 1;
    /// Store q, k, v and the other multiplied factors as IEEE binary16 (lossy: 2^-11 relative);
    /// lse and log_* factors stay float32 (schema::keepsFloat32).
    bool factorsAsF16 = false;
    /// Factors handed over as bfloat16 (writeFactorBf16: a bf16 forward's q, k, v) are stored as
    /// bfloat16, exactly (format v3); false widens them to float32 (the v2 layout, 2x the bytes).
    bool bf16Factors = true;
    /// The decay pyramid of an additive-decay layer whose [H, N] log_decay_cumsum was written
    /// (every head non-increasing) is not stored: readers derive its cells from c
    /// (data/trace/derived_decay.h, format v3). False stores it as v2 did.
    bool deriveDecayPyramids = true;
    /// A stored pyramid keeps every third level from its finest (data::isStoredLevel: the finest
    /// alone at the default 3 levels); readers pool the others from the nearest stored level
    /// below (TraceReader::pyramidTile: max exactly, mean to float32 rounding; format v4), and
    /// their tiles handed to the writer are dropped (storesPyramidLevel). False stores every
    /// level (the v3 layout: 40% more pyramid bytes at 16k tokens).
    bool deriveCoarseLevels = true;
    /// Whether a pyramid of `levels` stores `level` under these options (the writer's rule; the
    /// GPU pipeline uses it to skip copying the others).
    bool storesLevel(const PyramidLevels& levels, int level) const {
        return !deriveCoarseLevels || isStoredLevel(levels, level);
    }
    /// Threads of the writer's h5::ChunkWriter (0: all cores): one stores, the others compress.
    int encodeThreads = 0;
    /// Flush the file to disk while it is written (data/common/background_flush.h), so that
    /// commit's fsync waits only for the tail. False only to measure what that buys (the GPU
    /// trace bench's A/B).
    bool flushWhileWriting = true;
    /// Polled every 64 chunks stored (a few MB): once set, the write in progress fails with
    /// ErrorKind::Cancelled and the writer ends (its temporary file is removed). May be null;
    /// must outlive the writer.
    const std::atomic<bool>* cancel = nullptr;
};

/// Writes a trace to "<final>.partial-<pid>" in the final folder and renames it to the final path
/// in commit(), so a killed run never leaves a truncated file under the final name. Destroying the
/// writer without a successful commit removes the temporary file (a SIGKILL leaves it behind, under
/// its .partial name). Any HDF5 or file-system failure (disk full, ...) is returned as an Error and
/// ends the writer: the temporary file is removed and every later call returns that error again.
/// Argument errors (wrong shape, unknown layer, ...) return ErrorKind::Usage or Shape and leave the
/// writer usable.
///
/// Order: writeTokens before anything sized by N; writeLayer(l) before that layer's gates, factors
/// and pyramids; manifest, tokens and per-token results must all be written before commit().
/// Big arrays can be written head by head (declareFactor + writeFactorHead, declareGates +
/// writeGatesHead) so the caller never holds a whole layer.
///
/// Threading: not thread-safe; use one writer from one thread. Every HDF5 call holds the
/// process-wide HDF5 lock, so readers of other traces on other threads stay safe. The chunks of
/// factor and gate heads and of pyramid levels are compressed outside HDF5, without that lock, on
/// the writer's encoder threads (`encodeThreads`), and stored whole (H5Dwrite_chunk): byte for
/// byte what HDF5's own filter pipeline would store (data/h5/chunk_codec.h). While the file grows,
/// a thread of the writer flushes it to disk (`flushWhileWriting`).
///
/// No HDF5 header comes with this one and no HDF5 object reaches callers: the h5 classes above are
/// only declared, for the private part; the open file, its groups and datasets are kept in
/// data/trace/writer_state.h, which only the writer's own sources include.
class TraceWriter {
public:
    static Result<std::unique_ptr<TraceWriter>> create(const std::filesystem::path& finalPath,
                                                       TraceWriterOptions options = {});
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    /// Stores the provenance manifest (validated by validateManifest) as /manifest, and mirrors
    /// model_type as a root attribute. May be called again to replace it.
    Status writeManifest(const nlohmann::json& manifest);
    /// Stores /tokens and fixes N = tokens.size() (>= 1). Once only. The source text may hold any
    /// bytes: source_bytes keeps them exactly; source_text and token text show U+FFFD for NUL and
    /// for bytes that are not valid UTF-8.
    Status writeTokens(const TokenTable& tokens);
    /// Stores /per_token; every vector must have N entries.
    Status writePerToken(const PerTokenResults& results);

    /// Creates /layers/<layer> (0 <= layer < 1000) with the header as attributes. Once per layer.
    Status writeLayer(int layer, const LayerHeader& header);

    /// Creates gates/log_retention [heads = n_heads, N, channels = n_channels] of a layer.
    Status declareGates(int layer, int heads, int channels);
    /// Writes one head of the declared gates: `data` is [N, channels] row-major.
    Status writeGatesHead(int layer, int head, const float* data);
    /// declareGates + every head at once: `data` is [heads, n, channels]; n must be N.
    Status writeGates(int layer, const float* data, int heads, int64_t n, int channels);

    /// Creates factors/<name> with `shape` [H, N, D] or [H, N], H = n_heads or n_kv_heads.
    Status declareFactor(int layer, std::string_view name, std::vector<int64_t> shape);
    /// Writes one head of a declared factor: `data` is [N, D] (or [N]) row-major.
    Status writeFactorHead(int layer, std::string_view name, int head, const float* data);
    /// declareFactor + every head at once; `data` has the full `shape`.
    Status writeFactor(int layer, std::string_view name, const float* data,
                       std::vector<int64_t> shape);
    /// writeFactor for a factor the model computed in bfloat16: `bits` are its bf16 values (the
    /// upper halves of float32s), the full `shape`. Stored as the HDF5 bfloat16 type (h5py reads
    /// it as float32, exactly) when TraceWriterOptions::bf16Factors, else as float32; lse and
    /// log_* factors (schema::keepsFloat32) are refused (Usage): they are float32 quantities.
    Status writeFactorBf16(int layer, std::string_view name, const uint16_t* bits,
                           std::vector<int64_t> shape);

    /// Creates pyramid/<map>/{max,mean}/<level> [heads, S, S] for every level in `levels`.
    /// Nothing is allocated on disk until tiles are written.
    Status createPyramid(int layer, std::string_view map, PyramidLevels levels, int heads);
    /// Whether createPyramid chose to derive `map` of `layer` from the stored c instead of storing
    /// it (format v3's decay maps): its tiles and levels are dropped, so callers need not build
    /// them. False for a pyramid not created.
    bool derivesPyramid(int layer, std::string_view map) const;
    /// Whether tiles of `level` of a created pyramid are stored; false for a derived map and, with
    /// TraceWriterOptions::deriveCoarseLevels, for the levels readers pool, so callers need not
    /// build or copy them. False for a pyramid not created.
    bool storesPyramidLevel(int layer, std::string_view map, int level) const;
    /// Writes one 256 x 256 row-major tile; only causal tiles (tileCol <= tileRow) are accepted.
    /// Cells past the level side S are ignored; cells above the diagonal are stored as 0.
    Status writePyramidTile(int layer, std::string_view map, Pool pool, int level, int head,
                            int64_t tileRow, int64_t tileCol, const float* tile);
    /// Writes every causal tile of `heads` consecutive heads' level from `cells`, the whole level
    /// S x S row-major per head, head after head (cells above the diagonal are ignored and stored
    /// as 0), the tiles of all of them compressed in parallel.
    Status writePyramidLevel(int layer, std::string_view map, Pool pool, int level, int head,
                             const float* cells, int heads = 1);

    /// Queues the chunks of the gates, factor and pyramid writes that follow instead of storing
    /// them, until writeHeld(): then they are encoded and stored together, so that a layer's
    /// arrays share the encoder threads and storing one overlaps encoding the next. Everything
    /// else about those calls (argument checks and their errors) happens at the call. The data
    /// they were handed must stay valid and unchanged until writeHeld() returns.
    void holdWrites();
    /// Encodes what holdWrites() queued and stores it, and stops queueing. It returns once the
    /// queued data is no longer read (every chunk encoded; with compression none, stored): the
    /// encoded tail may wait in memory, to be stored first by the next write or by commit(),
    /// while the next layer is prepared and encoded. Errors: those of the writes (Io, Internal,
    /// Cancelled), including a failure to store an earlier call's tail; the writer then fails.
    Status writeHeld();

    /// Writes anything still held, flushes, closes and fsyncs the temporary file, then renames it
    /// to the final path (and fsyncs the folder). After success the writer accepts no more calls.
    Status commit();

    const std::filesystem::path& finalPath() const { return m_finalPath; }
    const std::filesystem::path& tempPath() const { return m_tempPath; }
    /// N once writeTokens succeeded, else 0.
    int64_t nTokens() const { return m_nTokens; }

private:
    /// How a gates or factor array is stored.
    enum class ElementType { Float32, Float16, BFloat16 };
    // Defined in writer_state.h.
    struct ArrayState;
    struct PyramidState;
    struct LayerState;
    struct Storage;

    TraceWriter(std::filesystem::path finalPath, std::filesystem::path tempPath,
                TraceWriterOptions options);
    Status usable() const;
    Error fail(Error error);
    void abandon();
    Error usage(std::string message, std::string object = {}) const;
    Result<LayerState*> layerState(int layer);
    Result<h5::Group> openOrCreateGroup(const h5::Object& parent, std::string_view name);
    Result<h5::Dataset> createArray(const h5::Object& parent, std::string_view name,
                                    const std::vector<int64_t>& shape, ElementType type);
    /// Writes one head: `data` is float32, or bfloat16 bits when `bf16Source`.
    /// Heads [firstHead, firstHead + heads) of an array from `data` (those heads, consecutive;
    /// bfloat16 bits when `bf16Source`), encoded together in groups of at most 256 MB.
    Status writeHeads(ArrayState& state, int firstHead, int heads, const void* data,
                      bool bf16Source = false);
    Status declareFactorAs(int layer, std::string_view name, std::vector<int64_t> shape,
                           ElementType type);
    /// writeFactorHead for `heads` consecutive heads from `data` (theirs, head after head).
    Status writeFactorHeads(int layer, std::string_view name, int firstHead, int heads,
                            const float* data);
    Status checkFactorHead(int layer, std::string_view name, int head, const void* data,
                           ArrayState** state);
    h5::ChunkEncoding encoding(size_t elementSize) const;
    /// Stores `set` now, or queues it while holding; `buffer` (may be null) holds memory its
    /// chunks point into and is kept until they are stored. Errors as ChunkWriter::write's; the
    /// caller fails the writer.
    Status store(h5::ChunkSet set, std::unique_ptr<unsigned char[]> buffer = {});
    /// Writes the queued chunks and empties the queue: all of them stored (ChunkWriter::write),
    /// or, `ahead`, leaving an encoded tail (ChunkWriter::writeAhead).
    Status writeQueued(bool ahead = false);
    /// The dataset of a created pyramid's level, after checking layer, map, level and head.
    Result<h5::Dataset*> pyramidLevel(int layer, std::string_view map, Pool pool, int level,
                                      int head);

    std::filesystem::path m_finalPath;
    std::filesystem::path m_tempPath;
    TraceWriterOptions m_options;
    std::unique_ptr<Storage> m_storage;  ///< never null; its file is open until commit or failure
    int64_t m_nTokens = 0;
    bool m_hasManifest = false;
    bool m_hasPerToken = false;
    bool m_committed = false;
    std::optional<Error> m_failure;
};

}  // namespace gatescope::data
