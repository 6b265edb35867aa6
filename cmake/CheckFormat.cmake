# Fails when a C++ file of the project is not as .clang-format lays it out, naming each file and
# the command that fixes them all. Run as a CTest test:
#   cmake -DCLANG_FORMAT=clang-format-14 -DSOURCE_DIR=<repo> -P cmake/CheckFormat.cmake
# The formatter's version is pinned (Debian 12's clang-format-14): another version lays out some
# lines differently, and the check must agree with the one tools/format.sh runs.
set(unformatted "")
foreach(folder src tests bench)
    file(GLOB_RECURSE sources "${SOURCE_DIR}/${folder}/*.h" "${SOURCE_DIR}/${folder}/*.cpp")
    list(FILTER sources EXCLUDE REGEX "^${SOURCE_DIR}/tests/data/")
    foreach(source IN LISTS sources)
        execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file "${source}"
                        RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
        if(NOT status EQUAL 0)
            file(RELATIVE_PATH shown "${SOURCE_DIR}" "${source}")
            list(APPEND unformatted "${shown}")
        endif()
    endforeach()
endforeach()
if(unformatted)
    list(LENGTH unformatted count)
    list(JOIN unformatted "\n  " listed)
    message(FATAL_ERROR "${count} files are not formatted as .clang-format says; "
                        "tools/format.sh formats them:\n  ${listed}")
endif()
