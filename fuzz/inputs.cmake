# Input-side fuzz targets (included by fuzz/CMakeLists.txt). They link one instrumented library of
# the LibTorch-free parsers of core/ and data/common: building all of gatescope_core with clang and
# sanitizers would take far longer and fuzz nothing more.
set(_inputs_sources
    data/common/bounded_json.cpp data/common/input_file.cpp data/common/utf8.cpp
    data/common/compression.cpp
    core/checkpoint/checkpoint.cpp core/checkpoint/dtype.cpp core/checkpoint/safetensors_file.cpp
    core/checkpoint/safetensors_header.cpp core/checkpoint/sha256.cpp
    core/checkpoint/sha256_hardware.cpp
    core/checkpoint/tensor_convert.cpp core/checkpoint/weight_discovery.cpp
    core/input/input.cpp core/input/id_sources.cpp core/input/npy_header.cpp
    core/input/npy_reader.cpp core/input/list_syntax.cpp core/model/intervention.cpp
    core/batch/batch_recipe.cpp core/batch/recipe_toml.cpp core/batch/toml_prescan.cpp
    core/batch/output_paths.cpp core/batch/recipe_figures.cpp kernels/cpu/tile_source.cpp
    core/trace/thread_limit.cpp core/trace/memory_budget.cpp
    engine/nn/config_reader.cpp
    engine/models/fox/fox_config.cpp engine/models/gatedfwa/gatedfwa_config.cpp
    engine/models/gsa/gsa_config.cpp engine/models/power/power_config.cpp
    engine/models/wall/wall_config.cpp)
file(GLOB _tokenizer_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/core/tokenizer/*.cpp)
list(TRANSFORM _inputs_sources PREPEND ${CMAKE_SOURCE_DIR}/)
add_library(gatescope_fuzz_inputs STATIC ${_inputs_sources} ${_tokenizer_sources})
target_include_directories(gatescope_fuzz_inputs PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(gatescope_fuzz_inputs PUBLIC nlohmann_json::nlohmann_json fmt::fmt
    Threads::Threads)
pkg_check_modules(FUZZ_ICU QUIET IMPORTED_TARGET icu-uc)
if(FUZZ_ICU_FOUND)
    target_link_libraries(gatescope_fuzz_inputs PUBLIC PkgConfig::FUZZ_ICU)
    set_source_files_properties(${CMAKE_SOURCE_DIR}/core/tokenizer/gpt2_pretokenizer.cpp
        TARGET_DIRECTORY gatescope_fuzz_inputs PROPERTIES COMPILE_DEFINITIONS GATESCOPE_HAS_ICU=1)
endif()
# toml++ compiled into the target itself (header-only mode), so the fuzzer sees its branches.
find_path(FUZZ_TOMLPP_INCLUDE_DIR toml++/toml.h)
if(FUZZ_TOMLPP_INCLUDE_DIR)
    set_source_files_properties(${CMAKE_SOURCE_DIR}/core/batch/recipe_toml.cpp
        TARGET_DIRECTORY gatescope_fuzz_inputs PROPERTIES
        COMPILE_DEFINITIONS "GATESCOPE_HAS_TOML=1;TOML_HEADER_ONLY=1")
endif()

foreach(_target safetensors_header config tokenizer npy recipe_json recipe_toml)
    gatescope_fuzz_target(${_target}_fuzz ${CMAKE_CURRENT_SOURCE_DIR}/${_target}_fuzz.cpp
        gatescope_fuzz_inputs)
endforeach()
