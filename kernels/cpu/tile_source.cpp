#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {

const char* toString(MapKind kind) {
    switch (kind) {
        case MapKind::Attention:
            return "attention";
        case MapKind::Decay:
            return "decay";
        case MapKind::Logit:
            return "logit";
    }
    return "unknown";
}

std::optional<MapKind> parseMapKind(std::string_view word) {
    for (MapKind kind : {MapKind::Attention, MapKind::Decay, MapKind::Logit})
        if (word == toString(kind)) return kind;
    return std::nullopt;
}

}  // namespace gatescope::kernels
