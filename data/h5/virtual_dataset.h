// Virtual datasets (VDS): datasets whose values HDF5 reads from datasets of other files through
// mappings kept in their creation properties. gatescope writes one, the batch loss index
// (data/index/loss_index.h), and reads its mappings back to check them without opening a source.
// Reading a virtual dataset's values is left to HDF5 users (h5py): Dataset::open refuses them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "data/h5/dataset.h"

namespace gatescope::data::h5 {

/// One row prefix of a 2-D virtual dataset: its `count` first values, read from the 1-D dataset
/// `sourceDataset` (`count` values long) of `sourceFile`.
struct VirtualRow {
    hsize_t row = 0;
    hsize_t count = 0;
    std::string sourceFile;  ///< stored as given; HDF5 expands '%' patterns in it when reading
    std::string sourceDataset;
};

/// Creates the float32 virtual dataset `name` under `parent`, `rows` x `cols`, mapping every entry
/// of `mappings` (rows without one read as `fill`). HDF5 resolves a relative `sourceFile` against
/// the folder of the virtual dataset's file when it reads. Errors name the dataset: Usage when a
/// mapping lies outside the extent, Io (or Internal for property lists) when HDF5 refuses. Takes
/// the library lock.
Status createVirtualRows(const Object& parent, std::string_view name, hsize_t rows, hsize_t cols,
                         float fill, const std::vector<VirtualRow>& mappings);

/// A mapping of a virtual dataset, as stored.
struct VirtualMapping {
    std::string sourceFile;  ///< as stored, '%' patterns not expanded
    std::string sourceDataset;
    Dims extent;       ///< of the virtual dataset (its rank is extent.size())
    Dims first, last;  ///< inclusive bounds of the mapping's selection in the virtual dataset
};

/// The mappings of the virtual dataset at relative path `name` under `parent`, read from its
/// creation properties: no source is opened. Errors name the dataset: Missing when absent,
/// Unsupported when a path component is not a hard link, Format when it is not a virtual dataset,
/// a source name is over `maxNameBytes`, or HDF5 cannot read the properties (the message names
/// the mapping). Takes the library lock.
Result<std::vector<VirtualMapping>> readVirtualMappings(const Object& parent, std::string_view name,
                                                        size_t maxNameBytes = 4096);

}  // namespace gatescope::data::h5
