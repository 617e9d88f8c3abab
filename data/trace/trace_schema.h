// The trace format v4 in names: version constants, the fixed dataset paths and the path builders.
// docs/trace-format.md describes the same layout for h5py users; keep the two in step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatescope::data {

inline constexpr std::string_view kFormatName = "gatescope-trace";  ///< root attr gatescope_format
inline constexpr int kFormatVersion = 4;                            ///< root attr format_version
/// The oldest format_version this reader opens. v1 -> v2: `/tokens/source_bytes` (the input's
/// exact bytes, NUL included), token text with U+FFFD for partial UTF-8 (v1: the literal text
/// "\xC3"), lse and log_* factors float32 under factorsAsF16 (v1: float16), input.sha256 of what
/// was traced. A v1 file reads as before: its source text is /tokens/source_text. v2 -> v3: a bf16
/// forward's q, k, v stored as bfloat16 (exact), and the decay pyramid of additive-decay layers
/// derived from log_decay_cumsum (a group with attribute derived_from, no datasets). v3 -> v4: a
/// stored pyramid keeps every third level from its finest (kPoolStride); readers pool the others
/// from the nearest stored level below (attribute coarsest_level of each pool group).
inline constexpr int kOldestFormatVersion = 1;
inline constexpr int64_t kTileSide = 256;   ///< pyramid tiles (and chunks) are 256 x 256 cells
inline constexpr int64_t kRowBlock = 4096;  ///< factor and gate chunks hold 4096 token rows
inline constexpr int kMaxLayers = 1000;     ///< layer groups are named with 3 digits

/// Pooling of a pyramid level: max keeps needles visible, mean keeps attention mass.
enum class Pool { Max, Mean };

const char* toString(Pool pool);
std::optional<Pool> parsePool(std::string_view name);

namespace schema {
inline constexpr const char* kManifest = "/manifest";
inline constexpr const char* kTokenIds = "/tokens/ids";
inline constexpr const char* kTokenText = "/tokens/text";
inline constexpr const char* kTokenOffsets = "/tokens/byte_offsets";
inline constexpr const char* kSourceText = "/tokens/source_text";
inline constexpr const char* kSourceBytes = "/tokens/source_bytes";  ///< uint8 [B], v2 on
inline constexpr const char* kLoss = "/per_token/loss";
inline constexpr const char* kTargetRank = "/per_token/target_rank";
inline constexpr const char* kEntropy = "/per_token/entropy";
inline constexpr const char* kTopIds = "/per_token/top_ids";            ///< int32 [N, K]
inline constexpr const char* kTopLogProbs = "/per_token/top_logprobs";  ///< float32 [N, K]
inline constexpr const char* kVocabIds = "/per_token/vocab_ids";        ///< int32 [M]
inline constexpr const char* kVocabText = "/per_token/vocab_text";      ///< string [M]
inline constexpr int kMaxTopPredictions = 64;
inline constexpr std::string_view kDecayMap = "decay";
inline constexpr std::string_view kAdditiveDecay = "additive_decay";  ///< layer score_kind
/// Attribute of pyramid/<map> groups whose cells are derived, not stored (format v3).
inline constexpr const char* kDerivedFrom = "derived_from";
inline constexpr std::string_view kDerivedFromDecay = "factors/log_decay_cumsum";
/// Attribute of pyramid/<map>/<pool> groups (format v4): the pyramid's coarsest level. Levels up
/// to it without a dataset are pooled by readers from the nearest stored level below.
inline constexpr const char* kCoarsestLevel = "coarsest_level";

/// "000" for layer 0.
std::string layerName(int layer);
/// "/layers/000".
std::string layerPath(int layer);
/// "/layers/000/gates/log_retention".
std::string gatesPath(int layer);
/// "/layers/000/factors/q".
std::string factorPath(int layer, std::string_view name);
/// "/layers/000/pyramid/attention/max/6".
std::string pyramidPath(int layer, std::string_view map, Pool pool, int level);

/// Factor and map names: 1-64 characters of [A-Za-z0-9_.-], not "." or "..".
bool isValidName(std::string_view name);

/// Whether factor `name` is always stored as float32, even when factors are stored as float16:
/// "lse" and every "log_*" factor (log_decay_cumsum, log_normalizer, ...). They enter exp() as
/// differences of large numbers (c_i - c_j, s - lse): at 8192 tokens |c| reaches 1e4, where
/// float16's step is 8, so only the model's own float32 values recompute its tiles.
bool keepsFloat32(std::string_view name);
}  // namespace schema

}  // namespace gatescope::data
