// Shared by the input-side libFuzzer targets: a private scratch folder per process, for parsers
// whose entry point takes a path (tokenizer files, recipes).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace gatescope::fuzz {

/// A folder under $TMPDIR (or /tmp) made once per process and removed at exit.
inline const std::filesystem::path& scratchDir() {
    static const std::filesystem::path dir = [] {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/gatescope-fuzz-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) std::abort();
        static const std::string keep = pattern;
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(keep, ec);
        });
        return std::filesystem::path(pattern);
    }();
    return dir;
}

/// Writes `bytes` to scratchDir() / name, replacing it; aborts when it cannot (a broken setup,
/// not a finding).
inline std::filesystem::path writeScratch(const std::string& name, std::string_view bytes) {
    const auto path = scratchDir() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) std::abort();
    return path;
}

inline void removeScratch(const std::string& name) {
    std::error_code ec;
    std::filesystem::remove(scratchDir() / name, ec);
}

/// Splits `data` at each occurrence of `separator` into at most `maxParts` parts (the last takes
/// the rest), so one fuzz input can hold several files.
inline std::vector<std::string_view> splitParts(std::string_view data, std::string_view separator,
                                                std::size_t maxParts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < maxParts) {
        const auto at = data.find(separator);
        if (at == std::string_view::npos) break;
        parts.push_back(data.substr(0, at));
        data.remove_prefix(at + separator.size());
    }
    parts.push_back(data);
    return parts;
}

}  // namespace gatescope::fuzz
