#include "engine/nn/config_reader.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/nn/model_error.h"

namespace gatescope::core {

namespace {

std::string shown(const nlohmann::json& v) {
    auto text = v.dump();
    return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

}  // namespace

ConfigReader::ConfigReader(const nlohmann::json& config, std::string file, std::string prefix)
    : m_config(config), m_file(std::move(file)), m_prefix(std::move(prefix)) {
    if (!m_config.is_object()) {
        throwModelError(ErrorKind::Format, "expected a JSON object, got " + shown(m_config), m_file,
                        m_prefix.empty() ? std::string() : m_prefix.substr(0, m_prefix.size() - 1));
    }
}

const nlohmann::json* ConfigReader::find(const std::string& key) const {
    m_read.insert(key);
    auto it = m_config.find(key);
    if (it == m_config.end() || it->is_null()) return nullptr;
    return &*it;
}

void ConfigReader::fail(const std::string& key, const std::string& what) const {
    throwModelError(ErrorKind::Format, what, m_file, keyName(key));
}

std::optional<int> ConfigReader::optionalInteger(const std::string& key, int64_t min,
                                                 int64_t max) const {
    const auto* v = find(key);
    if (!v) return std::nullopt;
    int64_t value = 0;
    if (v->is_number_integer()) {
        if (v->is_number_unsigned() &&
            v->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
            fail(key, fmt::format("{} is out of range [{}, {}]", shown(*v), min, max));
        }
        value = v->get<int64_t>();
    } else if (v->is_number_float()) {
        const double d = v->get<double>();
        if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.0e18)
            fail(key, fmt::format("expected an integer, got {}", shown(*v)));
        value = static_cast<int64_t>(d);
    } else {
        fail(key, fmt::format("expected an integer, got {}", shown(*v)));
    }
    if (value < min || value > max)
        fail(key, fmt::format("{} is out of range [{}, {}]", value, min, max));
    return static_cast<int>(value);
}

int ConfigReader::integer(const std::string& key, int64_t min, int64_t max) const {
    auto value = optionalInteger(key, min, max);
    if (!value) {
        throwModelError(ErrorKind::Missing, "required key is missing or null", m_file,
                        keyName(key));
    }
    return *value;
}

int ConfigReader::integerOr(const std::string& key, int fallback, int64_t min, int64_t max) const {
    return optionalInteger(key, min, max).value_or(fallback);
}

std::optional<double> ConfigReader::optionalNumber(const std::string& key, double min, double max,
                                                   bool exclusiveMin) const {
    const auto* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, "expected a number, got " + shown(*v));
    const double value = v->get<double>();
    const bool below = exclusiveMin ? !(value > min) : !(value >= min);
    if (!std::isfinite(value) || below || value > max) {
        fail(key, fmt::format("{} is out of range {}{}, {}]", value, exclusiveMin ? "(" : "[", min,
                              max));
    }
    return value;
}

double ConfigReader::number(const std::string& key, double fallback, double min, double max,
                            bool exclusiveMin) const {
    return optionalNumber(key, min, max, exclusiveMin).value_or(fallback);
}

bool ConfigReader::boolean(const std::string& key, bool fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + shown(*v));
    return v->get<bool>();
}

std::string ConfigReader::string(const std::string& key, const std::string& fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key, "expected a string, got " + shown(*v));
    return v->get<std::string>();
}

bool ConfigReader::isNull(const std::string& key) const {
    return find(key) == nullptr;
}

void ConfigReader::accept(std::initializer_list<const char*> keys) const {
    for (const char* key : keys)
        m_read.insert(key);
}

ConfigReader ConfigReader::nestedModelConfig(const nlohmann::json& json, const std::string& file,
                                             const std::string& modelType,
                                             const std::string& fields) {
    auto it = json.find("model_config");
    if (it == json.end() || !it->is_object()) {
        throwModelError(ErrorKind::Missing,
                        fmt::format("{} checkpoints need a \"model_config\" object holding {} "
                                    "(see ../shared/fixtures/README.md)",
                                    modelType, fields),
                        file, "model_config");
    }
    ConfigReader top(json, file);
    top.accept({"model_config", "source"});
    top.acceptBookkeeping();
    top.rejectUnknownKeys();
    return ConfigReader(*it, file, "model_config.");
}

void ConfigReader::acceptBookkeeping() const {
    accept({"model_type", "architectures", "torch_dtype", "transformers_version", "_name_or_path",
            "auto_map", "use_cache", "output_attentions", "output_hidden_states", "return_dict",
            "initializer_range", "pad_token_id", "eos_token_id", "gatescope_note",
            "gatescope_tokenizer", "gatescope_train"});
}

void ConfigReader::rejectUnknownKeys() const {
    std::vector<std::string> unknown;
    for (const auto& [key, value] : m_config.items())
        if (!m_read.contains(key)) unknown.push_back(keyName(key));
    if (unknown.empty()) return;
    throwModelError(ErrorKind::Unsupported,
                    fmt::format("unknown config key{} {}: gatescope does not know what {} to the "
                                "model, and ignoring a key that changes the math gives wrong "
                                "numbers (docs/models.md lists the keys each architecture reads)",
                                unknown.size() > 1 ? "s" : "", fmt::join(unknown, ", "),
                                unknown.size() > 1 ? "they do" : "it does"),
                    m_file, unknown.front());
}

}  // namespace gatescope::core
