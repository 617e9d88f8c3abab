#include "core/analysis/niah_prompt.h"

#include <fmt/format.h>

namespace gatescope::core {

namespace {

/// Ids of `text` without the BOS the tokenizer may prepend.
Result<std::vector<int32_t>> piece(const Tokenizer& tok, const std::string& text) {
    auto enc = tok.encode(text);
    if (!enc) return enc.error();
    std::vector<int32_t> ids = enc->ids;
    if (tok.addsBos() && !ids.empty() && tok.bosId() && ids.front() == *tok.bosId())
        ids.erase(ids.begin());
    return ids;
}

}  // namespace

NeedleTexts foxNeedleTexts(bool easy) {
    return {easy ? kNiahEasyNeedle : kNiahNeedle, kNiahQuestion, kNiahAnswer};
}

NeedleTexts passkeyNeedleTexts(const std::string& key) {
    return {fmt::format("\nThe pass key is {0}. Remember it. {0} is the pass key.\n", key),
            "\nWhat is the pass key? The pass key is", fmt::format(" {}.", key)};
}

Result<NiahPrompt> buildNiahPrompt(const Tokenizer& tok, const std::string& haystack,
                                   int64_t length, int depth, const NeedleTexts& texts) {
    auto needle = piece(tok, texts.needle);
    if (!needle) return needle.error();
    auto question = piece(tok, texts.question);
    if (!question) return question.error();
    auto answer = piece(tok, texts.answer);
    if (!answer) return answer.error();
    auto hay = piece(tok, haystack);
    if (!hay) return hay.error();
    if (hay->empty()) return Error{ErrorKind::Usage, "the haystack text is empty", {}, {}};
    const int64_t bos = tok.addsBos() && tok.bosId() ? 1 : 0;
    const int64_t fixed = bos + needle->size() + question->size() + answer->size();
    const int64_t hayTokens = length - fixed;
    if (hayTokens < 1)
        return Error{ErrorKind::Usage,
                     fmt::format("length {} is too short: needle, question and answer alone take "
                                 "{} tokens",
                                 length, fixed),
                     {},
                     "--lengths"};
    std::vector<int32_t> cut;
    while (static_cast<int64_t>(cut.size()) < hayTokens)
        cut.insert(cut.end(), hay->begin(),
                   hay->begin() + std::min<int64_t>(hay->size(), hayTokens - cut.size()));
    int64_t at = hayTokens * depth / 100;
    if (at < hayTokens) {
        // Back to just after the previous sentence end, so the needle does not split a sentence.
        while (at > 0 && tok.tokenText(cut[at - 1]).find('.') == std::string::npos)
            --at;
    }
    NiahPrompt p;
    if (bos) p.ids.push_back(*tok.bosId());
    p.ids.insert(p.ids.end(), cut.begin(), cut.begin() + at);
    p.needleBegin = static_cast<int64_t>(p.ids.size());
    p.ids.insert(p.ids.end(), needle->begin(), needle->end());
    p.needleEnd = static_cast<int64_t>(p.ids.size());
    p.ids.insert(p.ids.end(), cut.begin() + at, cut.end());
    p.ids.insert(p.ids.end(), question->begin(), question->end());
    p.answerBegin = static_cast<int64_t>(p.ids.size());
    p.ids.insert(p.ids.end(), answer->begin(), answer->end());
    return p;
}

}  // namespace gatescope::core
