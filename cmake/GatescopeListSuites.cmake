# Script mode (cmake -P), run after each build of a test executable by gatescope_discover_suites:
# lists its GoogleTest suites and writes one add_test per suite into OUT.
# Inputs: EXE, OUT, NAME (test name prefix), TIMEOUT (seconds per suite), WORKDIR.
execute_process(COMMAND ${EXE} --gtest_list_tests
    WORKING_DIRECTORY ${WORKDIR}
    OUTPUT_VARIABLE _listing RESULT_VARIABLE _status TIMEOUT 300)
if(NOT _status EQUAL 0)
    message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${_status}):\n${_listing}")
endif()
# Parameter descriptions may hold ';', which CMake lists would split on.
string(REPLACE ";" "<semicolon>" _listing "${_listing}")
string(REPLACE "\n" ";" _lines "${_listing}")
set(_content "")
set(_count 0)
foreach(_line IN LISTS _lines)
    # Suite lines start in column 0 and end in '.', optionally followed by "  # TypeParam = ...".
    if(_line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
        set(_suite "${CMAKE_MATCH_1}")
        string(APPEND _content
            "add_test([=[${NAME}.${_suite}]=] [==[${EXE}]==] [==[--gtest_filter=${_suite}.*]==])\n"
            "set_tests_properties([=[${NAME}.${_suite}]=] PROPERTIES TIMEOUT ${TIMEOUT} "
            "WORKING_DIRECTORY [==[${WORKDIR}]==])\n")
        math(EXPR _count "${_count} + 1")
    endif()
endforeach()
if(_count EQUAL 0)
    message(FATAL_ERROR "${EXE} lists no test suite")
endif()
file(WRITE ${OUT} "${_content}")
