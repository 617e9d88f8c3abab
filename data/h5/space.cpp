#include "data/h5/space.h"

namespace gatescope::data::h5 {

Result<Space> Space::simple(const Dims& dims, const Location& where) {
    auto lock = lockLibrary();
    auto id = checkId(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                      ErrorKind::Internal, where, "cannot create dataspace");
    if (!id) return id.error();
    return Space(Handle(*id, where));
}

Result<Space> Space::scalar(const Location& where) {
    auto lock = lockLibrary();
    auto id = checkId(H5Screate(H5S_SCALAR), ErrorKind::Internal, where, "cannot create dataspace");
    if (!id) return id.error();
    return Space(Handle(*id, where));
}

Result<Space> Space::adopt(hid_t id, const Location& where) {
    auto checked = checkId(id, ErrorKind::Format, where, "cannot get dataspace");
    if (!checked) return checked.error();
    return Space(Handle(id, where));
}

Result<Dims> Space::dims() const {
    auto lock = lockLibrary();
    int rank = H5Sget_simple_extent_ndims(id());
    if (rank < 0)
        return makeError(ErrorKind::Format, m_handle.where(), "cannot read dataspace rank");
    Dims dims(static_cast<size_t>(rank));
    auto rc = check(H5Sget_simple_extent_dims(id(), dims.data(), nullptr), ErrorKind::Format,
                    m_handle.where(), "cannot read dataspace extent");
    if (!rc) return rc.error();
    return dims;
}

Status Space::selectBlock(const Dims& start, const Dims& count) {
    auto lock = lockLibrary();
    return check(
        H5Sselect_hyperslab(id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        ErrorKind::Usage, m_handle.where(), "cannot select block");
}

Type Type::copyOf(hid_t predefined) {
    auto lock = lockLibrary();
    return Type(Handle(H5Tcopy(predefined), {}));
}

Type Type::nativeFloat() {
    return copyOf(H5T_NATIVE_FLOAT);
}
Type Type::nativeDouble() {
    return copyOf(H5T_NATIVE_DOUBLE);
}
Type Type::nativeInt32() {
    return copyOf(H5T_NATIVE_INT32);
}
Type Type::nativeInt64() {
    return copyOf(H5T_NATIVE_INT64);
}
Type Type::nativeUint8() {
    return copyOf(H5T_NATIVE_UINT8);
}

// A builder whose HDF5 calls fail (out of memory only: the arguments are constants) returns a
// Type without an identifier, so the dataset or attribute it is used for fails with HDF5's error
// instead of being written with a half-built type.
Type Type::utf8String() {
    auto lock = lockLibrary();
    Type type = copyOf(H5T_C_S1);
    if (H5Tset_size(type.id(), H5T_VARIABLE) < 0 || H5Tset_cset(type.id(), H5T_CSET_UTF8) < 0)
        type.m_handle = Handle();
    return type;
}

Type Type::float16() {
    auto lock = lockLibrary();
    Type type = copyOf(H5T_IEEE_F32LE);
    if (H5Tset_fields(type.id(), 15, 10, 5, 0, 10) < 0 || H5Tset_size(type.id(), 2) < 0 ||
        H5Tset_ebias(type.id(), 15) < 0)
        type.m_handle = Handle();
    return type;
}

Type Type::bfloat16() {
    auto lock = lockLibrary();
    Type type = copyOf(H5T_IEEE_F32LE);
    if (H5Tset_fields(type.id(), 15, 7, 8, 0, 7) < 0 || H5Tset_size(type.id(), 2) < 0 ||
        H5Tset_ebias(type.id(), 127) < 0)
        type.m_handle = Handle();
    return type;
}

bool Type::isBfloat16() const {
    auto lock = lockLibrary();
    if (H5Tget_class(id()) != H5T_FLOAT || H5Tget_size(id()) != 2) return false;
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    if (H5Tget_fields(id(), &spos, &epos, &esize, &mpos, &msize) < 0) return false;
    return spos == 15 && epos == 7 && esize == 8 && mpos == 0 && msize == 7 &&
           H5Tget_ebias(id()) == 127 && H5Tget_order(id()) == H5T_ORDER_LE;
}

Result<Type> Type::adopt(hid_t id, const Location& where) {
    auto checked = checkId(id, ErrorKind::Format, where, "cannot get datatype");
    if (!checked) return checked.error();
    return Type(Handle(id, where));
}

H5T_class_t Type::typeClass() const {
    auto lock = lockLibrary();
    return H5Tget_class(id());
}

size_t Type::size() const {
    auto lock = lockLibrary();
    return H5Tget_size(id());
}

bool Type::isVariableString() const {
    auto lock = lockLibrary();
    return H5Tis_variable_str(id()) > 0;
}

}  // namespace gatescope::data::h5
