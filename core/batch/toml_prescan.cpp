#include "core/batch/toml_prescan.h"

#include <vector>

#include <fmt/format.h>

namespace gatescope::core {

namespace {

enum class Frame { Array, InlineTable };

class Scanner {
public:
    Scanner(std::string_view text, const std::string& file, const TomlLimits& limits)
        : m_text(text), m_file(file), m_limits(limits) {}

    Status run() {
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF") m_pos = 3;  // a UTF-8 byte order mark
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (m_bareValue) {
                if (auto st = bareValueChar(c); !st) return st;
                if (m_bareValue) {
                    ++m_pos;
                    continue;
                }
            }
            if (c == '#') {
                while (m_pos < m_text.size() && m_text[m_pos] != '\n')
                    ++m_pos;
                continue;
            }
            if (c == '"' || c == '\'') {
                if (auto st = skipString(c); !st) return st;
                m_keyStarted = true;
                continue;
            }
            if (isNonAscii(c)) return nonAscii();
            if (c == '\n') {
                ++m_line;
                if (m_stack.empty()) startKey();
                ++m_pos;
                continue;
            }
            const Status st = m_keyMode ? keyChar(c) : valueChar(c);
            if (!st) return st;
            ++m_pos;
        }
        return Ok{};
    }

private:
    Error error(std::string what) const {
        return Error{ErrorKind::Format, fmt::format("line {}: {}", m_line, what), m_file, {}};
    }

    static bool isNonAscii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

    // TOML allows non-ASCII characters only in strings and comments; toml++ 3.3 (Debian 12)
    // reaches __builtin_unreachable() in is_non_ascii_horizontal_whitespace() for many of them
    // where it looks for whitespace (found by fuzz/recipe_toml_fuzz), so they stop here.
    Error nonAscii() const {
        return error(
            "a non-ASCII character outside a string or comment (TOML allows them only "
            "inside strings and comments)");
    }

    // toml++ reads a bare value (a number, boolean, date, or a mistake) up to the next value
    // terminator before it decides what it is, quotes included: `a = 1x"é"` reaches the same
    // unreachable point through the "string". A bare value is ASCII in TOML, so it stops here.
    Status bareValueChar(char c) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' ||
            c == '#') {
            m_bareValue = false;
            return Ok{};
        }
        if (isNonAscii(c))
            return error(
                "a non-ASCII character in a value that is not a string (TOML allows them only "
                "inside strings and comments)");
        return Ok{};
    }

    void startKey() {
        m_keyMode = true;
        m_keyStarted = false;
        m_dots = 0;
        m_pendingParts = 0;
    }

    Status checkDepth(std::size_t depth) const {
        if (depth > m_limits.maxDepth)
            return error(fmt::format("nested deeper than the {} levels a recipe may use",
                                     m_limits.maxDepth));
        return Ok{};
    }

    Status countDot() {
        if (++m_dots + 1 > m_limits.maxKeyParts)
            return error(fmt::format("a dotted key or table header of more than {} parts",
                                     m_limits.maxKeyParts));
        return Ok{};
    }

    Status keyChar(char c) {
        if (c == '[' && m_stack.empty() && !m_keyStarted && m_dots == 0) return header();
        if (c == '.') return countDot();
        if (c == '=') {
            m_keyMode = false;
            m_pendingParts = m_dots + 1;
            m_dots = 0;
            m_keyStarted = false;
            return checkDepth(m_headerDepth + m_stackDepth + m_pendingParts);
        }
        if (c == '}') return pop(Frame::InlineTable);  // `{}`
        if (c != ' ' && c != '\t' && c != '\r') m_keyStarted = true;
        return Ok{};
    }

    Status valueChar(char c) {
        if (c == '[' || c == '{') {
            const std::size_t contribution = m_pendingParts + 1;
            m_pendingParts = 0;
            if (auto st = checkDepth(m_headerDepth + m_stackDepth + contribution); !st) return st;
            m_stack.push_back({c == '[' ? Frame::Array : Frame::InlineTable, contribution});
            m_stackDepth += contribution;
            if (c == '{') startKey();
            return Ok{};
        }
        if (c == ']') return pop(Frame::Array);
        if (c == '}') return pop(Frame::InlineTable);
        if (c == ',') {
            if (!m_stack.empty() && m_stack.back().first == Frame::InlineTable) startKey();
            return Ok{};
        }
        if (c != ' ' && c != '\t' && c != '\r') {
            m_pendingParts = 0;
            m_bareValue = true;
        }
        return Ok{};
    }

    Status pop(Frame frame) {
        if (!m_stack.empty() && m_stack.back().first == frame) {
            m_stackDepth -= m_stack.back().second;
            m_stack.pop_back();
        }
        m_keyMode = false;
        m_pendingParts = 0;
        return Ok{};
    }

    // "[a.b.c]" or "[[a.b]]" at the start of a line: its parts set the depth of what follows.
    Status header() {
        std::size_t brackets = 0;
        while (m_pos < m_text.size() && m_text[m_pos] == '[' && brackets < 2) {
            ++brackets;
            ++m_pos;
        }
        m_dots = 0;
        while (m_pos < m_text.size() && m_text[m_pos] != ']' && m_text[m_pos] != '\n') {
            const char c = m_text[m_pos];
            if (c == '"' || c == '\'') {
                if (auto st = skipString(c); !st) return st;
                continue;
            }
            if (isNonAscii(c)) return nonAscii();
            if (c == '.') {
                if (auto st = countDot(); !st) return st;
            }
            ++m_pos;
        }
        m_headerDepth = m_dots + 1 + (brackets - 1);
        m_dots = 0;
        if (auto st = checkDepth(m_headerDepth); !st) return st;
        // The closing brackets, if any; the position then stands on the last one read.
        while (m_pos + 1 < m_text.size() && m_text[m_pos] == ']' && m_text[m_pos + 1] == ']')
            ++m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '\n') --m_pos;  // the loop counts the line
        m_keyStarted = true;  // whatever follows on this line is not a new header
        return Ok{};
    }

    // Skips a basic, literal or multi-line string starting at m_pos, counting its lines. A
    // backslash of a basic string followed (after any whitespace and line breaks) by a non-ASCII
    // character is refused: toml++ tests that character for whitespace (the bug above).
    Status skipString(char quote) {
        const bool multi =
            m_text.substr(m_pos, 3) == std::string_view(quote == '"' ? "\"\"\"" : "'''");
        m_pos += multi ? 3 : 1;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\\' && quote == '"') {
                std::size_t next = m_pos + 1;
                while (next < m_text.size() && (m_text[next] == ' ' || m_text[next] == '\t' ||
                                                m_text[next] == '\r' || m_text[next] == '\n'))
                    ++next;
                if (next < m_text.size() && isNonAscii(m_text[next]))
                    return error(
                        "a non-ASCII character after a backslash in a string (write it "
                        "as \\uXXXX)");
                if (m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') ++m_line;
                m_pos += 2;
                continue;
            }
            if (c == '\n') {
                if (!multi) return Ok{};  // unterminated: the parser reports it
                ++m_line;
            }
            if (c == quote) {
                if (!multi) {
                    ++m_pos;
                    return Ok{};
                }
                if (m_text.substr(m_pos, 3) == std::string_view(quote == '"' ? "\"\"\"" : "'''")) {
                    m_pos += 3;
                    // Up to two more quotes belong to the string's content.
                    for (int k = 0; k < 2 && m_pos < m_text.size() && m_text[m_pos] == quote; ++k)
                        ++m_pos;
                    return Ok{};
                }
            }
            ++m_pos;
        }
        return Ok{};
    }

    std::string_view m_text;
    const std::string& m_file;
    const TomlLimits& m_limits;
    std::size_t m_pos = 0, m_line = 1;
    std::vector<std::pair<Frame, std::size_t>> m_stack;  ///< open brackets, depth each adds
    std::size_t m_stackDepth = 0, m_headerDepth = 0;
    bool m_keyMode = true, m_keyStarted = false;
    bool m_bareValue = false;  // inside a value that is not a string, array or inline table
    std::size_t m_dots = 0, m_pendingParts = 0;
};

}  // namespace

Status checkTomlNesting(std::string_view text, const std::string& file, const TomlLimits& limits) {
    return Scanner(text, file, limits).run();
}

}  // namespace gatescope::core
