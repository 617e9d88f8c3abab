#include "core/input/documents.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace gatescope::core {

Result<DocumentSplit> parseDocumentSplit(const std::string& text, const std::string& option) {
    DocumentSplit split;
    if (text.empty()) return split;
    const Error bad{ErrorKind::Usage,
                    fmt::format("'{}': expected start:ID[,ID...] (a document starts at each "
                                "such token), end:ID[,ID...] (a document ends with each) or "
                                "at:POS[,POS...] (token positions)",
                                text),
                    {},
                    option};
    const auto colon = text.find(':');
    if (colon == std::string::npos) return bad;
    const std::string mode = text.substr(0, colon);
    if (mode == "start") {
        split.mode = DocumentSplit::Mode::StartTokens;
    } else if (mode == "end") {
        split.mode = DocumentSplit::Mode::EndTokens;
    } else if (mode == "at") {
        split.mode = DocumentSplit::Mode::Positions;
    } else {
        return bad;
    }
    std::size_t pos = colon + 1;
    while (true) {
        const auto comma = std::min(text.find(',', pos), text.size());
        int64_t value = -1;
        const auto [end, ec] = std::from_chars(text.data() + pos, text.data() + comma, value);
        if (ec != std::errc() || end != text.data() + comma || value < 0) return bad;
        split.values.push_back(value);
        if (comma == text.size()) break;
        pos = comma + 1;
    }
    split.text = text;
    return split;
}

Result<std::vector<int64_t>> documentStarts(const DocumentSplit& split,
                                            std::span<const int32_t> ids) {
    const int64_t n = static_cast<int64_t>(ids.size());
    std::vector<int64_t> starts;
    if (split.mode == DocumentSplit::Mode::None || n == 0) return starts;
    starts.push_back(0);
    const auto isMarker = [&](int32_t id) {
        return std::find(split.values.begin(), split.values.end(), int64_t{id}) !=
               split.values.end();
    };
    switch (split.mode) {
        case DocumentSplit::Mode::StartTokens:
            for (int64_t t = 1; t < n; ++t)
                if (isMarker(ids[t])) starts.push_back(t);
            break;
        case DocumentSplit::Mode::EndTokens:
            for (int64_t t = 0; t + 1 < n; ++t)
                if (isMarker(ids[t])) starts.push_back(t + 1);
            break;
        case DocumentSplit::Mode::Positions:
            for (std::size_t v = 0; v < split.values.size(); ++v) {
                const int64_t p = split.values[v];
                if (v == 0 && p == 0) continue;  // 0 is always a start
                if (p >= n || p <= starts.back()) {
                    return Error{ErrorKind::Usage,
                                 fmt::format("'{}': position {} must be above the "
                                             "previous start and below the {} tokens",
                                             split.text, p, n),
                                 {},
                                 "--documents"};
                }
                starts.push_back(p);
            }
            break;
        case DocumentSplit::Mode::None:
            break;
    }
    return starts;
}

}  // namespace gatescope::core
