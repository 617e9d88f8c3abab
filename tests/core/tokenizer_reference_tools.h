// The outside references of the tokenizer tests, run as programs: SentencePiece's own tools
// (spm_train, spm_encode, spm_export_vocab; Debian package "sentencepiece") and Hugging Face's
// tokenizers as shipped on npm (@huggingface/transformers, run by Node; scripts/setup.sh installs
// it into .tools/npm). Tests that need one skip with a message when it is absent.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gatescope::test {

inline std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

/// Runs `command` through the shell; its standard output, and the exit status.
struct CommandOutput {
    int status = -1;
    std::string out;
};
inline CommandOutput runCommand(const std::string& command) {
    CommandOutput result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[65536];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        result.out.append(buffer, got);
    const int status = ::pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

inline bool onPath(const std::string& tool) {
    return runCommand("command -v " + shellQuote(tool) + " >/dev/null 2>&1").status == 0;
}

/// spm_train, spm_encode and spm_export_vocab are all there.
inline bool haveSentencePieceTools() {
    return onPath("spm_train") && onPath("spm_encode") && onPath("spm_export_vocab");
}

/// Trains a SentencePiece model on `corpus` into `dir`/`prefix`.model with spm_train's flags
/// `flags`; empty path (and the tool's output in `log`) when it fails.
inline std::filesystem::path trainSentencePiece(const std::filesystem::path& dir,
                                                const std::string& prefix,
                                                const std::filesystem::path& corpus,
                                                const std::string& flags,
                                                std::string* log = nullptr) {
    const auto model = dir / (prefix + ".model");
    const CommandOutput run = runCommand("spm_train --input=" + shellQuote(corpus.string()) +
                                         " --model_prefix=" + shellQuote((dir / prefix).string()) +
                                         " " + flags + " --minloglevel=2 2>&1");
    if (log) *log = run.out;
    return run.status == 0 && std::filesystem::exists(model) ? model : std::filesystem::path();
}

/// spm_encode --output_format=id of a text file: one line of ids per input line (spm_encode reads
/// its input line by line).
inline std::vector<std::vector<int>> spmEncodeIds(const std::filesystem::path& model,
                                                  const std::filesystem::path& textFile) {
    const CommandOutput run =
        runCommand("spm_encode --model=" + shellQuote(model.string()) + " --output_format=id < " +
                   shellQuote(textFile.string()) + " 2>/dev/null");
    std::vector<std::vector<int>> lines;
    if (run.status != 0) return lines;
    std::istringstream in(run.out);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<int> ids;
        int id = 0;
        while (words >> id)
            ids.push_back(id);
        lines.push_back(std::move(ids));
    }
    return lines;
}

/// The npm prefix holding node_modules/@huggingface/transformers: $GATESCOPE_NPM_PREFIX, else the
/// checkout's .tools/npm; empty when Node or the package is not there.
inline std::filesystem::path hfTransformersPrefix() {
    std::filesystem::path prefix = std::filesystem::path(GATESCOPE_SOURCE_DIR) / ".tools/npm";
    if (const char* env = std::getenv("GATESCOPE_NPM_PREFIX")) prefix = env;
    if (!onPath("node") ||
        !std::filesystem::exists(prefix / "node_modules/@huggingface/transformers/package.json"))
        return {};
    return prefix;
}

/// Encodes each `texts[i]` (a file) with the tokenizer folder `tokenizerDir` (tokenizer.json +
/// tokenizer_config.json) through transformers.js's AutoTokenizer, offline. Empty on failure,
/// with Node's output in `log`.
inline std::vector<std::vector<int>> hfEncodeIds(const std::filesystem::path& prefix,
                                                 const std::filesystem::path& tokenizerDir,
                                                 const std::vector<std::filesystem::path>& texts,
                                                 std::string* log = nullptr) {
    const std::filesystem::path script =
        std::filesystem::path(GATESCOPE_SOURCE_DIR) / "tests/core/hf_tokenize.mjs";
    std::string command = "node " + shellQuote(script.string()) + " " +
                          shellQuote(prefix.string()) + " " + shellQuote(tokenizerDir.string());
    for (const auto& text : texts)
        command += " " + shellQuote(text.string());
    const CommandOutput run = runCommand(command + " 2>&1");
    if (log) *log = run.out;
    std::vector<std::vector<int>> out;
    if (run.status != 0) return out;
    for (const auto& text : texts) {
        std::ifstream in(text.string() + ".ids");
        std::vector<int> ids;
        int id = 0;
        while (in >> id)
            ids.push_back(id);
        out.push_back(std::move(ids));
    }
    return out;
}

}  // namespace gatescope::test
