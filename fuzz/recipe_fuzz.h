// Shared by recipe_json_fuzz.cpp and recipe_toml_fuzz.cpp: one recipe file through readRecipe,
// as `gatescope batch RECIPE` reads it (nothing is planned or run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/batch/batch_recipe.h"
#include "fuzz/fuzz_support.h"

namespace gatescope::fuzz {

inline int fuzzRecipe(const uint8_t* data, std::size_t size, const std::string& fileName) {
    const auto path =
        writeScratch(fileName, std::string_view(reinterpret_cast<const char*>(data), size));
    auto recipe = core::readRecipe(path);
    if (recipe) (void)recipe->source.dump();
    return 0;
}

}  // namespace gatescope::fuzz
