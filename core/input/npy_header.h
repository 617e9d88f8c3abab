// The header dict of a .npy file, parsed as data: no eval, no pickle (internal to core/input).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gatescope::core {

/// A value of the header's Python dict literal: a string, a bool, or a tuple of integers.
struct NpyValue {
    enum class Type { String, Bool, Tuple } type = Type::String;
    std::string text;
    bool flag = false;
    std::vector<uint64_t> items;
};

/// Parses "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }" into key -> value. False with
/// `why` set when the text is not such a literal (a list descr is reported as a structured dtype).
bool parseNpyHeaderDict(std::string_view text, std::map<std::string, NpyValue>& out,
                        std::string& why);

}  // namespace gatescope::core
