// readLossIndex: the rows of an index and a check of every virtual-dataset mapping against them.
#include <fmt/format.h>

#include "data/common/bounded_json.h"
#include "data/h5/access.h"
#include "data/h5/attribute.h"
#include "data/h5/dataset.h"
#include "data/h5/file.h"
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

// Mapping i of `dcpl` must read all of run `entry` (row `row`) from its /per_token/loss.
Status checkMapping(hid_t dcpl, size_t i, hsize_t row, const LossIndexEntry& entry,
                    const h5::Location& where) {
    auto bad = [&](const std::string& why) -> Status {
        return Error{ErrorKind::Format, fmt::format("mapping {}: {}", i, why), where.file,
                     where.object};
    };
    const ssize_t nameLength = H5Pget_virtual_filename(dcpl, i, nullptr, 0);
    if (nameLength < 0 || nameLength > 4096) return bad("unreadable source file name");
    std::string stored(static_cast<size_t>(nameLength) + 1, '\0');
    H5Pget_virtual_filename(dcpl, i, stored.data(), stored.size());
    stored.resize(static_cast<size_t>(nameLength));
    std::string source;
    if (!unescapeVdsName(stored, source)) return bad("source '" + stored + "' is a name pattern");
    if (auto inside = checkIndexSource(".", source, false); !inside)
        return bad("source '" + source + "': " + inside.error().message);
    if (source != entry.trace.string())
        return bad(fmt::format("reads '{}' where runs names '{}'", source, entry.trace.string()));
    char dataset[64] = {0};
    const ssize_t dsLength = H5Pget_virtual_dsetname(dcpl, i, dataset, sizeof dataset);
    if (dsLength < 0 || std::string(dataset) != schema::kLoss)
        return bad(fmt::format("reads '{}' instead of {}", dataset, schema::kLoss));
    h5::Handle space(H5Pget_virtual_vspace(dcpl, i), where);
    hsize_t start[2] = {0, 0}, end[2] = {0, 0};
    if (!space.valid() || H5Sget_simple_extent_ndims(space.id()) != 2 ||
        H5Sget_select_bounds(space.id(), start, end) < 0 || start[0] != row || end[0] != row ||
        start[1] != 0 || end[1] + 1 != static_cast<hsize_t>(entry.nTokens))
        return bad(fmt::format("does not fill row {} with {} values", row, entry.nTokens));
    return Ok{};
}

}  // namespace

Result<std::vector<LossIndexEntry>> readLossIndex(const std::filesystem::path& path) {
    auto lock = h5::lockLibrary();
    const std::string shown = path.string();
    auto file = h5::File::openReadOnly(shown, 0);
    if (!file) return file.error();
    auto root = h5::Group::root(*file);
    if (!root) return root.error();
    auto runs = readRuns(*root, shown);
    if (!runs) return runs.error();
    if (auto rc = readLengths(*root, *runs); !rc) return rc.error();
    // Dataset::open refuses virtual datasets; this one is opened only to read its mappings.
    const h5::Location where{shown, "/per_token_loss"};
    if (auto hard = h5::requireHardLink(root->id(), "per_token_loss", where); !hard)
        return hard.error();
    h5::Handle loss(H5Dopen2(root->id(), "per_token_loss", h5::datasetAccess()), where);
    if (!loss.valid()) return h5::makeError(ErrorKind::Format, where, "cannot open");
    h5::Handle dcpl(H5Dget_create_plist(loss.id()), where);
    size_t count = 0;
    if (!dcpl.valid() || H5Pget_layout(dcpl.id()) != H5D_VIRTUAL ||
        H5Pget_virtual_count(dcpl.id(), &count) < 0)
        return h5::makeError(ErrorKind::Format, where, "not a virtual dataset");
    size_t mapping = 0;
    for (size_t row = 0; row < runs->size(); ++row) {
        const LossIndexEntry& entry = (*runs)[row];
        if (entry.nTokens < 0)
            return Error{ErrorKind::Format, "negative length", shown, "/n_tokens"};
        if (entry.nTokens == 0) continue;
        if (mapping >= count)
            return Error{ErrorKind::Format,
                         fmt::format("row {} ({}) has no mapping", row, entry.trace.string()),
                         shown, where.object};
        if (auto rc = checkMapping(dcpl.id(), mapping++, row, entry, where); !rc) return rc.error();
    }
    if (mapping != count)
        return Error{ErrorKind::Format,
                     fmt::format("{} mappings for {} runs with tokens", count, mapping), shown,
                     where.object};
    return std::move(*runs);
}

}  // namespace gatescope::data
