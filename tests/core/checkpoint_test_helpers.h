// Helpers shared by the checkpoint, tokenizer and input tests: temporary folders, raw file bytes,
// hand-made safetensors files and Python ground truth.
#pragma once

#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "core/input/input.h"
#include "support/temp_dir.h"

namespace gatescope::test {

/// The bytes of `s`, as the checkpoint readers take them.
inline std::span<const std::byte> asBytes(const std::string& s) {
    return std::as_bytes(std::span(s.data(), s.size()));
}

/// An input of `path` read as `kind`.
inline core::InputSpec specFor(const std::filesystem::path& path,
                               core::InputKind kind = core::InputKind::Auto) {
    core::InputSpec spec;
    spec.path = path;
    spec.kind = kind;
    return spec;
}

/// A safetensors file from a header text and data bytes: the 8-byte little-endian length, the
/// header exactly as given (no padding), the data.
inline std::string rawSafetensors(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    const uint64_t length = header.size();
    std::memcpy(out.data(), &length, 8);
    return out + header + data;
}

/// Little-endian bytes of a vector of trivially copyable values.
template <class T>
std::string bytesOf(const std::vector<T>& values) {
    std::string out(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

inline std::string toHex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 0xF];
    }
    return out;
}

inline std::string fromHex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    return out;
}

/// True when `python3` runs.
inline bool havePython() {
    return std::system("python3 -c 'pass' >/dev/null 2>&1") == 0;
}

/// Runs a Python 3 script (standard library only) with `input` as its stdin file, returning stdout
/// lines. The script is written to a file to avoid shell quoting.
inline std::vector<std::string> runPython(const TempDir& dir, const std::string& script,
                                          const std::string& input = {}) {
    writeFile(dir / "script.py", script);
    writeFile(dir / "stdin.txt", input);
    const std::string command =
        "python3 " + (dir / "script.py").string() + " < " + (dir / "stdin.txt").string() + " 2>&1";
    std::vector<std::string> lines;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return lines;
    std::string current;
    std::array<char, 4096> buffer;
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        current.append(buffer.data(), got);
    }
    ::pclose(pipe);
    std::size_t start = 0;
    while (start < current.size()) {
        std::size_t end = current.find('\n', start);
        if (end == std::string::npos) end = current.size();
        lines.push_back(current.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

}  // namespace gatescope::test
