#include "data/index/loss_index.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/h5/library.h"
#include "data/trace/trace_schema.h"

namespace gatescope::data {

namespace {

/// Closes an HDF5 identifier with the given close function at scope exit.
struct Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~Id() {
        if (id >= 0) close(id);
    }
};

Status write(const std::string& file, const std::string& shown,
             const std::vector<LossIndexEntry>& runs) {
    auto fail = [&](const std::string& what) -> Status {
        return Error{ErrorKind::Io, what, shown, {}};
    };
    const hsize_t rows = runs.size();
    hsize_t cols = 1;
    for (const auto& r : runs)
        cols = std::max<hsize_t>(cols, static_cast<hsize_t>(r.nTokens));
    Id f{H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    if (f.id < 0) return fail("cannot create the index file");
    const hsize_t dims[2] = {rows, cols};
    Id vspace{H5Screate_simple(2, dims, nullptr), H5Sclose};
    Id dcpl{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    const float nan = NAN;
    H5Pset_fill_value(dcpl.id, H5T_NATIVE_FLOAT, &nan);
    for (hsize_t r = 0; r < rows; ++r) {
        const hsize_t n = static_cast<hsize_t>(runs[r].nTokens);
        if (n == 0) continue;
        Id src{H5Screate_simple(1, &n, nullptr), H5Sclose};
        const hsize_t start[2] = {r, 0}, count[2] = {1, n};
        H5Sselect_hyperslab(vspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr);
        if (H5Pset_virtual(dcpl.id, vspace.id, runs[r].trace.string().c_str(), schema::kLoss,
                           src.id) < 0)
            return fail("cannot map " + runs[r].trace.string() + " into the index");
    }
    H5Sselect_all(vspace.id);
    Id loss{H5Dcreate2(f.id, "per_token_loss", H5T_IEEE_F32LE, vspace.id, H5P_DEFAULT, dcpl.id,
                       H5P_DEFAULT),
            H5Dclose};
    if (loss.id < 0) return fail("cannot create /per_token_loss");
    std::vector<int64_t> lengths;
    nlohmann::json names = nlohmann::json::array();
    for (const auto& r : runs) {
        lengths.push_back(r.nTokens);
        names.push_back({{"run", r.run}, {"trace", r.trace.string()}});
    }
    const hsize_t nRuns = std::max<hsize_t>(rows, 1);
    Id lspace{H5Screate_simple(1, &nRuns, nullptr), H5Sclose};
    Id len{H5Dcreate2(f.id, "n_tokens", H5T_STD_I64LE, lspace.id, H5P_DEFAULT, H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Dclose};
    lengths.resize(nRuns, 0);
    if (len.id < 0 ||
        H5Dwrite(len.id, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, lengths.data()) < 0)
        return fail("cannot write /n_tokens");
    const std::string text = names.dump();
    Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type.id, text.size() + 1);
    Id scalar{H5Screate(H5S_SCALAR), H5Sclose};
    Id attr{H5Acreate2(f.id, "runs", type.id, scalar.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    if (attr.id < 0 || H5Awrite(attr.id, type.id, text.c_str()) < 0)
        return fail("cannot write the runs attribute");
    return Ok{};
}

}  // namespace

Status writeLossIndex(const std::filesystem::path& path, const std::vector<LossIndexEntry>& runs) {
    const std::string temp = path.string() + ".partial-" + std::to_string(::getpid());
    Status st = Ok{};
    {
        auto lock = h5::lockLibrary();
        st = write(temp, path.string(), runs);
    }
    if (st && std::rename(temp.c_str(), path.c_str()) != 0)
        st = Error{ErrorKind::Io, "cannot rename the index into place", path.string(), {}};
    if (!st) {
        std::error_code ec;
        std::filesystem::remove(temp, ec);
    }
    return st;
}

}  // namespace gatescope::data
