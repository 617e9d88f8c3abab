// Small real traces for the suites that read traces without running models (core_tests,
// widgets_tests): a seeded random FoX checkpoint traced on the bundled text by the real CLI,
// written once under the build tree (per trace format version, so that a format change never
// leaves a stale cached file) and shared by every test process (atomic rename).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_schema.h"

namespace gatescope::sample {

/// Where the cached traces of this format version live.
inline std::filesystem::path sampleDir() {
    return std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" / "widgets-sample" /
           fmt::format("v{}", data::kFormatVersion);
}

/// Writes a random FoX checkpoint of `spec` and traces `text` with it into `out` through the real
/// CLI (what `gatescope demo` did before it moved to bundled models). False on failure.
inline bool traceRandomFox(const core::RandomFoxSpec& spec, const std::filesystem::path& text,
                           const std::filesystem::path& out, const std::string& extra = {}) {
    const auto model =
        out.parent_path() / fmt::format("model-{}-{}", out.stem().string(), getpid());
    if (!core::writeRandomFoxCheckpoint(model, spec)) return false;
    const std::string cmd =
        fmt::format("'{}' trace --model '{}' --input '{}' {} --out '{}' > /dev/null 2>&1",
                    GATESCOPE_CLI, model.string(), text.string(), extra, out.string());
    const int status = std::system(cmd.c_str());
    std::filesystem::remove_all(model);
    return status == 0;
}

/// The bundled sample text.
inline std::filesystem::path sampleText() {
    return std::filesystem::path(GATESCOPE_SOURCE_DIR) / "resources" / "samples" / "forgetting.txt";
}

inline std::filesystem::path sampleTrace() {
    const std::filesystem::path dir = sampleDir();
    const std::filesystem::path out = dir / "sample.h5";
    if (std::filesystem::exists(out)) return out;
    std::filesystem::create_directories(dir);
    const auto tmp = dir / fmt::format("sample-{}.h5", getpid());
    core::RandomFoxSpec spec;  // 2 layers, d 64, 4 heads, byte-level vocabulary, seed 1
    if (!traceRandomFox(spec, sampleText(), tmp)) return {};
    std::filesystem::rename(tmp, out);  // atomic: concurrent test processes see all or nothing
    return out;
}

/// A trace of the GSA golden fixture (16 gate channels per head, 96 tokens), or an empty path
/// when the fixtures are absent (../shared/fixtures) or tracing fails.
inline std::filesystem::path gsaTrace() {
    const std::filesystem::path model =
        std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "gsa" / "gsa";
    if (!std::filesystem::exists(model / "config.json")) return {};
    const std::filesystem::path dir = sampleDir();
    const std::filesystem::path out = dir / "gsa.h5";
    if (std::filesystem::exists(out)) return out;
    std::filesystem::create_directories(dir);
    const auto tmp = dir / fmt::format("gsa-{}.h5", getpid());
    const std::string cmd = fmt::format(
        "'{}' trace --model '{}' --input '{}' --tensor input_ids --out '{}' > /dev/null",
        GATESCOPE_CLI, model.string(), (model / "expected.safetensors").string(), tmp.string());
    if (std::system(cmd.c_str()) != 0) return {};
    std::filesystem::rename(tmp, out);
    return out;
}

/// Two traces of the same text for compare mode: random FoX checkpoints of seed 1 and seed 2
/// (think: two checkpoints of one run), `tokens` bytes of the bundled sample text, traced by the
/// real CLI once under the build tree. Empty paths when tracing fails.
inline std::pair<std::filesystem::path, std::filesystem::path> compareTraces(int tokens = 320) {
    const std::filesystem::path dir = sampleDir();
    const auto a = dir / fmt::format("compare-a-{}.h5", tokens),
               b = dir / fmt::format("compare-b-{}.h5", tokens);
    if (std::filesystem::exists(a) && std::filesystem::exists(b)) return {a, b};
    std::filesystem::create_directories(dir);
    for (int seed : {1, 2}) {
        core::RandomFoxSpec spec;
        spec.layers = 2, spec.hiddenSize = 32, spec.heads = 2, spec.seed = seed;
        const auto tmp = dir / fmt::format("compare-{}-{}.h5", seed, getpid());
        if (!traceRandomFox(spec, sampleText(), tmp, fmt::format("--range 0:{}", tokens)))
            return {};
        std::filesystem::rename(tmp, seed == 1 ? a : b);
    }
    return {a, b};
}

}  // namespace gatescope::sample
