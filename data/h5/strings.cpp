#include "data/h5/strings.h"

namespace gatescope::data::h5 {
namespace {

Result<std::vector<std::string>> readAll(const Dataset& dataset, size_t count) {
    auto type = dataset.type();
    if (!type) return type.error();
    const Location& where = dataset.where();
    if (type->typeClass() != H5T_STRING)
        return Error{ErrorKind::Shape, "expected strings, found another datatype", where.file,
                     where.object};
    std::vector<std::string> out;
    out.reserve(count);
    if (type->isVariableString()) {
        Type memType = Type::utf8String();
        std::vector<char*> pointers(count, nullptr);
        auto rc = dataset.read(memType, pointers.data());
        if (!rc) return rc.error();
        for (char* p : pointers) {
            out.emplace_back(p ? p : "");
            H5free_memory(p);
        }
        return out;
    }
    size_t width = type->size();
    std::string buffer(width * count, '\0');
    auto rc = dataset.read(*type, buffer.data());
    if (!rc) return rc.error();
    for (size_t i = 0; i < count; ++i) {
        std::string item = buffer.substr(i * width, width);
        out.push_back(item.substr(0, item.find('\0')));
    }
    return out;
}

}  // namespace

Result<std::vector<std::string>> readStrings(const Dataset& dataset) {
    auto lock = lockLibrary();
    auto dims = dataset.dims();
    if (!dims) return dims.error();
    if (dims->size() != 1)
        return Error{ErrorKind::Shape, "expected a 1-D string dataset", dataset.where().file,
                     dataset.where().object};
    return readAll(dataset, (*dims)[0]);
}

Result<std::string> readScalarString(const Dataset& dataset) {
    auto lock = lockLibrary();
    auto dims = dataset.dims();
    if (!dims) return dims.error();
    if (!dims->empty())
        return Error{ErrorKind::Shape, "expected a scalar string dataset", dataset.where().file,
                     dataset.where().object};
    auto values = readAll(dataset, 1);
    if (!values) return values.error();
    return std::move(values->front());
}

}  // namespace gatescope::data::h5
