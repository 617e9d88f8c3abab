#include "core/nn/config_reader.h"

#include "core/nn/model_error.h"

namespace gatescope::core {

const nlohmann::json* ConfigReader::find(const std::string& key) const {
    auto it = m_config.find(key);
    if (it == m_config.end() || it->is_null()) return nullptr;
    return &*it;
}

void ConfigReader::fail(const std::string& key, const std::string& what) const {
    throwModelError(ErrorKind::Format, what, m_file, key);
}

int ConfigReader::integer(const std::string& key) const {
    const auto* v = find(key);
    if (!v) throwModelError(ErrorKind::Missing, "required key is missing or null", m_file, key);
    if (!v->is_number_integer() && !(v->is_number() && v->get<double>() == double(v->get<long>())))
        fail(key, "expected an integer, got " + v->dump());
    return v->get<int>();
}

int ConfigReader::integer(const std::string& key, int fallback) const {
    return find(key) ? integer(key) : fallback;
}

double ConfigReader::number(const std::string& key, double fallback) const {
    return optionalNumber(key).value_or(fallback);
}

std::optional<double> ConfigReader::optionalNumber(const std::string& key) const {
    const auto* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, "expected a number, got " + v->dump());
    return v->get<double>();
}

bool ConfigReader::boolean(const std::string& key, bool fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
    return v->get<bool>();
}

std::string ConfigReader::string(const std::string& key, const std::string& fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key, "expected a string, got " + v->dump());
    return v->get<std::string>();
}

bool ConfigReader::isNull(const std::string& key) const {
    return find(key) == nullptr;
}

}  // namespace gatescope::core
