// TraceReader: dataset validation, and the root-level tables (manifest, tokens, per-token results).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/common/bounded_json.h"
#include "data/h5/file.h"
#include "data/h5/strings.h"
#include "data/trace/trace_limits.h"
#include "data/trace/trace_reader.h"

namespace gatescope::data {
namespace {

std::string describeType(const h5::Type& type) {
    switch (type.typeClass()) {
        case H5T_FLOAT:
            return fmt::format("float{}", type.size() * 8);
        case H5T_INTEGER:
            return fmt::format("int{}", type.size() * 8);
        case H5T_STRING:
            return "string";
        default:
            return "another datatype";
    }
}

std::string describeDims(const std::vector<int64_t>& dims) {
    std::vector<std::string> parts;
    for (int64_t d : dims)
        parts.push_back(d < 0 ? "*" : std::to_string(d));
    return fmt::format("[{}]", fmt::join(parts, ", "));
}

}  // namespace

Result<std::shared_ptr<h5::Dataset>> TraceReader::dataset(const std::string& path,
                                                          const std::vector<int64_t>& dims,
                                                          Element element, bool allowF16) const {
    auto lock = h5::lockLibrary();
    if (auto it = m_datasets.find(path); it != m_datasets.end()) return it->second;
    const H5T_class_t cls = element == Element::Float     ? H5T_FLOAT
                            : element == Element::Integer ? H5T_INTEGER
                                                          : H5T_STRING;
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    auto opened = h5::Dataset::open(*root, path.substr(1));
    if (!opened) return opened.error();
    auto found = opened->dims();
    if (!found) return found.error();
    auto type = opened->type();
    if (!type) return type.error();
    std::vector<int64_t> actual(found->begin(), found->end());
    bool shapeOk = actual.size() == dims.size();
    for (size_t i = 0; shapeOk && i < dims.size(); ++i)
        shapeOk = dims[i] < 0 || dims[i] == actual[i];
    bool typeOk = type->typeClass() == cls &&
                  (cls != H5T_FLOAT || type->size() == 4 || (allowF16 && type->size() == 2)) &&
                  (cls != H5T_INTEGER || type->size() <= 8);
    if (!shapeOk || !typeOk) {
        std::string expected = cls == H5T_FLOAT ? (allowF16 ? "float32 or float16" : "float32")
                                                : (cls == H5T_INTEGER ? "integer" : "string");
        return error(ErrorKind::Shape,
                     fmt::format("wrong {}: expected {} {}, found {} {} (N = {})",
                                 shapeOk ? "dtype" : "shape", expected, describeDims(dims),
                                 describeType(*type), describeDims(actual), m_summary.nTokens),
                     path);
    }
    if (auto rc = checkStorage(*opened, path); !rc) return rc.error();
    auto shared = std::make_shared<h5::Dataset>(std::move(*opened));
    m_datasets.emplace(path, shared);
    return shared;
}

Result<nlohmann::json> TraceReader::manifest() const {
    auto lock = h5::lockLibrary();
    auto ds = dataset(schema::kManifest, {}, Element::String);
    if (!ds) return ds.error();
    auto text = h5::readScalarString(**ds);
    if (!text) return text.error();
    auto json = parseBoundedJson(*text, m_summary.path, schema::kManifest);
    if (!json) return json.error();
    if (!json->is_object())
        return error(ErrorKind::Format, "the manifest is not a JSON object", schema::kManifest);
    return std::move(*json);
}

Result<TokenTable> TraceReader::tokens() const {
    auto lock = h5::lockLibrary();
    int64_t n = m_summary.nTokens;
    TokenTable table;
    auto ids = dataset(schema::kTokenIds, {n}, Element::Integer);
    if (!ids) return ids.error();
    table.ids.resize(static_cast<size_t>(n));
    if (auto rc = (*ids)->read(h5::Type::nativeInt32(), table.ids.data()); !rc) return rc.error();
    auto text = dataset(schema::kTokenText, {n}, Element::String);
    if (!text) return text.error();
    auto strings = h5::readStrings(**text);
    if (!strings) return strings.error();
    table.text = std::move(*strings);
    auto offsets = dataset(schema::kTokenOffsets, {n, 2}, Element::Integer);
    if (!offsets) return offsets.error();
    table.byteOffsets.resize(static_cast<size_t>(n));
    auto rc = (*offsets)->read(h5::Type::nativeInt64(), table.byteOffsets.data());
    if (!rc) return rc.error();
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    auto hasBytes = h5::exists(*root, std::string(schema::kSourceBytes).substr(1));
    if (!hasBytes) return hasBytes.error();
    if (*hasBytes || m_summary.formatVersion >= 2) {  // v2: the exact bytes, NUL included
        auto bytes = sourceBytes();
        if (!bytes) return bytes.error();
        table.sourceText = std::move(*bytes);
        return table;
    }
    auto source = dataset(schema::kSourceText, {}, Element::String);
    if (!source) return source.error();
    auto sourceText = h5::readScalarString(**source);
    if (!sourceText) return sourceText.error();
    table.sourceText = std::move(*sourceText);
    return table;
}

Result<std::string> TraceReader::sourceBytes() const {
    auto lock = h5::lockLibrary();
    auto ds = dataset(schema::kSourceBytes, {-1}, Element::Integer);
    if (!ds) return ds.error();
    auto type = (*ds)->type();
    if (!type) return type.error();
    auto dims = (*ds)->dims();
    if (!dims) return dims.error();
    if (type->size() != 1 || (*dims)[0] > static_cast<hsize_t>(kMaxSourceBytes))
        return error(ErrorKind::Shape,
                     fmt::format("wrong dtype or size: expected uint8 [B] with B <= {}, found "
                                 "int{} [{}]",
                                 kMaxSourceBytes, type->size() * 8, (*dims)[0]),
                     schema::kSourceBytes);
    std::string bytes(static_cast<size_t>((*dims)[0]), '\0');
    if (bytes.empty()) return bytes;
    if (auto rc = (*ds)->read(h5::Type::nativeUint8(), bytes.data()); !rc) return rc.error();
    return bytes;
}

Result<PerTokenResults> TraceReader::perToken() const {
    auto lock = h5::lockLibrary();
    int64_t n = m_summary.nTokens;
    PerTokenResults results;
    results.loss.resize(static_cast<size_t>(n));
    results.targetRank.resize(static_cast<size_t>(n));
    results.entropy.resize(static_cast<size_t>(n));
    auto loss = dataset(schema::kLoss, {n}, Element::Float);
    if (!loss) return loss.error();
    if (auto rc = (*loss)->read(h5::Type::nativeFloat(), results.loss.data()); !rc)
        return rc.error();
    auto rank = dataset(schema::kTargetRank, {n}, Element::Integer);
    if (!rank) return rank.error();
    if (auto rc = (*rank)->read(h5::Type::nativeInt32(), results.targetRank.data()); !rc)
        return rc.error();
    auto entropy = dataset(schema::kEntropy, {n}, Element::Float);
    if (!entropy) return entropy.error();
    if (auto rc = (*entropy)->read(h5::Type::nativeFloat(), results.entropy.data()); !rc)
        return rc.error();
    if (auto rc = readTopPredictions(results); !rc) return rc.error();
    return results;
}

Status TraceReader::readTopPredictions(PerTokenResults& results) const {
    auto lock = h5::lockLibrary();
    const int64_t n = m_summary.nTokens;
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    auto present = h5::exists(*root, std::string(schema::kTopIds).substr(1));
    if (!present) return present.error();
    if (!*present) return Ok{};  // written before top predictions were stored
    auto ids = dataset(schema::kTopIds, {n, -1}, Element::Integer);
    if (!ids) return ids.error();
    auto dims = (*ids)->dims();
    if (!dims) return dims.error();
    const int64_t k = static_cast<int64_t>((*dims)[1]);
    if (k < 1 || k > schema::kMaxTopPredictions)
        return Error{ErrorKind::Format,
                     fmt::format("{} predictions per token; gatescope reads 1 to {}", k,
                                 schema::kMaxTopPredictions),
                     m_summary.path, schema::kTopIds};
    results.topK = static_cast<int>(k);
    results.topIds.resize(static_cast<size_t>(n * k));
    if (auto rc = (*ids)->read(h5::Type::nativeInt32(), results.topIds.data()); !rc)
        return rc.error();
    auto logp = dataset(schema::kTopLogProbs, {n, k}, Element::Float);
    if (!logp) return logp.error();
    results.topLogProbs.resize(static_cast<size_t>(n * k));
    if (auto rc = (*logp)->read(h5::Type::nativeFloat(), results.topLogProbs.data()); !rc)
        return rc.error();
    auto hasVocab = h5::exists(*root, std::string(schema::kVocabIds).substr(1));
    if (!hasVocab) return hasVocab.error();
    if (!*hasVocab) return Ok{};
    auto vocab = dataset(schema::kVocabIds, {-1}, Element::Integer);
    if (!vocab) return vocab.error();
    auto vocabDims = (*vocab)->dims();
    if (!vocabDims) return vocabDims.error();
    const int64_t m = static_cast<int64_t>((*vocabDims)[0]);
    if (m > n * k)
        return Error{ErrorKind::Format,
                     fmt::format("{} vocabulary entries for {} predictions", m, n * k),
                     m_summary.path, schema::kVocabIds};
    results.vocabIds.resize(static_cast<size_t>(m));
    if (auto rc = (*vocab)->read(h5::Type::nativeInt32(), results.vocabIds.data()); !rc)
        return rc.error();
    if (!std::is_sorted(results.vocabIds.begin(), results.vocabIds.end()))
        return Error{ErrorKind::Format, "vocabulary ids are not ascending", m_summary.path,
                     schema::kVocabIds};
    auto text = dataset(schema::kVocabText, {m}, Element::String);
    if (!text) return text.error();
    auto strings = h5::readStrings(**text);
    if (!strings) return strings.error();
    results.vocabText = std::move(*strings);
    return Ok{};
}

}  // namespace gatescope::data
