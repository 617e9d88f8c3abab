#include "data/h5/attribute.h"

#include <string>

#include "data/h5/attribute_check.h"
#include "data/h5/string_values.h"

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
    if (auto st = checkAttributeMessages(owner); !st) return st.error();
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
    if (auto st = checkAttributeMessages(owner); !st) return st.error();
    return checkTri(H5Aexists(owner.id(), std::string(name).c_str()), ErrorKind::Format,
                    attributeLocation(owner, name), "cannot look up attribute");
}

namespace {

// The attribute's dataspace must hold exactly one value: scalar, or simple with one element
// (never the null space, which holds none).
Status requireOneValue(const Attribute& attr, const char* what) {
    const Location& where = attr.where();
    hid_t space = H5Aget_space(attr.id());
    if (space < 0) return makeError(ErrorKind::Format, where, "cannot get dataspace");
    Handle owner(space, where);
    const H5S_class_t cls = H5Sget_simple_extent_type(space);
    const hssize_t points = H5Sget_simple_extent_npoints(space);
    if ((cls == H5S_SCALAR || cls == H5S_SIMPLE) && points == 1) return Ok{};
    H5Eclear2(H5E_DEFAULT);
    return Error{ErrorKind::Shape, std::string("expected a scalar ") + what + " attribute",
                 where.file, where.object};
}

}  // namespace

Result<std::string> readStringAttribute(const Object& owner, std::string_view name,
                                        size_t maxBytes) {
    auto lock = lockLibrary();
    auto attr = Attribute::open(owner, name);
    if (!attr) return attr.error();
    auto type = attr->type();
    if (!type) return type.error();
    const Location& where = attr->where();
    if (type->typeClass() != H5T_STRING)
        return Error{ErrorKind::Shape, "expected a scalar string attribute", where.file,
                     where.object};
    if (auto one = requireOneValue(*attr, "string"); !one) return one.error();
    auto stored = inspectStringType(*type, maxBytes, where);
    if (!stored) return stored.error();
    const hid_t id = attr->id();
    auto values = readStringValues(
        *stored, 1, maxBytes,
        [id](hid_t memType, void* buffer) { return H5Aread(id, memType, buffer); }, where);
    if (!values) return values.error();
    return std::move(values->front());
}

Result<int64_t> readIntAttribute(const Object& owner, std::string_view name) {
    auto lock = lockLibrary();
    auto attr = Attribute::open(owner, name);
    if (!attr) return attr.error();
    auto type = attr->type();
    if (!type) return type.error();
    const Location& where = attr->where();
    const size_t size = type->size();
    if (type->typeClass() != H5T_INTEGER || (size != 1 && size != 2 && size != 4 && size != 8))
        return Error{ErrorKind::Shape, "expected a scalar integer attribute", where.file,
                     where.object};
    if (auto one = requireOneValue(*attr, "integer"); !one) return one.error();
    int64_t value = 0;
    Type memType = Type::nativeInt64();
    auto rc = check(H5Aread(attr->id(), memType.id(), &value), ErrorKind::Format, where,
                    "cannot read attribute");
    if (!rc) return rc.error();
    return value;
}

}  // namespace gatescope::data::h5
