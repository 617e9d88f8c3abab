// libFuzzer target: a TOML batch recipe through readRecipe (the nesting pre-scan, toml++, the
// JSON conversion and the validator). Seeds: fuzz/corpus/recipe_toml/.
#include "fuzz/recipe_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    return gatescope::fuzz::fuzzRecipe(data, size, "recipe.toml");
}
