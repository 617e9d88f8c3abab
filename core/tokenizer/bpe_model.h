// Byte-pair encoding over a vocabulary of strings and a ranked merge list (GPT-2 style).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// What happens to a character that has no token (Hugging Face's BPE model options).
struct BpeOptions {
    /// byte_fallback: the character becomes the tokens "<0xNN>" of its UTF-8 bytes, when the
    /// vocabulary has all of them.
    bool byteFallback = false;
    /// unk_token's id: otherwise the character becomes this token; -1: it is an error.
    int32_t unkId = -1;
    /// fuse_unk: consecutive unknown characters of a word become one unknown token.
    bool fuseUnk = false;
    /// ignore_merges: a word that is itself in the vocabulary is that one token.
    bool ignoreMerges = false;
};

/// Vocabulary + merges. encodeWord() applies merges lowest rank first (leftmost first among equal
/// ranks), which is what Hugging Face tokenizers and GPT-2's encoder.py compute for any merge list
/// learned by BPE training. Results per word are cached (bounded). Thread-safe: the cache is
/// guarded by a mutex; everything else is immutable after create().
class BpeModel {
public:
    using Options = BpeOptions;
    /// The largest token id a vocabulary may give: the id range is a table (one entry per id),
    /// so an id of 2^31 would ask for 64 GB. Published vocabularies stay under 10^6 ids.
    static constexpr int32_t kMaxTokenId = (1 << 22) - 1;

    /// Errors (Format, object = the merge or token at fault; file left empty for the caller to
    /// fill): a merge whose parts or result are not in the vocabulary, a duplicate id, an id
    /// below 0 or above kMaxTokenId.
    static Result<std::unique_ptr<BpeModel>> create(
        std::vector<std::pair<std::string, int32_t>> vocab,
        const std::vector<std::pair<std::string, std::string>>& merges, Options options = {});

    /// Token ids of one pre-token whose symbols are the UTF-8 characters of `word` (for GPT-2: its
    /// byte-level spelling). Appends to `out`, and to `lengths` (when given) the number of bytes
    /// of `word` each id stands for. A character with no token is handled as Options say; without
    /// byte fallback or unknown token it is an error (Format) naming the character.
    Status encodeWord(std::string_view word, std::vector<int32_t>& out,
                      std::vector<uint32_t>* lengths = nullptr) const;

    /// -1 when absent.
    int32_t idOf(std::string_view token) const;
    /// Empty string for ids with no token (holes in the id range).
    const std::string& tokenOf(int32_t id) const;
    /// Largest id + 1.
    int32_t idLimit() const { return static_cast<int32_t>(m_tokens.size()); }
    std::size_t mergeCount() const { return m_mergeCount; }

private:
    // Lets idOf() look up a string_view without allocating.
    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    struct MergeTarget {
        int32_t rank;
        int32_t result;
    };
    static uint64_t pairKey(int32_t left, int32_t right) {
        return (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
    }
    struct Pieces {
        std::vector<int32_t> ids;
        std::vector<uint32_t> lengths;  // bytes of the word per id
    };
    Status splitCharacters(std::string_view word, Pieces& pieces) const;
    void mergeSymbols(Pieces& pieces) const;

    std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> m_ids;
    std::vector<std::string> m_tokens;
    std::unordered_map<uint64_t, MergeTarget> m_merges;
    std::size_t m_mergeCount = 0;
    Options m_options;
    std::vector<int32_t> m_byteIds;  // "<0xNN>" per byte value (-1: absent); with byteFallback

    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, Pieces> m_cache;
};

}  // namespace gatescope::core
