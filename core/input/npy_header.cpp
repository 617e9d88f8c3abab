#include "core/input/npy_header.h"

#include <limits>

namespace gatescope::core {
namespace {

// Recursive-descent parser for the one dict literal np.save writes. No eval, no pickle.
class HeaderParser {
public:
    explicit HeaderParser(std::string_view s) : m_s(s) {}

    bool parse(std::map<std::string, NpyValue>& out, std::string& why) {
        skipSpace();
        if (!eat('{')) return fail(why, "header does not start with '{'");
        while (true) {
            skipSpace();
            if (eat('}')) return true;
            std::string key;
            if (!parseString(key)) return fail(why, "expected a quoted key");
            skipSpace();
            if (!eat(':')) return fail(why, "expected ':' after key '" + key + "'");
            skipSpace();
            NpyValue value;
            if (!parseValue(value, why)) return false;
            out[key] = std::move(value);
            skipSpace();
            if (eat(',')) continue;
            if (eat('}')) return true;
            return fail(why, "expected ',' or '}'");
        }
    }

private:
    static bool fail(std::string& why, std::string message) {
        why = std::move(message);
        return false;
    }
    void skipSpace() {
        while (m_pos < m_s.size() && (m_s[m_pos] == ' ' || m_s[m_pos] == '\n'))
            ++m_pos;
    }
    bool eat(char c) {
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool eatWord(std::string_view word) {
        if (m_s.substr(m_pos, word.size()) != word) return false;
        m_pos += word.size();
        return true;
    }
    bool parseString(std::string& out) {
        if (m_pos >= m_s.size() || (m_s[m_pos] != '\'' && m_s[m_pos] != '"')) return false;
        const char quote = m_s[m_pos++];
        const std::size_t close = m_s.find(quote, m_pos);
        if (close == std::string_view::npos) return false;
        out = std::string(m_s.substr(m_pos, close - m_pos));
        m_pos = close + 1;
        return true;
    }
    bool parseValue(NpyValue& value, std::string& why) {
        if (m_pos < m_s.size() && (m_s[m_pos] == '\'' || m_s[m_pos] == '"')) {
            value.type = NpyValue::Type::String;
            return parseString(value.text) || fail(why, "unterminated string");
        }
        if (eatWord("True")) {
            value.type = NpyValue::Type::Bool;
            value.flag = true;
            return true;
        }
        if (eatWord("False")) {
            value.type = NpyValue::Type::Bool;
            return true;
        }
        if (eat('(')) {
            value.type = NpyValue::Type::Tuple;
            while (true) {
                skipSpace();
                if (eat(')')) return true;
                uint64_t n = 0;
                const std::size_t start = m_pos;
                while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9') {
                    if (n > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
                        return fail(why, "shape value too large");
                    }
                    n = n * 10 + static_cast<uint64_t>(m_s[m_pos++] - '0');
                }
                if (m_pos == start) return fail(why, "shape holds a value that is not a size");
                value.items.push_back(n);
                skipSpace();
                if (eat(',')) continue;
                if (eat(')')) return true;
                return fail(why, "malformed shape tuple");
            }
        }
        if (m_pos < m_s.size() && m_s[m_pos] == '[') {
            return fail(why, "structured dtype (a list descr) is not a token id array");
        }
        return fail(why, "unexpected value in header");
    }

    std::string_view m_s;
    std::size_t m_pos = 0;
};

}  // namespace

bool parseNpyHeaderDict(std::string_view text, std::map<std::string, NpyValue>& out,
                        std::string& why) {
    return HeaderParser(text).parse(out, why);
}

}  // namespace gatescope::core
