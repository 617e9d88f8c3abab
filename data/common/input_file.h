// Opening files read from outside (configs, weights, texts, token ids, tokenizer files, recipes,
// status files): only regular files, and never more bytes than a documented cap. A FIFO, a
// device (/dev/zero, /dev/urandom), a socket or a directory is refused with an error naming the
// file and its type, before anything blocks or reads forever: the file is opened with O_NONBLOCK
// (so opening a FIFO never waits for a writer) and checked with fstat on the descriptor itself
// (no race between the check and the read). Sizes come from that fstat, so a cap is checked
// before a single byte is allocated. Every input read of core/ and app/ goes through here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::data {

/// Caps on what is read from outside, in bytes. A real file of each kind is far below its cap;
/// the caps exist so that a wrong or hostile file is refused with a clear error instead of
/// exhausting memory. docs/fuzzing.md lists them.
namespace input_limits {
inline constexpr uint64_t kConfigJson = uint64_t{64} << 20;      ///< config.json: 64 MiB
inline constexpr uint64_t kShardIndex = uint64_t{64} << 20;      ///< *.safetensors.index.json
inline constexpr uint64_t kTokenizerFile = uint64_t{512} << 20;  ///< tokenizer.json, vocab, merges
inline constexpr uint64_t kRecipe = uint64_t{16} << 20;          ///< batch recipe (JSON/TOML)
inline constexpr uint64_t kStatusFile = uint64_t{1} << 20;       ///< batch status/<run>.json
inline constexpr uint64_t kInputFile = uint64_t{4} << 30;        ///< text, .ids, .npy input: 4 GiB
}  // namespace input_limits

/// "regular file", "directory", "FIFO", "character device", "block device", "socket",
/// "symbolic link", "unknown file type" for a st_mode.
const char* describeFileType(unsigned mode);

/// A read-only descriptor of a regular file, closed on destruction. Move-only. Not thread-safe
/// (one reader at a time); distinct objects are independent.
class InputFile {
public:
    /// Opens `path` (following symbolic links) without blocking, then requires a regular file.
    /// Errors (all name `path`): Io "no such file or directory" / "permission denied" / ...;
    /// Io "not a regular file (FIFO)" (or character device, directory, ...). Non-regular files
    /// are refused from a stat before they are opened, and again from fstat after.
    static Result<InputFile> open(const std::filesystem::path& path);

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    int fd() const { return m_fd; }
    /// The size fstat reported at open().
    uint64_t size() const { return m_size; }
    const std::filesystem::path& path() const { return m_path; }

    /// Reads the whole file. Errors: Format when size() > maxBytes (names the size, the cap and
    /// `what`, e.g. "a config.json"; nothing is allocated), Io on a read error or when the file
    /// shrinks while read.
    Result<std::string> readAll(uint64_t maxBytes, std::string_view what = {}) const;

private:
    InputFile() = default;
    int m_fd = -1;
    uint64_t m_size = 0;
    std::filesystem::path m_path;
};

/// InputFile::open(path).readAll(maxBytes).
Result<std::string> readRegularFile(const std::filesystem::path& path, uint64_t maxBytes,
                                    std::string_view what = {});

/// Ok when `path` names a regular file (after symbolic links); the same errors as
/// InputFile::open, without opening it.
Status checkRegularFile(const std::filesystem::path& path);

/// "3.0 GB", "64 MiB"-style byte counts for messages: binary units, one decimal.
std::string formatBytes(uint64_t bytes);

}  // namespace gatescope::data
