// Test support shared by every suite: a scratch folder and whole-file reads and writes. One
// definition for all suites, so that suites compiled as unity batches never meet two.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace gatescope::test {

/// A fresh folder under the build tree (GATESCOPE_BINARY_DIR/test-tmp, so tests never write
/// outside the build), removed with everything in it at destruction. Not copyable.
class TempDir {
public:
    TempDir() {
        const auto root = std::filesystem::path(GATESCOPE_BINARY_DIR) / "test-tmp";
        std::filesystem::create_directories(root);
        std::string pattern = (root / "t-XXXXXX").string();
        if (::mkdtemp(pattern.data()) != nullptr) m_path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

/// The whole content of `path`; empty when it cannot be read.
inline std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Replaces `path` with `bytes`.
inline void writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace gatescope::test
