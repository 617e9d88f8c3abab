#include <fmt/format.h>

#include "core/analysis/compare.h"

namespace gatescope::core {

TokenAlignment alignTokens(const data::TokenTable& a, const data::TokenTable& b) {
    TokenAlignment out;
    if (a.ids == b.ids) {
        out.identical = true;
        out.note = "identical token ids";
        for (int64_t i = 0; i < a.size(); ++i)
            out.pairs.emplace_back(i, i);
        return out;
    }
    if (a.sourceText.empty() || a.sourceText != b.sourceText) {
        out.note =
            "the tokenizations differ and the traces do not share their source text: no "
            "alignment";
        return out;
    }
    // Both walk the same bytes: pair the positions whose tokens end at the same byte.
    int64_t j = 0;
    for (int64_t i = 0; i < a.size(); ++i) {
        const int64_t end = a.byteOffsets[i][1];
        if (a.byteOffsets[i][0] == end) continue;  // no text (an added BOS)
        while (j < b.size() && b.byteOffsets[j][1] < end)
            ++j;
        if (j < b.size() && b.byteOffsets[j][1] == end && b.byteOffsets[j][0] != end)
            out.pairs.emplace_back(i, j);
    }
    out.note = fmt::format(
        "tokenizations differ ({} vs {} tokens): {} positions aligned by the "
        "byte where their token ends",
        a.size(), b.size(), out.pairs.size());
    return out;
}

}  // namespace gatescope::core
