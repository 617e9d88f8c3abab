#include "core/tokenizer/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace gatescope::core {

Result<std::string> readWholeFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return Error{ErrorKind::Io, "is a directory, not a file", path.string(), {}};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error{
            ErrorKind::Io, fmt::format("cannot open: {}", std::strerror(errno)), path.string(), {}};
    }
    std::string bytes;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size > 0) {
        bytes.resize(static_cast<std::size_t>(size));
        in.seekg(0, std::ios::beg);
        in.read(bytes.data(), size);
    }
    if (!in) return Error{ErrorKind::Io, "read error", path.string(), {}};
    return bytes;
}

Result<nlohmann::json> readJsonFile(const std::filesystem::path& path) {
    Result<std::string> text = readWholeFile(path);
    if (!text) return text.error();
    try {
        return nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error& e) {
        return Error{ErrorKind::Format,
                     fmt::format("not valid JSON near byte {}", e.byte),
                     path.string(),
                     {}};
    }
}

}  // namespace gatescope::core
