#include "core/tokenizer/bpe_model.h"

#include <algorithm>
#include <queue>

#include <fmt/format.h>

#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

// Enough for the distinct words of a long document; cleared wholesale when full.
constexpr std::size_t kCacheLimit = 200'000;
// Longer words are not cached: they are rare and would crowd the cache.
constexpr std::size_t kCacheWordLimit = 256;

}  // namespace

Result<std::unique_ptr<BpeModel>> BpeModel::create(
    std::vector<std::pair<std::string, int32_t>> vocab,
    const std::vector<std::pair<std::string, std::string>>& merges, Options options) {
    std::unique_ptr<BpeModel> model(new BpeModel());
    model->m_options = options;
    int32_t maxId = -1;
    for (const auto& [token, id] : vocab) {
        if (id < 0) {
            return Error{ErrorKind::Format, fmt::format("negative id {}", id), {}, token};
        }
        if (id > kMaxTokenId)
            return Error{ErrorKind::Format,
                         fmt::format("id {} is past the largest supported token id {}", id,
                                     kMaxTokenId),
                         {},
                         token};
        maxId = std::max(maxId, id);
    }
    model->m_tokens.resize(static_cast<std::size_t>(maxId + 1));
    for (auto& [token, id] : vocab) {
        if (!model->m_tokens[id].empty()) {
            return Error{ErrorKind::Format,
                         fmt::format("id {} is given to both \"{}\" and this token", id,
                                     model->m_tokens[id]),
                         {},
                         token};
        }
        model->m_tokens[id] = token;
        model->m_ids.emplace(std::move(token), id);
    }
    int32_t rank = 0;
    for (const auto& [left, right] : merges) {
        const int32_t a = model->idOf(left);
        const int32_t b = model->idOf(right);
        const int32_t result = model->idOf(left + right);
        if (a < 0 || b < 0 || result < 0) {
            return Error{ErrorKind::Format,
                         "merge refers to a token that is not in the vocabulary",
                         {},
                         left + " " + right};
        }
        // A repeated merge keeps its first (lowest) rank, as a rank lookup table would.
        model->m_merges.try_emplace(pairKey(a, b), MergeTarget{rank, result});
        ++rank;
    }
    model->m_mergeCount = merges.size();
    if (options.byteFallback) {
        model->m_byteIds.resize(256);
        for (int b = 0; b < 256; ++b)
            model->m_byteIds[b] = model->idOf(fmt::format("<0x{:02X}>", b));
    }
    return model;
}

int32_t BpeModel::idOf(std::string_view token) const {
    auto it = m_ids.find(token);
    return it == m_ids.end() ? -1 : it->second;
}

const std::string& BpeModel::tokenOf(int32_t id) const {
    static const std::string kEmpty;
    if (id < 0 || id >= idLimit()) return kEmpty;
    return m_tokens[id];
}

void BpeModel::mergeSymbols(Pieces& pieces) const {
    std::vector<int32_t>& symbols = pieces.ids;
    // Doubly linked list over symbol slots plus a min-heap of candidate merges keyed by
    // (rank, position): O(n log n) even for very long words (digit strings, base64 blobs).
    const int n = static_cast<int>(symbols.size());
    std::vector<int> prev(n), next(n);
    for (int i = 0; i < n; ++i) {
        prev[i] = i - 1;
        next[i] = i + 1 < n ? i + 1 : -1;
    }
    struct Candidate {
        int32_t rank;
        int pos;
        int32_t left;
        int32_t right;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    auto push = [&](int pos) {
        if (pos < 0 || next[pos] < 0) return;
        auto it = m_merges.find(pairKey(symbols[pos], symbols[next[pos]]));
        if (it != m_merges.end()) {
            heap.push({it->second.rank, pos, symbols[pos], symbols[next[pos]]});
        }
    };
    for (int i = 0; i + 1 < n; ++i)
        push(i);
    while (!heap.empty()) {
        const Candidate top = heap.top();
        heap.pop();
        const int right = next[top.pos];
        // Stale entries: the slot was merged away or its neighbour changed since the push.
        if (symbols[top.pos] != top.left || right < 0 || symbols[right] != top.right) continue;
        symbols[top.pos] = m_merges.at(pairKey(top.left, top.right)).result;
        pieces.lengths[top.pos] += pieces.lengths[right];
        symbols[right] = -1;
        next[top.pos] = next[right];
        if (next[right] >= 0) prev[next[right]] = top.pos;
        push(prev[top.pos]);
        push(top.pos);
    }
    std::size_t out = 0;
    for (int i = 0; i < n; ++i) {
        if (symbols[i] < 0) continue;
        pieces.lengths[out] = pieces.lengths[i];
        symbols[out++] = symbols[i];
    }
    symbols.resize(out);
    pieces.lengths.resize(out);
}

Status BpeModel::splitCharacters(std::string_view word, Pieces& pieces) const {
    bool previousUnknown = false;
    std::size_t pos = 0;
    while (pos < word.size()) {
        char32_t cp = 0;
        std::size_t length = data::utf8SequenceAt(word, pos, cp);
        if (length == 0) length = 1;
        const std::string_view symbol = word.substr(pos, length);
        pos += length;
        if (const int32_t id = idOf(symbol); id >= 0) {
            pieces.ids.push_back(id);
            pieces.lengths.push_back(static_cast<uint32_t>(length));
            previousUnknown = false;
            continue;
        }
        if (m_options.byteFallback && std::all_of(symbol.begin(), symbol.end(), [&](char b) {
                return m_byteIds[static_cast<uint8_t>(b)] >= 0;
            })) {
            for (char b : symbol) {
                pieces.ids.push_back(m_byteIds[static_cast<uint8_t>(b)]);
                pieces.lengths.push_back(1);
            }
            previousUnknown = false;
            continue;
        }
        if (m_options.unkId < 0) {
            return Error{ErrorKind::Format,
                         fmt::format("character \"{}\" has no token in the vocabulary",
                                     data::escapeInvalidUtf8(symbol)),
                         {},
                         {}};
        }
        if (m_options.fuseUnk && previousUnknown) {
            pieces.lengths.back() += static_cast<uint32_t>(length);
        } else {
            pieces.ids.push_back(m_options.unkId);
            pieces.lengths.push_back(static_cast<uint32_t>(length));
        }
        previousUnknown = true;
    }
    return Ok{};
}

Status BpeModel::encodeWord(std::string_view word, std::vector<int32_t>& out,
                            std::vector<uint32_t>* lengths) const {
    auto emit = [&](const Pieces& pieces) {
        out.insert(out.end(), pieces.ids.begin(), pieces.ids.end());
        if (lengths) lengths->insert(lengths->end(), pieces.lengths.begin(), pieces.lengths.end());
    };
    if (m_options.ignoreMerges) {
        if (const int32_t id = idOf(word); id >= 0 && !word.empty()) {
            emit(Pieces{{id}, {static_cast<uint32_t>(word.size())}});
            return Ok{};
        }
    }
    const bool cacheable = word.size() <= kCacheWordLimit;
    if (cacheable) {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        auto it = m_cache.find(std::string(word));
        if (it != m_cache.end()) {
            emit(it->second);
            return Ok{};
        }
    }
    Pieces pieces;
    pieces.ids.reserve(word.size());
    pieces.lengths.reserve(word.size());
    if (Status split = splitCharacters(word, pieces); !split) return split;
    mergeSymbols(pieces);
    emit(pieces);
    if (cacheable) {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        if (m_cache.size() >= kCacheLimit) m_cache.clear();
        m_cache.emplace(std::string(word), std::move(pieces));
    }
    return Ok{};
}

}  // namespace gatescope::core
