// readLossIndex: the rows of an index and a check of every virtual-dataset mapping against them.
#include <fmt/format.h>

#include "data/common/bounded_json.h"
#include "data/h5/attribute.h"
#include "data/h5/file.h"
#include "data/h5/virtual_dataset.h"
#include "data/index/loss_index.h"
#include "data/index/loss_index_paths.h"
#include "data/trace/trace_schema.h"

namespace gatescope::data {
namespace {

constexpr size_t kMaxRunsBytes = size_t{64} << 20;

Result<std::vector<LossIndexEntry>> readRuns(const h5::Group& root, const std::string& shown) {
    auto text = h5::readStringAttribute(root, "runs", kMaxRunsBytes);
    if (!text) return text.error();
    auto json = parseBoundedJson(*text, shown, "/@runs");
    if (!json) return json.error();
    std::vector<LossIndexEntry> runs;
    if (!json->is_array())
        return Error{ErrorKind::Format, "runs is not a JSON array", shown, "/@runs"};
    for (const auto& r : *json) {
        if (!r.is_object() || !r.contains("run") || !r.contains("trace") || !r["run"].is_string() ||
            !r["trace"].is_string())
            return Error{ErrorKind::Format, "runs holds an entry without run and trace strings",
                         shown, "/@runs"};
        runs.push_back({r["run"].get<std::string>(), r["trace"].get<std::string>(), 0});
    }
    return runs;
}

Status readLengths(const h5::Group& root, std::vector<LossIndexEntry>& runs) {
    auto dataset = h5::Dataset::open(root, "n_tokens");
    if (!dataset) return dataset.error();
    auto dims = dataset->dims();
    if (!dims) return dims.error();
    const size_t expected = std::max<size_t>(runs.size(), 1);
    if (dims->size() != 1 || (*dims)[0] != expected)
        return Error{ErrorKind::Format, fmt::format("expected {} lengths", expected),
                     dataset->where().file, dataset->where().object};
    std::vector<int64_t> lengths(expected);
    if (auto rc = dataset->read(h5::Type::nativeInt64(), lengths.data()); !rc) return rc;
    for (size_t r = 0; r < runs.size(); ++r)
        runs[r].nTokens = lengths[r];
    return Ok{};
}

// Mapping i must read all of run `entry` (row `row`) from its /per_token/loss.
Status checkMapping(const h5::VirtualMapping& mapping, size_t i, hsize_t row,
                    const LossIndexEntry& entry, const std::string& file,
                    const std::string& object) {
    auto bad = [&](const std::string& why) -> Status {
        return Error{ErrorKind::Format, fmt::format("mapping {}: {}", i, why), file, object};
    };
    const std::string& stored = mapping.sourceFile;
    std::string source;
    if (!unescapeVdsName(stored, source)) return bad("source '" + stored + "' is a name pattern");
    if (auto inside = checkIndexSource(".", source, false); !inside)
        return bad("source '" + source + "': " + inside.error().message);
    if (source != entry.trace.string())
        return bad(fmt::format("reads '{}' where runs names '{}'", source, entry.trace.string()));
    if (mapping.sourceDataset != schema::kLoss)
        return bad(fmt::format("reads '{}' instead of {}", mapping.sourceDataset, schema::kLoss));
    const h5::Dims& first = mapping.first;
    const h5::Dims& last = mapping.last;
    if (mapping.extent.size() != 2 || first[0] != row || last[0] != row || first[1] != 0 ||
        last[1] + 1 != static_cast<hsize_t>(entry.nTokens))
        return bad(fmt::format("does not fill row {} with {} values", row, entry.nTokens));
    return Ok{};
}

}  // namespace

Result<std::vector<LossIndexEntry>> readLossIndex(const std::filesystem::path& path) {
    const std::string shown = path.string();
    auto file = h5::File::openReadOnly(shown, 0);
    if (!file) return file.error();
    auto root = h5::Group::root(*file);
    if (!root) return root.error();
    auto runs = readRuns(*root, shown);
    if (!runs) return runs.error();
    if (auto rc = readLengths(*root, *runs); !rc) return rc.error();
    const std::string object = "/per_token_loss";
    auto mappings = h5::readVirtualMappings(*root, object.substr(1));
    if (!mappings) return mappings.error();
    size_t mapping = 0;
    for (size_t row = 0; row < runs->size(); ++row) {
        const LossIndexEntry& entry = (*runs)[row];
        if (entry.nTokens < 0)
            return Error{ErrorKind::Format, "negative length", shown, "/n_tokens"};
        if (entry.nTokens == 0) continue;
        if (mapping >= mappings->size())
            return Error{ErrorKind::Format,
                         fmt::format("row {} ({}) has no mapping", row, entry.trace.string()),
                         shown, object};
        auto rc = checkMapping((*mappings)[mapping], mapping, row, entry, shown, object);
        if (!rc) return rc.error();
        ++mapping;
    }
    if (mapping != mappings->size())
        return Error{ErrorKind::Format,
                     fmt::format("{} mappings for {} runs with tokens", mappings->size(), mapping),
                     shown, object};
    return std::move(*runs);
}

}  // namespace gatescope::data
