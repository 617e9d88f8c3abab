// Attribute messages checked before HDF5 1.10 decodes them. H5Aexists and H5Aopen decode every
// attribute message of an object header trusting the name, datatype and dataspace sizes inside
// it (a trace with a few changed bytes made HDF5 read past a buffer), and reading a string
// attribute allocates the length its stored descriptor claims, up to 4 GiB, before anything else
// is checked. Here the object header is read raw (object_header.h) and every attribute message
// must hold what it says it holds; the descriptors of variable-length string values must name
// global-heap objects of exactly their length (vlen_descriptors.h).
#pragma once

#include "data/h5/handle.h"

namespace gatescope::data::h5 {

/// Checks every attribute message of `owner`'s object header. Ok when the file is not read
/// through the checking driver (files gatescope writes itself) or the header keeps its attributes
/// in dense storage (a fractal heap; gatescope's files never do). Errors: Format, naming the
/// owner (and the attribute where its name can be read). The caller holds the library lock.
Status checkAttributeMessages(const Object& owner);

}  // namespace gatescope::data::h5
