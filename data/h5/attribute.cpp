#include "data/h5/attribute.h"

#include <string>

namespace gatescope::data::h5 {
namespace {

Location attributeLocation(const Object& owner, std::string_view name) {
    return {owner.where().file, owner.where().object + "@" + std::string(name)};
}

// Attributes cannot be rewritten with another shape or type, so replacing means delete + create.
Result<Handle> recreate(const Object& owner, std::string_view name, const Type& type,
                        const Space& space) {
    Location where = attributeLocation(owner, name);
    std::string key(name);
    auto present = checkTri(H5Aexists(owner.id(), key.c_str()), ErrorKind::Io, where,
                            "cannot look up attribute");
    if (!present) return present.error();
    if (*present) {
        auto rc = check(H5Adelete(owner.id(), key.c_str()), ErrorKind::Io, where,
                        "cannot replace attribute");
        if (!rc) return rc.error();
    }
    auto id = checkId(
        H5Acreate2(owner.id(), key.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
        ErrorKind::Io, where, "cannot create attribute");
    if (!id) return id.error();
    return Handle(*id, where);
}

}  // namespace

Result<Attribute> Attribute::open(const Object& owner, std::string_view name) {
    auto lock = lockLibrary();
    Location where = attributeLocation(owner, name);
    std::string key(name);
    auto present = checkTri(H5Aexists(owner.id(), key.c_str()), ErrorKind::Format, where,
                            "cannot look up attribute");
    if (!present) return present.error();
    if (!*present) return Error{ErrorKind::Missing, "no such attribute", where.file, where.object};
    auto id = checkId(H5Aopen(owner.id(), key.c_str(), H5P_DEFAULT), ErrorKind::Format, where,
                      "cannot open attribute");
    if (!id) return id.error();
    return Attribute(Handle(*id, where));
}

Result<Type> Attribute::type() const {
    auto lock = lockLibrary();
    return Type::adopt(H5Aget_type(id()), where());
}

Result<Dims> Attribute::dims() const {
    auto lock = lockLibrary();
    auto space = Space::adopt(H5Aget_space(id()), where());
    if (!space) return space.error();
    return space->dims();
}

Status writeAttribute(const Object& owner, std::string_view name, std::string_view value) {
    auto lock = lockLibrary();
    auto space = Space::scalar(owner.where());
    if (!space) return space.error();
    Type type = Type::utf8String();
    auto attr = recreate(owner, name, type, *space);
    if (!attr) return attr.error();
    std::string text(value);
    const char* pointer = text.c_str();
    return check(H5Awrite(attr->id(), type.id(), &pointer), ErrorKind::Io, attr->where(),
                 "cannot write attribute");
}

Status writeAttribute(const Object& owner, std::string_view name, int64_t value) {
    auto lock = lockLibrary();
    auto space = Space::scalar(owner.where());
    if (!space) return space.error();
    Type type = Type::nativeInt64();
    auto attr = recreate(owner, name, type, *space);
    if (!attr) return attr.error();
    return check(H5Awrite(attr->id(), type.id(), &value), ErrorKind::Io, attr->where(),
                 "cannot write attribute");
}

Status writeAttribute(const Object& owner, std::string_view name,
                      const std::vector<std::string>& values) {
    auto lock = lockLibrary();
    auto space = Space::simple({values.size()}, owner.where());
    if (!space) return space.error();
    Type type = Type::utf8String();
    auto attr = recreate(owner, name, type, *space);
    if (!attr) return attr.error();
    std::vector<const char*> pointers;
    for (const auto& value : values)
        pointers.push_back(value.c_str());
    return check(H5Awrite(attr->id(), type.id(), pointers.data()), ErrorKind::Io, attr->where(),
                 "cannot write attribute");
}

Result<bool> hasAttribute(const Object& owner, std::string_view name) {
    auto lock = lockLibrary();
    return checkTri(H5Aexists(owner.id(), std::string(name).c_str()), ErrorKind::Format,
                    attributeLocation(owner, name), "cannot look up attribute");
}

Result<std::string> readStringAttribute(const Object& owner, std::string_view name) {
    auto lock = lockLibrary();
    auto attr = Attribute::open(owner, name);
    if (!attr) return attr.error();
    auto type = attr->type();
    if (!type) return type.error();
    auto dims = attr->dims();
    if (!dims) return dims.error();
    const Location& where = attr->where();
    if (type->typeClass() != H5T_STRING || !dims->empty())
        return Error{ErrorKind::Shape, "expected a scalar string attribute", where.file,
                     where.object};
    if (type->isVariableString()) {
        Type memType = Type::utf8String();
        char* pointer = nullptr;
        auto rc = check(H5Aread(attr->id(), memType.id(), &pointer), ErrorKind::Format, where,
                        "cannot read attribute");
        if (!rc) return rc.error();
        std::string value = pointer ? pointer : "";
        H5free_memory(pointer);
        return value;
    }
    std::string value(type->size(), '\0');
    auto rc = check(H5Aread(attr->id(), type->id(), value.data()), ErrorKind::Format, where,
                    "cannot read attribute");
    if (!rc) return rc.error();
    value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
    return value;
}

Result<int64_t> readIntAttribute(const Object& owner, std::string_view name) {
    auto lock = lockLibrary();
    auto attr = Attribute::open(owner, name);
    if (!attr) return attr.error();
    auto type = attr->type();
    if (!type) return type.error();
    auto dims = attr->dims();
    if (!dims) return dims.error();
    const Location& where = attr->where();
    bool scalar = dims->empty() || (dims->size() == 1 && (*dims)[0] == 1);
    if (type->typeClass() != H5T_INTEGER || !scalar)
        return Error{ErrorKind::Shape, "expected a scalar integer attribute", where.file,
                     where.object};
    int64_t value = 0;
    Type memType = Type::nativeInt64();
    auto rc = check(H5Aread(attr->id(), memType.id(), &value), ErrorKind::Format, where,
                    "cannot read attribute");
    if (!rc) return rc.error();
    return value;
}

}  // namespace gatescope::data::h5
