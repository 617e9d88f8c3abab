// A small hand-built GPT-2 style vocabulary for tokenizer tests: the 256 byte symbols (id = byte
// value), 13 merges whose effect on test words is worked out by hand in the tests, and
// <|endoftext|>.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/gpt2_bpe_tokenizer.h"

namespace gatescope::test {

// Ranks in this order (rank = index). "Ġ" is the byte-level symbol of the space byte.
inline const std::vector<std::pair<std::string, std::string>> kToyMerges = {
    {"l", "o"},  {"lo", "w"}, {"e", "r"},  {"Ġ", "low"}, {"low", "er"}, {"Ġ", "n"},   {"e", "w"},
    {"n", "ew"}, {"e", "s"},  {"es", "t"}, {"s", "t"},   {"a", "a"},    {"aa", "aa"},
};

// Merged tokens get ids 256 + rank; <|endoftext|> is 269.
inline constexpr int kLo = 256, kLow = 257, kEr = 258, kSpaceLow = 259, kLower = 260, kSpaceN = 261,
                     kEw = 262, kNew = 263, kEs = 264, kEst = 265, kSt = 266, kAa = 267,
                     kAaaa = 268, kEndOfText = 269;

inline core::Gpt2BpeTokenizer::Vocab toyVocab() {
    core::Gpt2BpeTokenizer::Vocab vocab;
    const auto& alphabet = core::byteLevelAlphabet();
    for (int b = 0; b < 256; ++b)
        vocab.emplace_back(alphabet[b], b);
    int id = 256;
    for (const auto& [a, b] : kToyMerges)
        vocab.emplace_back(a + b, id++);
    vocab.emplace_back("<|endoftext|>", id);
    return vocab;
}

inline nlohmann::json toyVocabJson() {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [token, id] : toyVocab())
        out[token] = id;
    return out;
}

inline std::string toyMergesTxt() {
    std::string out = "#version: 0.2\n";
    for (const auto& [a, b] : kToyMerges)
        out += a + " " + b + "\n";
    return out;
}

inline std::unique_ptr<core::Gpt2BpeTokenizer> toyTokenizer(
    core::Gpt2BpeTokenizer::Options options = {}) {
    auto tok = core::Gpt2BpeTokenizer::fromData(toyVocab(), kToyMerges, std::move(options));
    return tok.ok() ? std::move(tok).value() : nullptr;
}

}  // namespace gatescope::test
