#include "core/batch/recipe_toml.h"

#include <sstream>

#include <fmt/format.h>

#include "core/batch/toml_prescan.h"
#include "data/common/bounded_json.h"

#ifdef GATESCOPE_HAS_TOML
#include <toml++/toml.h>
#endif

namespace gatescope::core {

#ifdef GATESCOPE_HAS_TOML
Result<nlohmann::json> parseTomlAsJson(std::string_view text, const std::filesystem::path& file) {
    if (auto st = checkTomlNesting(text, file.string()); !st) return st.error();
    std::string json;
    try {
        const toml::table table = toml::parse(text, file.string());
        std::ostringstream out;
        out << toml::json_formatter{table};
        json = out.str();
    } catch (const toml::parse_error& e) {
        return Error{ErrorKind::Format,
                     fmt::format("not valid TOML at line {}, column {}: {}", e.source().begin.line,
                                 e.source().begin.column, e.description()),
                     file.string(),
                     {}};
    } catch (const std::exception& e) {
        return Error{ErrorKind::Format,
                     fmt::format("cannot read the TOML: {}", e.what()),
                     file.string(),
                     {}};
    }
    return data::parseBoundedJson(json, file.string());
}
#else
Result<nlohmann::json> parseTomlAsJson(std::string_view, const std::filesystem::path& file) {
    return Error{ErrorKind::Unsupported,
                 "this build reads JSON recipes only (TOML needs libtomlplusplus-dev at configure "
                 "time)",
                 file.string(),
                 {}};
}
#endif

}  // namespace gatescope::core
