// A map's one name: toString and parseMapKind agree for every map, and other words are refused
// (the CLI's --map, recipe figures and viewer scripts all read map names through parseMapKind).
#include <gtest/gtest.h>

#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels {
namespace {

TEST(MapKindNames, RoundTripAndRefuseOtherWords) {
    for (MapKind kind : {MapKind::Attention, MapKind::Decay, MapKind::Logit})
        EXPECT_EQ(parseMapKind(toString(kind)), kind) << toString(kind);
    EXPECT_EQ(parseMapKind("attention"), MapKind::Attention);
    EXPECT_EQ(parseMapKind("decay"), MapKind::Decay);
    EXPECT_EQ(parseMapKind("Decay"), std::nullopt);
    EXPECT_EQ(parseMapKind("product"), std::nullopt);
    EXPECT_EQ(parseMapKind(""), std::nullopt);
}

}  // namespace
}  // namespace gatescope::kernels
