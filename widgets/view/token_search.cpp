#include "widgets/view/token_search.h"

#include <algorithm>
#include <charconv>

namespace gatescope::widgets {

std::vector<int64_t> findTokens(const data::TokenTable& tokens, std::string_view needle,
                                size_t limit) {
    std::vector<int64_t> out;
    if (needle.empty()) return out;
    for (size_t i = 0; i < tokens.text.size() && out.size() < limit; ++i) {
        if (tokens.text[i].find(needle) != std::string::npos)
            out.push_back(static_cast<int64_t>(i));
    }
    return out;
}

std::vector<int64_t> findString(const data::TokenTable& tokens, std::string_view needle,
                                size_t limit) {
    std::vector<int64_t> out;
    if (needle.empty() || tokens.size() == 0) return out;
    std::string text;
    std::vector<int64_t> starts;  // byte start of each token in `text`
    if (!tokens.sourceText.empty()) {
        text = tokens.sourceText;
        for (const auto& range : tokens.byteOffsets)
            starts.push_back(range[0]);
    } else {
        for (const auto& t : tokens.text) {
            starts.push_back(static_cast<int64_t>(text.size()));
            text += t;
        }
    }
    for (size_t at = text.find(needle); at != std::string::npos && out.size() < limit;
         at = text.find(needle, at + 1)) {
        // The last token starting at or before the match.
        auto it = std::upper_bound(starts.begin(), starts.end(), static_cast<int64_t>(at));
        if (it == starts.begin()) continue;
        const int64_t token = static_cast<int64_t>(it - starts.begin()) - 1;
        if (out.empty() || out.back() != token) out.push_back(token);
    }
    return out;
}

std::optional<int64_t> nextMatch(const std::vector<int64_t>& matches, int64_t from) {
    if (matches.empty()) return std::nullopt;
    auto it = std::upper_bound(matches.begin(), matches.end(), from);
    return it == matches.end() ? matches.front() : *it;
}

std::optional<int64_t> parsePosition(std::string_view text, int64_t n) {
    std::string digits;
    bool percent = false;
    for (char ch : text) {
        if (ch == ',' || ch == '_' || ch == ' ') continue;
        if (ch == '%') {
            percent = true;
            continue;
        }
        if (percent) return std::nullopt;  // nothing may follow '%'
        digits += ch;
    }
    if (digits.empty()) return std::nullopt;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    if (percent) {
        if (value < 0 || value > 100) return std::nullopt;
        value = std::min(n - 1, value * n / 100);
    }
    if (value < 0 || value >= n) return std::nullopt;
    return value;
}

namespace {
/// 12345 -> "12,345".
std::string grouped(int64_t v) {
    std::string digits = std::to_string(v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}
}  // namespace

std::string positionHint(std::string_view text, int64_t n) {
    if (n <= 0) return "This trace has no tokens.";
    return "Not a position: " + std::string(text) + ". This trace has positions 0 to " +
           grouped(n - 1) + " (type 1234, 1,234 or 50%).";
}

}  // namespace gatescope::widgets
