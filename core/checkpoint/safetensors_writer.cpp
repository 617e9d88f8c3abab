#include "core/checkpoint/safetensors_writer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "data/common/atomic_file.h"

namespace gatescope::core {

Status writeSafetensors(const std::filesystem::path& path,
                        const std::vector<TensorToWrite>& tensors,
                        const std::map<std::string, std::string>& metadata) {
    // Like the reference writer: larger elements first, then by name, so that every tensor starts
    // aligned to its element size without holes (the header is padded to 8 bytes).
    std::vector<const TensorToWrite*> order;
    std::set<std::string> names;
    for (const TensorToWrite& t : tensors) {
        if (t.name == "__metadata__" || !names.insert(t.name).second) {
            return Error{ErrorKind::Usage, "duplicate or reserved tensor name", path.string(),
                         t.name};
        }
        uint64_t numel = 1;
        for (int64_t d : t.shape) {
            if (d < 0) return Error{ErrorKind::Usage, "negative dimension", path.string(), t.name};
            numel *= static_cast<uint64_t>(d);
        }
        if (numel * dtypeSize(t.dtype) != t.bytes.size()) {
            return Error{ErrorKind::Usage,
                         fmt::format("{} bytes given, dtype x shape needs {}", t.bytes.size(),
                                     numel * dtypeSize(t.dtype)),
                         path.string(), t.name};
        }
        order.push_back(&t);
    }
    std::sort(order.begin(), order.end(), [](const TensorToWrite* a, const TensorToWrite* b) {
        const std::size_t sa = dtypeSize(a->dtype), sb = dtypeSize(b->dtype);
        return sa != sb ? sa > sb : a->name < b->name;
    });

    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (const TensorToWrite* t : order) {
        header[t->name] = {{"dtype", std::string(dtypeName(t->dtype))},
                           {"shape", t->shape},
                           {"data_offsets", {offset, offset + t->bytes.size()}}};
        offset += t->bytes.size();
    }
    std::string headerText = header.dump();
    headerText.append((8 - headerText.size() % 8) % 8, ' ');

    const std::filesystem::path temp = data::partialPath(path);
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return Error{ErrorKind::Io, "cannot create", temp.string(), {}};
        const uint64_t length = headerText.size();
        out.write(reinterpret_cast<const char*>(&length), sizeof length);
        out.write(headerText.data(), static_cast<std::streamsize>(headerText.size()));
        for (const TensorToWrite* t : order) {
            out.write(reinterpret_cast<const char*>(t->bytes.data()),
                      static_cast<std::streamsize>(t->bytes.size()));
        }
        out.flush();
        if (!out) {
            out.close();
            std::error_code ec;
            std::filesystem::remove(temp, ec);
            return Error{ErrorKind::Io, "write failed (disk full?)", path.string(), {}};
        }
    }
    return data::commitFile(temp, path);
}

}  // namespace gatescope::core
