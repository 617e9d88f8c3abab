// Private to core/analysis: building one needle-in-a-haystack prompt as token ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tokenizer/tokenizer.h"
#include "data/common/result.h"

namespace gatescope::core {

/// The FoX evaluation's texts (eval/niah): the needle, and the question that follows the haystack.
inline constexpr const char* kNiahNeedle =
    "\nThe best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny "
    "day.\n";
inline constexpr const char* kNiahEasyNeedle =
    "\nWhat is the best thing to do in San Francisco? Answer: The best thing to do in San "
    "Francisco is eat a sandwich and sit in Dolores Park on a sunny day.\n";
inline constexpr const char* kNiahQuestion =
    "\nWhat is the best thing to do in San Francisco? Answer:";
inline constexpr const char* kNiahAnswer =
    " The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny "
    "day.";

/// What is hidden and asked: the needle sentence, the question after the haystack, and the answer
/// the model must continue with.
struct NeedleTexts {
    std::string needle, question, answer;
};

/// The FoX evaluation's needle (easy: the needle states the question too).
NeedleTexts foxNeedleTexts(bool easy);
/// The pass-key retrieval task (Mohtashami & Jaggi 2023) with `key` (e.g. five digits): the task
/// `gatescope train` mixes into its sample models' training, so the needle grid of a small
/// byte-level model measures retrieval rather than a memorised answer.
NeedleTexts passkeyNeedleTexts(const std::string& key);

struct NiahPrompt {
    std::vector<int32_t> ids;  ///< [BOS] haystack-with-needle question answer
    int64_t needleBegin = 0, needleEnd = 0;
    int64_t answerBegin = 0;  ///< first answer token; the answer runs to the end
};

/// Builds a prompt of exactly `length` tokens (or Usage when needle, question and answer do not
/// fit). The haystack is cut (and repeated if short) to fill the rest; the needle goes at
/// int(haystack tokens * depth / 100), moved back to just after the previous token that ends a
/// sentence ('.'), as the official script does.
Result<NiahPrompt> buildNiahPrompt(const Tokenizer& tokenizer, const std::string& haystack,
                                   int64_t length, int depth, const NeedleTexts& texts);

}  // namespace gatescope::core
