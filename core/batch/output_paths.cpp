#include "core/batch/output_paths.h"

#include <algorithm>

#include <fmt/format.h>

namespace gatescope::core {

namespace fs = std::filesystem;

bool isSafeRunName(std::string_view name) {
    if (name.empty() || name.size() > kMaxRunNameBytes || name.front() == '.') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-' || c == '+';
    });
}

bool isSafeDocumentName(std::string_view name) {
    if (name.empty() || name.size() > 200 || name == "." || name == "..") return false;
    return std::none_of(name.begin(), name.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return c == '/' || c == '\\' || u < 0x20 || u == 0x7f;
    });
}

Result<fs::path> pathInside(const fs::path& root, const fs::path& relative) {
    auto refuse = [&](const std::string& why) {
        return Error{ErrorKind::Usage,
                     fmt::format("refusing to write '{}': {}", relative.string(), why),
                     root.string(),
                     {}};
    };
    if (relative.empty() || relative.is_absolute() || relative.has_root_name() ||
        relative.has_root_directory())
        return refuse("not a relative path inside the output folder");
    for (const auto& part : relative) {
        if (part == ".." || part == ".") return refuse("a '.' or '..' part");
    }
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(fs::absolute(root, ec), ec);
    if (ec) return refuse("cannot resolve the output folder: " + ec.message());
    const fs::path full = root / relative;
    const fs::path resolved = fs::weakly_canonical(fs::absolute(full, ec), ec);
    if (ec) return refuse("cannot resolve the path: " + ec.message());
    auto b = base.begin(), r = resolved.begin();
    for (; b != base.end() && !b->empty(); ++b, ++r) {
        if (r == resolved.end() || *b != *r)
            return refuse(fmt::format("it resolves to {}, outside the output folder {}",
                                      resolved.string(), base.string()));
    }
    return full;
}

}  // namespace gatescope::core
