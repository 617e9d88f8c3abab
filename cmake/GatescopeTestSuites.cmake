# gatescope_discover_suites(<target> [TIMEOUT seconds]): registers one ctest test per GoogleTest
# test suite of <target> ("<target>.<Suite>" running --gtest_filter=<Suite>.*), listed after each
# build like gtest_discover_tests does per test. For executables that link LibTorch: Debian's
# LibTorch loads 286 shared libraries (OpenCV, FFmpeg, GDCM, ...) whose static initializers cost
# seconds per process, so one process per test case made that start-up most of the test time.
function(gatescope_discover_suites target)
    cmake_parse_arguments(ARG "" "TIMEOUT" "" ${ARGN})
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 600)
    endif()
    set(_tests "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
    set(_include "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
    add_custom_command(TARGET ${target} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -D EXE=$<TARGET_FILE:${target}> -D OUT=${_tests}
            -D NAME=${target} -D TIMEOUT=${ARG_TIMEOUT} -D WORKDIR=${CMAKE_CURRENT_BINARY_DIR}
            -P ${PROJECT_SOURCE_DIR}/cmake/GatescopeListSuites.cmake
        BYPRODUCTS ${_tests}
        VERBATIM)
    file(WRITE ${_include}
        "if(EXISTS \"${_tests}\")\n  include(\"${_tests}\")\nelse()\n"
        "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_include})
endfunction()
