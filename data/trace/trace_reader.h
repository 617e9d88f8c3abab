// TraceReader: opens a trace (format v1, v2 or v3) and reads lazily only what is asked for.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"
#include "data/trace/block_cache.h"
#include "data/trace/pyramid_geometry.h"
#include "data/trace/trace_types.h"

namespace gatescope::data {

namespace h5 {  // the HDF5 layer (data/h5), named only by TraceReader's private part
class Dataset;
class File;
class Group;
}  // namespace h5

struct ReaderOptions {
    /// Bound on decoded blocks kept in memory (tiles and 4096-row slices of factors and gates).
    size_t chunkCacheBytes = size_t{64} << 20;
};

struct FactorInfo {
    std::string name;
    std::vector<int64_t> shape;  ///< as stored: [H, N, D] or [H, N]
    bool f16 = false;            ///< stored as IEEE binary16
    bool bf16 = false;           ///< stored as bfloat16 (a bf16 forward's values, exact; format v3)
};

struct PyramidInfo {
    std::string map;          ///< "attention", "decay", ...
    std::vector<Pool> pools;  ///< pools present
    std::vector<int> levels;  ///< levels present (in any pool), ascending
    int heads = 0;
    /// Not stored: derived from factors/log_decay_cumsum by pyramidTile (format v3 decay maps,
    /// data/trace/derived_decay.h). Readers see the same tiles either way.
    bool derived = false;
    /// Levels with a dataset, ascending (none for a derived pyramid; all of `levels` before format
    /// v4). pyramidTile pools the others from the nearest stored level below (format v4; max
    /// exactly, mean to float32 rounding).
    std::vector<int> stored;

    /// The stored level that `level` is pooled from; -1 when it is stored (or derived).
    int poolSource(int level) const;
};

struct LayerInfo {
    int index = 0;
    LayerHeader header;
    bool hasGates = false;
    std::vector<FactorInfo> factors;
    std::vector<PyramidInfo> pyramids;

    const FactorInfo* factor(std::string_view name) const;
    const PyramidInfo* pyramid(std::string_view map) const;
};

/// What a trace holds, read once at open (metadata only).
struct TraceSummary {
    std::string path;
    int formatVersion = 0;
    std::string modelType;
    std::string compression;
    int64_t nTokens = 0;
    bool hasPerToken = false;
    std::vector<LayerInfo> layers;  ///< ascending layer index

    const LayerInfo* layer(int index) const;
};

/// A read-only view of one trace file. Every method is const and safe to call from several
/// threads at once: HDF5 calls are serialized by the process-wide library lock, decoded blocks are
/// shared through a bounded LRU (ReaderOptions::chunkCacheBytes). Errors name the file and the
/// dataset: Missing for absent objects, Shape for wrong shape or dtype, Usage for out-of-range
/// requests, Format for corrupt data, Unsupported for data gatescope refuses to follow (links
/// that are not hard links, external storage, virtual datasets). The file stays open until the
/// last shared_ptr goes.
///
/// Files are untrusted. open() checks, before anything is read into memory, that every count is
/// in range (trace_limits.h) and that every dataset present agrees with the attributes: N with
/// /tokens and /per_token, each layer's n_heads, n_kv_heads, n_channels with its gates, factors
/// and pyramids, n_layers with the layer groups. Datasets may be absent (Missing when read), never
/// inconsistent. String attributes and JSON (extras, /manifest) are read with bounded sizes and
/// nesting. What validation cannot catch is a corrupt structure that HDF5 1.10 itself mishandles
/// (docs/trace-format.md, "Untrusted files").
///
/// No HDF5 header comes with this one and no HDF5 object reaches callers: the h5 classes above are
/// only declared, for the private part; the trace is read through the typed calls below.
class TraceReader {
public:
    /// Opens `path`: Io when absent or unreadable, Format when not HDF5, truncated, without a
    /// gatescope_format attribute or inconsistent (see above), Version when gatescope_format
    /// names another format or format_version is newer than this reader (3), Unsupported for
    /// links, external storage or virtual datasets.
    static Result<std::shared_ptr<TraceReader>> open(const std::filesystem::path& path,
                                                     ReaderOptions options = {});
    /// Opens an HDF5 file image held in memory (`size` bytes, copied), with the same checks as
    /// open(); `name` stands for the file in errors. For fuzzing and tests.
    static Result<std::shared_ptr<TraceReader>> openImage(const std::string& name, const void* data,
                                                          size_t size, ReaderOptions options = {});
    ~TraceReader();

    const TraceSummary& summary() const { return m_summary; }
    const std::string& path() const { return m_summary.path; }

    Result<nlohmann::json> manifest() const;
    /// The tokens; sourceText holds the exact input bytes (v2: /tokens/source_bytes; v1 files:
    /// /tokens/source_text, which held no NUL).
    Result<TokenTable> tokens() const;
    /// Loss, rank and entropy, and the top next-token predictions with their texts where the
    /// trace stores them (topK = 0 in older traces).
    Result<PerTokenResults> perToken() const;

    /// The whole gates array [H, N, C]; Unsupported above kMaxWholeReadValues values.
    Result<Array> gates(int layer) const;
    /// Rows [rowBegin, rowEnd) of one head's gates: [rows, C].
    Result<Array> gatesForHead(int layer, int head, int64_t rowBegin, int64_t rowEnd) const;
    /// Rows [rowBegin, rowEnd) of one head of a factor: [rows, D] (or [rows] for [H, N]
    /// factors). `head` indexes the stored first axis (a kv head for [n_kv_heads, N, D] factors).
    /// f16 and bf16 factors are widened to float exactly.
    Result<Array> factor(int layer, std::string_view name, int head, int64_t rowBegin,
                         int64_t rowEnd) const;
    /// One 256 x 256 tile of a pyramid level; zeros beyond S and for non-causal tiles (never
    /// stored). Tiles not written by the producer read as zeros too. Tiles of a derived pyramid
    /// (PyramidInfo::derived) are computed from log_decay_cumsum, the same cells the writer would
    /// have stored; tiles of levels that are not stored (PyramidInfo::poolSource) are pooled from
    /// the stored level's tiles, the same cells a builder pools.
    Result<Tile> pyramidTile(int layer, std::string_view map, Pool pool, int level, int head,
                             int64_t tileRow, int64_t tileCol) const;

    BlockCache::Stats cacheStats() const { return m_cache.stats(); }

private:
    /// What a dataset's elements must be (checked against its stored datatype class).
    enum class Element { Float, Integer, String };

    TraceReader(h5::File file, ReaderOptions options, uint64_t fileBytes);
    static Result<std::shared_ptr<TraceReader>> finishOpen(Result<h5::File> file,
                                                           ReaderOptions options,
                                                           uint64_t fileBytes);
    Status readSummary();
    Result<LayerInfo> readLayer(const h5::Group& layers, const std::string& name);
    Status readLayerHeader(const h5::Group& group, const std::string& path, LayerHeader& h) const;
    Status readPyramids(const h5::Group& group, const std::string& path, LayerInfo& info);
    Status readTopPredictions(PerTokenResults& results) const;
    /// Every level of a pool group: its `stored` ones (ascending) and, with attribute
    /// coarsest_level (format v4), those pooled up to it, checked to lie within kPoolStride - 1
    /// levels of a stored one below.
    Result<std::vector<int>> readPooledLevels(const h5::Group& poolGroup,
                                              const std::vector<int>& stored) const;
    /// The stored pyramid level at `path` (checked to be [heads, S, S] float) and its heads.
    Result<std::shared_ptr<h5::Dataset>> levelDataset(const std::string& path, int level,
                                                      int64_t& heads) const;
    /// A tile's rows and columns, after checking head and tile against the level (Usage error
    /// naming `path`); its data is zeros for a non-causal tile (never stored), else null.
    Result<Tile> tileFrame(const std::string& path, int64_t heads, int level, int head,
                           int64_t tileRow, int64_t tileCol) const;
    /// `tile` with the values of the cache's block for this tile of `path`, loaded by `load` on a
    /// miss.
    Result<Tile> cachedTile(Tile tile, const std::string& path, int head, int64_t tileRow,
                            int64_t tileCol,
                            const std::function<Result<BlockCache::Block>()>& load) const;
    /// A tile of `level`, pooled from the stored level `from` below it.
    Result<Tile> pooledTile(int layer, const PyramidInfo& info, Pool pool, int level, int from,
                            int head, int64_t tileRow, int64_t tileCol) const;
    /// A derived pyramid/<map> group (attribute derived_from), checked against the layer.
    Result<PyramidInfo> readDerivedPyramid(const h5::Group& mapGroup, const std::string& path,
                                           const LayerInfo& info) const;
    Result<Tile> derivedTile(const LayerInfo& info, Pool pool, int level, int head, int64_t tileRow,
                             int64_t tileCol) const;
    // reader_checks.cpp: the datasets present against the attributes, at open.
    Status checkRootDatasets() const;
    Status checkLayerDatasets(LayerInfo& info) const;
    Status checkStorage(const h5::Dataset& dataset, const std::string& path) const;
    /// Opens (once, then cached) the dataset at `path`, checking its shape against `dims` (-1: any)
    /// and its element class; float datasets must be float32 (or float16 when `allowF16`).
    Result<std::shared_ptr<h5::Dataset>> dataset(const std::string& path,
                                                 const std::vector<int64_t>& dims, Element element,
                                                 bool allowF16 = false) const;
    /// /tokens/source_bytes, checked to be uint8 [B] with B <= kMaxSourceBytes.
    Result<std::string> sourceBytes() const;
    Result<Array> readRows(const std::string& path, const std::vector<int64_t>& dims, bool allowF16,
                           int head, int64_t rowBegin, int64_t rowEnd) const;
    Error error(ErrorKind kind, std::string message, std::string object = {}) const;

    std::unique_ptr<h5::File> m_file;  ///< never null
    ReaderOptions m_options;
    uint64_t m_fileBytes = 0;  ///< size of the file (or image) opened
    TraceSummary m_summary;
    mutable std::map<std::string, std::shared_ptr<h5::Dataset>> m_datasets;  // library lock
    mutable BlockCache m_cache;
};

}  // namespace gatescope::data
