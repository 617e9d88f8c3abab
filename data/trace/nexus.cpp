#include "data/trace/nexus.h"

#include "data/h5/attribute.h"

namespace gatescope::data::nexus {

Status markData(const h5::Object& group, std::string_view signal, int rank,
                const std::vector<std::string>& auxiliarySignals) {
    auto rc = h5::writeAttribute(group, "NX_class", std::string_view("NXdata"));
    if (!rc) return rc;
    rc = h5::writeAttribute(group, "signal", signal);
    if (!rc) return rc;
    rc = h5::writeAttribute(group, "axes", std::vector<std::string>(rank, "."));
    if (!rc) return rc;
    if (!auxiliarySignals.empty())
        rc = h5::writeAttribute(group, "auxiliary_signals", auxiliarySignals);
    return rc;
}

Status describe(const h5::Object& dataset, std::string_view longName,
                std::string_view interpretation) {
    auto rc = h5::writeAttribute(dataset, "long_name", longName);
    if (!rc || interpretation.empty()) return rc;
    return h5::writeAttribute(dataset, "interpretation", interpretation);
}

}  // namespace gatescope::data::nexus
