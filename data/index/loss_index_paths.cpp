#include "data/index/loss_index_paths.h"

#include <algorithm>

namespace gatescope::data {

std::string escapeVdsName(const std::string& name) {
    std::string out;
    for (char c : name) {
        out += c;
        if (c == '%') out += '%';
    }
    return out;
}

bool unescapeVdsName(const std::string& name, std::string& out) {
    out.clear();
    for (size_t i = 0; i < name.size(); ++i) {
        out += name[i];
        if (name[i] != '%') continue;
        if (i + 1 >= name.size() || name[i + 1] != '%') return false;
        ++i;
    }
    return true;
}

Status checkIndexSource(const std::filesystem::path& folder, const std::filesystem::path& trace,
                        bool mustExist) {
    auto refuse = [&](const std::string& why) -> Status {
        return Error{
            ErrorKind::Usage, "the loss index cannot map this trace: " + why, trace.string(), {}};
    };
    if (trace.empty()) return refuse("empty path");
    if (trace.is_absolute() || trace.has_root_name() || trace.has_root_directory())
        return refuse("an absolute path (sources stay relative, inside the index's folder)");
    if (std::any_of(trace.begin(), trace.end(),
                    [](const auto& part) { return part == ".." || part == "."; }))
        return refuse("a path with '.' or '..' components (sources stay inside the folder)");
    if (!mustExist) return Ok{};
    std::error_code ec;
    const auto file = folder / trace;
    if (!std::filesystem::is_regular_file(file, ec)) return refuse("no such file in the folder");
    const auto root = std::filesystem::canonical(folder, ec);
    if (ec) return refuse("cannot resolve the folder: " + ec.message());
    const auto resolved = std::filesystem::canonical(file, ec);
    if (ec) return refuse("cannot resolve: " + ec.message());
    const auto relative = resolved.lexically_relative(root);
    if (relative.empty() || *relative.begin() == "..")
        return refuse("it resolves to " + resolved.string() + ", outside " + root.string());
    return Ok{};
}

}  // namespace gatescope::data
