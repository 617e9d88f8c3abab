// The size of a trainable net: what `gatescope train` exposes. Everything else is the
// architecture's default (see each net in engine/train/*_train_net.cpp).
#pragma once

#include <cstdint>

namespace gatescope::core::train {

struct NetShape {
    int layers = 2;
    int hiddenSize = 128;
    int heads = 4;
    int vocabSize = 256;  ///< 256: byte-level ("gatescope_tokenizer": "byte")
    uint64_t seed = 1;
};

}  // namespace gatescope::core::train
