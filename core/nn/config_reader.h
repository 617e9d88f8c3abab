// Private to core/models: typed access to config.json values with errors that name the file and
// key.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core {

class ConfigReader {
public:
    /// `config` must outlive the reader; `file` is used in error messages.
    ConfigReader(const nlohmann::json& config, std::string file)
        : m_config(config), m_file(std::move(file)) {}

    int integer(const std::string& key) const;
    int integer(const std::string& key, int fallback) const;  ///< also when the value is null
    double number(const std::string& key, double fallback) const;
    std::optional<double> optionalNumber(const std::string& key) const;
    bool boolean(const std::string& key, bool fallback) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    bool isNull(const std::string& key) const;
    const std::string& file() const { return m_file; }

private:
    const nlohmann::json* find(const std::string& key) const;
    [[noreturn]] void fail(const std::string& key, const std::string& what) const;
    const nlohmann::json& m_config;
    std::string m_file;
};

}  // namespace gatescope::core
