// Private to core/models: typed, range-checked access to config.json values, with errors that name
// the file and the key, and a record of which keys were read so that a key nobody reads is an
// error instead of a silently ignored option (a key that changes the math and is ignored is how
// wrong numbers get in).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core {

/// Sizes read from a config (layers, heads, widths, vocabularies, windows) are at most this: far
/// above any real model, small enough that products of two fit in 64 bits and tensors allocate.
inline constexpr int64_t kMaxConfigSize = int64_t{1} << 24;

/// Not thread-safe (it records reads); use one per parse. Every accessor throws ModelError
/// (Format for a wrong type or an out-of-range value, Missing for an absent required key) naming
/// `file` and the key as "<prefix><key>", with the value and the allowed range.
class ConfigReader {
public:
    /// `config` must be a JSON object and outlive the reader. `prefix` is prepended to key names
    /// in errors ("model_config." for configs nested in that object).
    ConfigReader(const nlohmann::json& config, std::string file, std::string prefix = {});

    /// An integer in [min, max] (64-bit checked: 4294967300 is out of range, never cut to 4).
    int integer(const std::string& key, int64_t min, int64_t max) const;
    /// The same, or `fallback` when absent or null (the fallback is not range-checked).
    int integerOr(const std::string& key, int fallback, int64_t min, int64_t max) const;
    std::optional<int> optionalInteger(const std::string& key, int64_t min, int64_t max) const;
    /// Sizes (layers, heads, widths, vocabulary): integer(key, 1, kMaxConfigSize).
    int size(const std::string& key) const { return integer(key, 1, kMaxConfigSize); }
    int sizeOr(const std::string& key, int fallback) const {
        return integerOr(key, fallback, 1, kMaxConfigSize);
    }
    /// A finite number in [min, max]; `exclusiveMin` makes the lower bound open (eps > 0).
    double number(const std::string& key, double fallback, double min, double max,
                  bool exclusiveMin = false) const;
    std::optional<double> optionalNumber(const std::string& key, double min, double max,
                                         bool exclusiveMin = false) const;
    bool boolean(const std::string& key, bool fallback) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    bool isNull(const std::string& key) const;  ///< absent or null (marks the key as read)

    /// Marks keys that the official code reads but that cannot change what gatescope computes
    /// (training, initialisation, caching, Hugging Face bookkeeping). docs/models.md lists them.
    void accept(std::initializer_list<const char*> keys) const;
    /// accept() for what Hugging Face's save_pretrained writes into every config.json and no
    /// forward reads: model_type, architectures, torch_dtype, transformers_version, _name_or_path,
    /// auto_map, use_cache, output_attentions, output_hidden_states, return_dict,
    /// initializer_range, pad_token_id, eos_token_id; and gatescope's own gatescope_tokenizer and
    /// gatescope_train (read by the tokenizer loader and `train --resume`), and gatescope_note (the
    /// provenance line of random sample checkpoints).
    void acceptBookkeeping() const;
    /// Throws (Unsupported) naming the first key that no accessor or accept() has touched,
    /// with every such key listed, unless none.
    void rejectUnknownKeys() const;

    const std::string& file() const { return m_file; }
    std::string keyName(const std::string& key) const { return m_prefix + key; }
    [[noreturn]] void fail(const std::string& key, const std::string& what) const;

    /// The reader of a nanoGPT-style config (GatedFWA's nanochat, power's train/model.py): the
    /// fields sit in a "model_config" object, beside which the top level may hold only "source"
    /// (provenance text of converted state_dicts) and bookkeeping keys. Throws Missing, naming
    /// `fields` (what the object holds), when there is no such object, and Unsupported for any
    /// other top-level key. `json` must outlive the returned reader.
    static ConfigReader nestedModelConfig(const nlohmann::json& json, const std::string& file,
                                          const std::string& modelType, const std::string& fields);

private:
    const nlohmann::json* find(const std::string& key) const;
    const nlohmann::json& m_config;
    std::string m_file;
    std::string m_prefix;
    mutable std::set<std::string> m_read;
};

}  // namespace gatescope::core
