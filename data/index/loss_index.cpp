#include "data/index/loss_index.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "data/common/atomic_file.h"
#include "data/common/utf8.h"
#include "data/h5/attribute.h"
#include "data/h5/file.h"
#include "data/h5/virtual_dataset.h"
#include "data/index/loss_index_paths.h"
#include "data/trace/trace_schema.h"

namespace gatescope::data {

namespace {

// Everything inside the open index file.
Status fill(const h5::File& file, const std::vector<LossIndexEntry>& runs) {
    auto root = h5::Group::root(file);
    if (!root) return root.error();
    hsize_t cols = 1;
    std::vector<h5::VirtualRow> rows;
    for (size_t r = 0; r < runs.size(); ++r) {
        const auto n = static_cast<hsize_t>(runs[r].nTokens);
        cols = std::max(cols, n);
        if (n > 0) rows.push_back({r, n, escapeVdsName(runs[r].trace.string()), schema::kLoss});
    }
    auto rc = h5::createVirtualRows(*root, "per_token_loss", runs.size(), cols, NAN, rows);
    if (!rc) return rc;
    // At least one entry, as readLossIndex expects: an index without runs holds one 0.
    std::vector<int64_t> lengths(std::max<size_t>(runs.size(), 1), 0);
    nlohmann::json names = nlohmann::json::array();
    for (size_t r = 0; r < runs.size(); ++r) {
        lengths[r] = runs[r].nTokens;
        names.push_back({{"run", runs[r].run}, {"trace", runs[r].trace.string()}});
    }
    const h5::Type int64 = h5::Type::nativeInt64();
    auto lengthsDataset = h5::Dataset::create(*root, "n_tokens", int64, {lengths.size()});
    if (!lengthsDataset) return lengthsDataset.error();
    rc = lengthsDataset->write(int64, lengths.data());
    if (!rc) return rc;
    // Variable-length, so a batch of thousands of runs fits: a fixed-length string attribute
    // must stay under HDF5's 64 KiB object-header message limit.
    return h5::writeAttribute(*root, "runs", names.dump());
}

Status write(const std::string& temp, const std::vector<LossIndexEntry>& runs) {
    auto file = h5::File::create(temp);
    if (!file) return file.error();
    auto st = fill(*file, runs);
    auto closed = file->close();  // flushes: a full disk shows here
    return st ? closed : st;
}

}  // namespace

Status writeLossIndex(const std::filesystem::path& path, const std::vector<LossIndexEntry>& runs) {
    const auto folder =
        path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    for (const auto& r : runs) {
        if (auto inside = checkIndexSource(folder, r.trace, true); !inside) return inside;
        // The mappings are stored as JSON text, which holds only UTF-8.
        for (const std::string& text : {r.run, r.trace.string()})
            if (auto at = firstInvalidUtf8(text))
                return Error{ErrorKind::Usage,
                             fmt::format("the loss index cannot name this run: byte {} of \"{}\" "
                                         "is not valid UTF-8",
                                         *at, escapeInvalidUtf8(text)),
                             r.trace.string(),
                             {}};
    }
    const std::string temp = partialPath(path).string();
    Status st = write(temp, runs);
    // What a reader would trust: the mappings read back from the file just written.
    if (st) {
        auto back = readLossIndex(temp);
        if (!back) st = back.error();
    }
    if (st) st = commitFile(temp, path);
    if (!st) {
        std::error_code ec;
        std::filesystem::remove(temp, ec);
        // The temporary file is gone: the error names the index the caller asked for.
        Error error = st.error();
        if (error.file == temp) error.file = path.string();
        return error;
    }
    return st;
}

}  // namespace gatescope::data
