// Inputs of the tokenizer reference tests: a mixed text of a chosen size, and a Llama-style
// tokenizer.json made from a SentencePiece BPE model (what transformers' LlamaConverter makes of
// a tokenizer.model: the pieces as vocabulary, merges from every piece's two-piece splits ordered
// by the piece's score, byte fallback, <unk>/<s>/</s> as special added tokens).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace gatescope::test {

inline std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// tests/core/tokenizer_samples/multiscript.txt: prose in Latin (accents, decomposed forms),
/// Cyrillic, Greek, CJK, Arabic, Hebrew, Devanagari, Thai, emoji sequences, symbols, odd spaces.
inline std::string multiScriptSample() {
    return readAll(std::filesystem::path(GATESCOPE_SOURCE_DIR) /
                   "tests/core/tokenizer_samples/multiscript.txt");
}

/// About `size` bytes of mixed text, the same for the same arguments: Python sources from
/// /usr/lib/python3.11 (from the `firstFile`-th in name order, where the folder exists) between
/// the multi-script sample, emoji and generated runs of spaces, tabs and blank lines.
inline std::string mixedText(std::size_t size, std::size_t firstFile = 0, unsigned seed = 7) {
    std::vector<std::filesystem::path> sources;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/python3.11", ec)) {
        if (entry.path().extension() == ".py") sources.push_back(entry.path());
    }
    std::sort(sources.begin(), sources.end());
    const std::string sample = multiScriptSample();
    const std::vector<std::string> emoji = {"😀",      "👍🏽", "👩🏾‍💻", "🇫🇷",
                                            "❤️", "🚀",        "1️⃣",         "🧪"};
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    std::string out;
    for (std::size_t i = firstFile; out.size() < size; ++i) {
        if (!sources.empty()) out += readAll(sources[i % sources.size()]);
        out += sample;
        for (int line = 0; line < 12; ++line) {
            out += std::string(pick(48), ' ') + "indent" + std::string(pick(3), '\t');
            out += std::string(pick(20), ' ') + "x" + std::string(pick(6), ' ');
            out += emoji[pick(static_cast<int>(emoji.size()))] + std::string(pick(3), '\n');
            out += pick(4) == 0 ? "\t \t  \ttabs\r\n" : "\n";
        }
    }
    return out;
}

/// The code points of a UTF-8 string, each as its bytes.
inline std::vector<std::string> utf8Chars(const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 || out.empty()) {
            out.emplace_back(1, s[i]);
        } else {
            out.back() += s[i];
        }
    }
    return out;
}

enum class LlamaJsonStyle {
    Legacy,  ///< normalizer Prepend "▁" + Replace " " -> "▁", no pre-tokenizer, "a b" merges,
             ///< post-processor <s> $A (Llama 2)
    Metaspace,  ///< Metaspace pre-tokenizer (prepend_scheme "first", split false), no normalizer,
                ///< ["a", "b"] merges, no post-processor (newer Llama / Mistral files)
};

/// A tokenizer.json from spm_export_vocab's output ("piece<TAB>score" per id).
inline nlohmann::json llamaTokenizerJson(const std::string& exportedVocab, LlamaJsonStyle style) {
    std::vector<std::pair<std::string, double>> pieces;
    std::istringstream in(exportedVocab);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t tab = line.find('\t');
        if (tab == std::string::npos) continue;
        pieces.emplace_back(line.substr(0, tab), std::stod(line.substr(tab + 1)));
    }
    std::unordered_map<std::string, int> ids;
    nlohmann::json vocab = nlohmann::json::object();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        ids[pieces[i].first] = static_cast<int>(i);
        vocab[pieces[i].first] = i;
    }
    // (left, right, score of left + right), ordered by score, then by the parts' ids.
    std::vector<std::tuple<std::string, std::string, double>> merges;
    for (const auto& [piece, score] : pieces) {
        const auto chars = utf8Chars(piece);
        std::vector<std::tuple<std::string, std::string, double>> local;
        std::string left;
        for (std::size_t k = 1; k < chars.size(); ++k) {
            left += chars[k - 1];
            const std::string right = piece.substr(left.size());
            if (ids.count(left) && ids.count(right)) local.emplace_back(left, right, score);
        }
        std::sort(local.begin(), local.end(), [&](const auto& a, const auto& b) {
            return std::pair(ids[std::get<0>(a)], ids[std::get<1>(a)]) <
                   std::pair(ids[std::get<0>(b)], ids[std::get<1>(b)]);
        });
        merges.insert(merges.end(), local.begin(), local.end());
    }
    std::stable_sort(merges.begin(), merges.end(),
                     [](const auto& a, const auto& b) { return std::get<2>(a) > std::get<2>(b); });
    nlohmann::json mergeList = nlohmann::json::array();
    for (const auto& [left, right, score] : merges) {
        if (style == LlamaJsonStyle::Legacy) {
            mergeList.push_back(left + " " + right);
        } else {
            mergeList.push_back({left, right});
        }
    }
    nlohmann::json added = nlohmann::json::array();
    for (const char* special : {"<unk>", "<s>", "</s>"}) {
        added.push_back({{"id", ids.at(special)},
                         {"content", special},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false},
                         {"special", true}});
    }
    nlohmann::json root = {{"version", "1.0"},
                           {"truncation", nullptr},
                           {"padding", nullptr},
                           {"added_tokens", added},
                           {"decoder", nullptr}};
    root["model"] = {{"type", "BPE"},
                     {"dropout", nullptr},
                     {"unk_token", "<unk>"},
                     {"continuing_subword_prefix", nullptr},
                     {"end_of_word_suffix", nullptr},
                     {"fuse_unk", true},
                     {"byte_fallback", true},
                     {"vocab", vocab},
                     {"merges", mergeList}};
    if (style == LlamaJsonStyle::Legacy) {
        root["normalizer"] = {
            {"type", "Sequence"},
            {"normalizers",
             {{{"type", "Prepend"}, {"prepend", "\u2581"}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}};
        root["pre_tokenizer"] = nullptr;
        root["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair", nlohmann::json::array()},
            {"special_tokens",
             {{"<s>", {{"id", "<s>"}, {"ids", {ids.at("<s>")}}, {"tokens", {"<s>"}}}}}}};
    } else {
        root["normalizer"] = nullptr;
        root["pre_tokenizer"] = {{"type", "Metaspace"},
                                 {"replacement", "\u2581"},
                                 {"prepend_scheme", "first"},
                                 {"split", false}};
        root["post_processor"] = nullptr;
    }
    return root;
}

}  // namespace gatescope::test
