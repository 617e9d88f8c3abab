# Shared build settings for every gatescope target.

find_program(GATESCOPE_CCACHE ccache)
if(GATESCOPE_CCACHE)
    set(CMAKE_C_COMPILER_LAUNCHER ${GATESCOPE_CCACHE})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${GATESCOPE_CCACHE})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${GATESCOPE_CCACHE})
endif()

# Warnings on, for our code only (imported targets keep their own flags).
function(gatescope_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
endfunction()

# A library per top-level folder: every .cpp below it (CONFIGURE_DEPENDS picks up new files).
# Include paths are rooted at the repository so includes read "data/trace/trace_writer.h".
function(gatescope_folder_library target folder)
    file(GLOB_RECURSE _sources CONFIGURE_DEPENDS
        ${CMAKE_SOURCE_DIR}/${folder}/*.cpp)
    if(NOT _sources)
        # A folder whose first sources are still being written: keep the target so others link.
        set(_sources ${CMAKE_BINARY_DIR}/${target}_empty.cpp)
        file(WRITE ${_sources} "// placeholder for an empty ${folder}/\n")
    endif()
    add_library(${target} STATIC ${_sources})
    target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    gatescope_warnings(${target})
endfunction()

function(gatescope_git_revision out)
    execute_process(COMMAND git rev-parse --short=12 HEAD
        WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
        OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT _rev)
        set(_rev "unknown")
    endif()
    set(${out} ${_rev} PARENT_SCOPE)
endfunction()
