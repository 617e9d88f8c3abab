#include "data/trace/trace_schema.h"

#include <fmt/format.h>

namespace gatescope::data {

const char* toString(Pool pool) {
    return pool == Pool::Max ? "max" : "mean";
}

std::optional<Pool> parsePool(std::string_view name) {
    if (name == "max") return Pool::Max;
    if (name == "mean") return Pool::Mean;
    return std::nullopt;
}

namespace schema {

std::string layerName(int layer) {
    return fmt::format("{:03d}", layer);
}

std::string layerPath(int layer) {
    return "/layers/" + layerName(layer);
}

std::string gatesPath(int layer) {
    return layerPath(layer) + "/gates/log_retention";
}

std::string factorPath(int layer, std::string_view name) {
    return fmt::format("{}/factors/{}", layerPath(layer), name);
}

std::string pyramidPath(int layer, std::string_view map, Pool pool, int level) {
    return fmt::format("{}/pyramid/{}/{}/{}", layerPath(layer), map, toString(pool), level);
}

bool isValidName(std::string_view name) {
    if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
    for (char c : name) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

bool keepsFloat32(std::string_view name) {
    return name == "lse" || name.starts_with("log_");
}

}  // namespace schema
}  // namespace gatescope::data
