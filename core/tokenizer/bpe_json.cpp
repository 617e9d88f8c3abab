#include "core/tokenizer/bpe_json.h"

#include <limits>

#include <fmt/format.h>

namespace gatescope::core {

namespace fs = std::filesystem;
using nlohmann::json;

Result<BpeVocab> parseBpeVocab(const json& vocab, const fs::path& file) {
    if (!vocab.is_object()) {
        return Error{ErrorKind::Format, "vocabulary is not a JSON object", file.string(), "vocab"};
    }
    BpeVocab out;
    out.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
            id.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
            return Error{ErrorKind::Format, "token id is not a valid id", file.string(), token};
        }
        out.emplace_back(token, static_cast<int32_t>(id.get<int64_t>()));
    }
    return out;
}

bool splitBpeMerge(std::string_view line, std::pair<std::string, std::string>& out) {
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 >= line.size() ||
        line.find(' ', space + 1) != std::string_view::npos) {
        return false;
    }
    out = {std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
    return true;
}

Result<BpeMerges> parseBpeMerges(const json& merges, const fs::path& file) {
    if (!merges.is_array()) {
        return Error{ErrorKind::Format, "merges are not a JSON array", file.string(),
                     "model.merges"};
    }
    BpeMerges out;
    out.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const json& m = merges[i];
        std::pair<std::string, std::string> merge;
        if (m.is_string() && splitBpeMerge(m.get<std::string>(), merge)) {
            out.push_back(std::move(merge));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            return Error{ErrorKind::Format, "a merge is neither \"a b\" nor [\"a\", \"b\"]",
                         file.string(), fmt::format("model.merges[{}]", i)};
        }
    }
    return out;
}

}  // namespace gatescope::core
