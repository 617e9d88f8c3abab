#include "core/batch/recipe_toml.h"

#include <sstream>

#include <fmt/format.h>

#ifdef GATESCOPE_HAS_TOML
#include <toml++/toml.h>
#endif

namespace gatescope::core {

#ifdef GATESCOPE_HAS_TOML
Result<nlohmann::json> readTomlAsJson(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return Error{ErrorKind::Io, "cannot open the recipe", file.string(), {}};
    try {
        const toml::table table = toml::parse_file(file.string());
        std::ostringstream json;
        json << toml::json_formatter{table};
        return nlohmann::json::parse(json.str());
    } catch (const toml::parse_error& e) {
        return Error{ErrorKind::Format,
                     fmt::format("not valid TOML at line {}, column {}: {}", e.source().begin.line,
                                 e.source().begin.column, e.description()),
                     file.string(),
                     {}};
    } catch (const nlohmann::json::exception& e) {
        return Error{
            ErrorKind::Internal, std::string("TOML to JSON: ") + e.what(), file.string(), {}};
    }
}
#else
Result<nlohmann::json> readTomlAsJson(const std::filesystem::path& file) {
    return Error{ErrorKind::Unsupported,
                 "this build reads JSON recipes only (TOML needs libtomlplusplus-dev at configure "
                 "time)",
                 file.string(),
                 {}};
}
#endif

}  // namespace gatescope::core
