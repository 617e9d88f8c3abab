// libFuzzer target: a JSON batch recipe through readRecipe. Seeds: fuzz/corpus/recipe_json/.
#include "fuzz/recipe_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    return gatescope::fuzz::fuzzRecipe(data, size, "recipe.json");
}
