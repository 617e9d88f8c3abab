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

}  // namespace gatescope::kernels
