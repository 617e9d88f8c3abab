#include "core/tokenizer/text_file.h"

#include "data/common/bounded_json.h"

namespace gatescope::core {

Result<std::string> readWholeFile(const std::filesystem::path& path, uint64_t maxBytes) {
    return data::readRegularFile(path, maxBytes);
}

Result<nlohmann::json> readJsonFile(const std::filesystem::path& path) {
    Result<std::string> text = readWholeFile(path, data::input_limits::kTokenizerFile);
    if (!text) return text.error();
    return data::parseBoundedJson(*text, path.string());
}

}  // namespace gatescope::core
