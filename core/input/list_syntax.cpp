#include "core/input/list_syntax.h"

#include <charconv>

#include <fmt/core.h>

namespace gatescope::core {

namespace {

std::optional<int64_t> parseInt(std::string_view s) {
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
    return value;
}

Error usage(const std::string& option, const std::string& text, const char* expected) {
    return Error{
        ErrorKind::Usage, fmt::format("{} '{}': expected {}", option, text, expected), {}, {}};
}

}  // namespace

Result<std::vector<int>> parseIndexList(const std::string& text, const std::string& option) {
    std::vector<int> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto comma = text.find(',', pos);
        const std::string_view item(text.data() + pos,
                                    (comma == std::string::npos ? text.size() : comma) - pos);
        const auto dash = item.find('-');
        auto first = parseInt(item.substr(0, dash));
        auto last = dash == std::string::npos ? first : parseInt(item.substr(dash + 1));
        if (!first || !last || *first < 0 || *last < *first) {
            return usage(option, text, "indices like 0,2,5-7");
        }
        // Checked before expanding: "0-99999999999" would otherwise allocate 400 GB.
        if (*last > kMaxListIndex) {
            return Error{ErrorKind::Usage,
                         fmt::format("{} '{}': index {} is larger than any model has (at most {})",
                                     option, text, *last, kMaxListIndex),
                         {},
                         {}};
        }
        if (static_cast<int64_t>(out.size()) + (*last - *first + 1) > kMaxListIndex + 1) {
            return Error{
                ErrorKind::Usage,
                fmt::format("{} '{}': more than {} indices", option, text, kMaxListIndex + 1),
                {},
                {}};
        }
        for (int64_t i = *first; i <= *last; ++i)
            out.push_back(static_cast<int>(i));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

Result<LayerHeadLists> parseLayersAndHeads(const std::string& layers, const std::string& heads) {
    auto l = parseIndexList(layers, "--layers");
    if (!l) return l.error();
    auto h = parseIndexList(heads, "--heads");
    if (!h) return h.error();
    return LayerHeadLists{std::move(*l), std::move(*h)};
}

Result<TokenRange> parseRange(const std::string& text, const std::string& option) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) return usage(option, text, "a range like 100:2000");
    TokenRange range;
    const std::string_view begin(text.data(), colon),
        end(text.data() + colon + 1, text.size() - colon - 1);
    if (!begin.empty()) {
        auto b = parseInt(begin);
        if (!b || *b < 0) return usage(option, text, "a range like 100:2000");
        range.begin = *b;
    }
    if (!end.empty()) {
        auto e = parseInt(end);
        if (!e || *e <= range.begin)
            return usage(option, text, "a range like 100:2000 (end > start)");
        range.end = *e;
    }
    return range;
}

}  // namespace gatescope::core
