# Shared build settings for every gatescope target.

find_program(GATESCOPE_CCACHE ccache)
if(GATESCOPE_CCACHE)
    # Without this sloppiness ccache refuses every file compiled with a precompiled header (the
    # LibTorch files of core/, the slowest of the build): "could not use precompiled header".
    set(_launcher ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros
        ${GATESCOPE_CCACHE})
    set(CMAKE_C_COMPILER_LAUNCHER ${_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_launcher})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${_launcher})
endif()

# Warnings on, for our code only (imported targets keep their own flags).
function(gatescope_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
endfunction()

# A library per top-level folder: every .cpp below it (CONFIGURE_DEPENDS picks up new files).
# Include paths are rooted at the repository so includes read "data/trace/trace_writer.h".
function(gatescope_folder_library target folder)
    cmake_parse_arguments(PARSE_ARGV 2 _arg "" "EXCLUDE" "")
    file(GLOB_RECURSE _sources CONFIGURE_DEPENDS
        ${CMAKE_SOURCE_DIR}/${folder}/*.cpp)
    if(_arg_EXCLUDE)  # a subfolder that builds a target of its own
        list(FILTER _sources EXCLUDE REGEX "${_arg_EXCLUDE}")
    endif()
    if(NOT _sources)
        # A folder whose first sources are still being written: keep the target so others link.
        set(_sources ${CMAKE_BINARY_DIR}/${target}_empty.cpp)
        file(WRITE ${_sources} "// placeholder for an empty ${folder}/\n")
    endif()
    add_library(${target} STATIC ${_sources})
    gatescope_unity_groups(${target} ${folder} ${_sources})
    target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    gatescope_warnings(${target})
endfunction()

# Unity batches of at most 8 files of one first-level subfolder each: an archive member then holds
# code of one part only, so a client that links part of a library (the Python module _figures takes
# widgets/figures, not the OpenGL viewer of widgets/gui) pulls in no other part's symbols, and a
# new file regroups only its own subfolder.
function(gatescope_unity_groups target folder)
    set_target_properties(${target} PROPERTIES UNITY_BUILD_MODE GROUP)
    foreach(_source IN LISTS ARGN)
        # The group: the library's first-level subfolder (engine/models, widgets/figures).
        file(RELATIVE_PATH _name ${CMAKE_SOURCE_DIR} ${_source})
        string(REGEX REPLACE "^([^/]+/[^/]+)/.*$" "\\1" _name "${_name}")
        string(REGEX REPLACE "/[^/]+\\.cpp$" "" _name "${_name}")
        string(REPLACE "/" "_" _name "${_name}")
        if(NOT DEFINED _count_${_name})
            set(_count_${_name} 0)
        endif()
        math(EXPR _batch "${_count_${_name}} / ${CMAKE_UNITY_BUILD_BATCH_SIZE}")
        math(EXPR _count_${_name} "${_count_${_name}} + 1")
        set_source_files_properties(${_source} PROPERTIES UNITY_GROUP "${_name}_${_batch}")
    endforeach()
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

# gatescope_uses_torch(<file> <out>): whether <file> includes LibTorch (<torch/...>, <ATen/...>,
# <c10/...>) directly or through the project's own headers (paths rooted at the repository).
# Used to give the LibTorch precompiled header only to the files that need it: loading it costs
# every other file far more than its own compilation.
function(gatescope_uses_torch file out)
    get_property(_known GLOBAL PROPERTY "gatescope_torch:${file}" SET)
    if(_known)
        get_property(_value GLOBAL PROPERTY "gatescope_torch:${file}")
        set(${out} ${_value} PARENT_SCOPE)
        return()
    endif()
    set_property(GLOBAL PROPERTY "gatescope_torch:${file}" FALSE)  # breaks include cycles
    set(_value FALSE)
    file(STRINGS ${file} _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(_line IN LISTS _includes)
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" _header
            "${_line}")
        if(_header MATCHES "^(torch|ATen|c10)/")
            set(_value TRUE)
            break()
        endif()
        if(EXISTS ${CMAKE_SOURCE_DIR}/${_header})
            gatescope_uses_torch(${CMAKE_SOURCE_DIR}/${_header} _nested)
            if(_nested)
                set(_value TRUE)
                break()
            endif()
        endif()
    endforeach()
    set_property(GLOBAL PROPERTY "gatescope_torch:${file}" ${_value})
    set(${out} ${_value} PARENT_SCOPE)
endfunction()
