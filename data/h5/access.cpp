#include "data/h5/access.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "data/h5/handle.h"
#include "data/h5/object_header.h"
#include "data/h5/vlen_descriptors.h"

namespace gatescope::data::h5 {
namespace {

herr_t refuseExternalLink(const char*, const char*, const char*, const char*, unsigned*, hid_t,
                          void*) {
    return -1;
}

// One list of class `cls` with the policy; H5P_GROUP_ACCESS and H5P_DATASET_ACCESS derive from
// H5P_LINK_ACCESS, so they take the same settings.
hid_t makeList(hid_t cls) {
    hid_t list = H5Pcreate(cls);
    if (list < 0) return list;
    if (H5Pset_nlinks(list, 1) < 0 || H5Pset_elink_cb(list, refuseExternalLink, nullptr) < 0) {
        H5Pclose(list);
        H5Eclear2(H5E_DEFAULT);
        return H5I_INVALID_HID;
    }
    return list;
}

std::string externalTarget(hid_t parent, const std::string& name, size_t size) {
    if (size == 0 || size > 4096) return {};
    std::vector<char> value(size);
    const char* file = nullptr;
    const char* object = nullptr;
    unsigned flags = 0;
    if (H5Lget_val(parent, name.c_str(), value.data(), size, linkAccess()) < 0 ||
        H5Lunpack_elink_val(value.data(), size, &flags, &file, &object) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    // Both strings lie inside `value`; bound them by it rather than trusting their terminators.
    auto bounded = [&](const char* text) {
        if (!text) return std::string("?");
        const char* end = value.data() + size;
        const char* stop = text;
        while (stop < end && *stop)
            ++stop;
        return std::string(text, stop);
    };
    return fmt::format(" to '{}' object '{}'", bounded(file), bounded(object));
}

// HDF5 1.10's metadata cache allocates an object header's chunks at the sizes the header states
// before it reads them (a forged trace: 21 GB in H5C_protect under `gatescope info`). The raw
// reader bounds every chunk by the file and the header's total by 64 MiB.
Status checkObjectHeader(hid_t parent, haddr_t address, const Location& where) {
    const hid_t file = H5Iget_file_id(parent);
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the file");
    Handle fileOwner(file, where);
    auto sizes = fileOffsetSizes(file, where);
    if (!sizes) return sizes.error();
    auto header = readObjectHeader(file, address, sizes->offsets, sizes->lengths, where);
    if (!header) return header.error();
    return Ok{};
}

}  // namespace

hid_t linkAccess() {
    static const hid_t list = makeList(H5P_LINK_ACCESS);
    return list;
}

hid_t groupAccess() {
    static const hid_t list = makeList(H5P_GROUP_ACCESS);
    return list;
}

hid_t datasetAccess() {
    static const hid_t list = makeList(H5P_DATASET_ACCESS);
    return list;
}

Status requireHardLink(hid_t parent, const std::string& name, const Location& where) {
    H5L_info_t info;
    auto rc = check(H5Lget_info(parent, name.c_str(), &info, linkAccess()), ErrorKind::Format,
                    where, "cannot read link");
    if (!rc) return rc;
    switch (info.type) {
        case H5L_TYPE_HARD:
            return checkObjectHeader(parent, info.u.address, where);
        case H5L_TYPE_SOFT:
            return Error{ErrorKind::Unsupported,
                         "is a soft link; gatescope follows only hard links in a trace", where.file,
                         where.object};
        case H5L_TYPE_EXTERNAL:
            return Error{ErrorKind::Unsupported,
                         fmt::format("is an external link{}; gatescope never follows links out "
                                     "of a file",
                                     externalTarget(parent, name, info.u.val_size)),
                         where.file, where.object};
        default:
            return Error{ErrorKind::Unsupported,
                         fmt::format("is a user-defined link (type {}); gatescope follows only "
                                     "hard links in a trace",
                                     static_cast<int>(info.type)),
                         where.file, where.object};
    }
}

}  // namespace gatescope::data::h5
