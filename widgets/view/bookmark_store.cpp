#include "widgets/view/bookmark_store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "data/common/bounded_json.h"

namespace gatescope::widgets {

namespace {
constexpr size_t kMaxBookmarks = 1000;
}

std::string bookmarksToJson(const std::vector<Bookmark>& bookmarks) {
    nlohmann::json out = nlohmann::json::array();
    for (const Bookmark& b : bookmarks)
        out.push_back({{"name", b.name}, {"token", b.token}, {"layer", b.layer}, {"head", b.head}});
    return out.dump();
}

std::vector<Bookmark> bookmarksFromJson(std::string_view text, int64_t n,
                                        const std::function<bool(int, int)>& exists) {
    std::vector<Bookmark> out;
    auto parsed = data::parseBoundedJson(text, "bookmarks");
    if (!parsed || !parsed->is_array()) return out;
    for (const auto& item : *parsed) {
        if (out.size() == kMaxBookmarks) break;
        if (!item.is_object()) continue;
        const auto name = item.find("name"), token = item.find("token"), layer = item.find("layer"),
                   head = item.find("head");
        if (name == item.end() || !name->is_string() || token == item.end() ||
            !token->is_number_integer() || layer == item.end() || !layer->is_number_integer() ||
            head == item.end() || !head->is_number_integer())
            continue;
        const int64_t t = token->get<int64_t>();
        const int64_t l = layer->get<int64_t>(), h = head->get<int64_t>();
        if (t < 0 || t >= n || l < 0 || l > 1 << 20 || h < 0 || h > 1 << 20) continue;
        if (!exists(static_cast<int>(l), static_cast<int>(h))) continue;
        out.push_back({name->get<std::string>(), t, static_cast<int>(l), static_cast<int>(h)});
    }
    return out;
}

std::string bookmarksKey(std::string_view absolutePath) {
    // QSettings keys treat '/' and '\' as group separators: a hash keeps one flat key per trace.
    return fmt::format("bookmarks/{:016x}", std::hash<std::string_view>{}(absolutePath));
}

}  // namespace gatescope::widgets
