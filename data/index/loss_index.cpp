#include "data/index/loss_index.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/common/atomic_file.h"
#include "data/h5/handle.h"
#include "data/index/loss_index_paths.h"
#include "data/trace/trace_schema.h"

namespace gatescope::data {

namespace {

// Everything inside the open file `f`; the handles close before the file does.
Status fill(hid_t f, const h5::Location& where, const std::vector<LossIndexEntry>& runs) {
    auto fail = [&](const std::string& what) -> Status {
        return h5::makeError(ErrorKind::Io, where, what);
    };
    auto own = [&](hid_t id) { return h5::Handle(id, where); };
    const hsize_t rows = runs.size();
    hsize_t cols = 1;
    for (const auto& r : runs)
        cols = std::max<hsize_t>(cols, static_cast<hsize_t>(r.nTokens));
    const hsize_t dims[2] = {rows, cols};
    auto vspace = own(H5Screate_simple(2, dims, nullptr));
    auto dcpl = own(H5Pcreate(H5P_DATASET_CREATE));
    if (!vspace.valid() || !dcpl.valid()) return fail("cannot set up /per_token_loss");
    const float nan = NAN;
    if (H5Pset_fill_value(dcpl.id(), H5T_NATIVE_FLOAT, &nan) < 0)
        return fail("cannot set the fill value of /per_token_loss");
    for (hsize_t r = 0; r < rows; ++r) {
        const hsize_t n = static_cast<hsize_t>(runs[r].nTokens);
        if (n == 0) continue;
        auto src = own(H5Screate_simple(1, &n, nullptr));
        const hsize_t start[2] = {r, 0}, count[2] = {1, n};
        const std::string source = escapeVdsName(runs[r].trace.string());
        if (!src.valid() ||
            H5Sselect_hyperslab(vspace.id(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
            H5Pset_virtual(dcpl.id(), vspace.id(), source.c_str(), schema::kLoss, src.id()) < 0)
            return fail("cannot map " + runs[r].trace.string() + " into the index");
    }
    if (H5Sselect_all(vspace.id()) < 0) return fail("cannot select the whole index");
    auto loss = own(H5Dcreate2(f, "per_token_loss", H5T_IEEE_F32LE, vspace.id(), H5P_DEFAULT,
                               dcpl.id(), H5P_DEFAULT));
    if (!loss.valid()) return fail("cannot create /per_token_loss");
    std::vector<int64_t> lengths;
    nlohmann::json names = nlohmann::json::array();
    for (const auto& r : runs) {
        lengths.push_back(r.nTokens);
        names.push_back({{"run", r.run}, {"trace", r.trace.string()}});
    }
    const hsize_t nRuns = std::max<hsize_t>(rows, 1);
    auto lspace = own(H5Screate_simple(1, &nRuns, nullptr));
    auto len = own(H5Dcreate2(f, "n_tokens", H5T_STD_I64LE, lspace.id(), H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT));
    lengths.resize(nRuns, 0);
    if (!len.valid() ||
        H5Dwrite(len.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, lengths.data()) < 0)
        return fail("cannot write /n_tokens");
    const std::string text = names.dump();
    auto type = own(H5Tcopy(H5T_C_S1));
    if (!type.valid() || H5Tset_size(type.id(), text.size() + 1) < 0)
        return fail("cannot describe the runs attribute");
    auto scalar = own(H5Screate(H5S_SCALAR));
    auto attr = own(H5Acreate2(f, "runs", type.id(), scalar.id(), H5P_DEFAULT, H5P_DEFAULT));
    if (!attr.valid() || H5Awrite(attr.id(), type.id(), text.c_str()) < 0)
        return fail("cannot write the runs attribute");
    return Ok{};
}

Status write(const std::string& file, const std::string& shown,
             const std::vector<LossIndexEntry>& runs) {
    const h5::Location where{shown, ""};
    h5::Handle f(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), where);
    if (!f.valid()) return h5::makeError(ErrorKind::Io, where, "cannot create the index file");
    auto st = fill(f.id(), where, runs);
    auto closed = f.close();  // flushes: a full disk shows here
    return st ? closed : st;
}

}  // namespace

Status writeLossIndex(const std::filesystem::path& path, const std::vector<LossIndexEntry>& runs) {
    const auto folder =
        path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    for (const auto& r : runs)
        if (auto inside = checkIndexSource(folder, r.trace, true); !inside) return inside;
    const std::string temp = partialPath(path).string();
    Status st = Ok{};
    {
        auto lock = h5::lockLibrary();
        st = write(temp, path.string(), runs);
    }
    // What a reader would trust: the mappings read back from the file just written.
    if (st) {
        auto back = readLossIndex(temp);
        if (!back) st = back.error();
    }
    if (st) st = commitFile(temp, path);
    if (!st) {
        std::error_code ec;
        std::filesystem::remove(temp, ec);
    }
    return st;
}

}  // namespace gatescope::data
