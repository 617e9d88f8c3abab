// Precompiled header for gatescope_core. Private to core/: never include from a public header.
#pragma once
#include <torch/torch.h>
