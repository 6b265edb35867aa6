# attnviz_options: the one place for language standard, warnings, CPU flags and sanitizers. Every
# target links it, so all translation units that include Eigen agree on the instruction set (Eigen
# inlines different code per ISA, and mixing them would break the one-definition rule).
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

add_library(attnviz_options INTERFACE)
target_compile_features(attnviz_options INTERFACE cxx_std_20)
target_compile_options(attnviz_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                 -Wnon-virtual-dtor -Wcast-align
                                                 # designated initializers leave the other fields
                                                 # at their defaults on purpose
                                                 -Wno-missing-field-initializers)
# The dev preset (CI's first stage) turns every warning into an error, so that none lands.
option(ATTNVIZ_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
if(ATTNVIZ_WARNINGS_AS_ERRORS)
    target_compile_options(attnviz_options INTERFACE -Werror)
endif()
# GCC 12 warns falsely on string concatenation (GCC bugs 105651 and 107852: -Wrestrict,
# -Warray-bounds on std::string's operator+) and on Eigen's AVX-512 code paths (GCC bug 105593);
# clang (the fuzz and asan presets) knows neither false positive nor the flag.
target_compile_options(attnviz_options INTERFACE
    $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict -Wno-array-bounds -Wno-maybe-uninitialized
                             -Wno-uninitialized>)

if(ATTNVIZ_ARCH STREQUAL "native")
    target_compile_options(attnviz_options INTERFACE -march=native)
elseif(ATTNVIZ_ARCH MATCHES "^x86-64-v[234]$")
    target_compile_options(attnviz_options INTERFACE -march=${ATTNVIZ_ARCH} -mtune=generic)
elseif(NOT ATTNVIZ_ARCH STREQUAL "portable")
    message(FATAL_ERROR "ATTNVIZ_ARCH is '${ATTNVIZ_ARCH}'; expected native, x86-64-v4, "
                        "x86-64-v3, x86-64-v2 or portable")
endif()

find_package(OpenMP REQUIRED COMPONENTS CXX)
target_link_libraries(attnviz_options INTERFACE OpenMP::OpenMP_CXX)

set(sanitizers "")
if(ATTNVIZ_ENABLE_ASAN)
    list(APPEND sanitizers address)
endif()
if(ATTNVIZ_ENABLE_UBSAN)
    list(APPEND sanitizers undefined)
endif()
if(sanitizers)
    list(JOIN sanitizers "," sanitizer_list)
    target_compile_options(attnviz_options INTERFACE -fsanitize=${sanitizer_list}
                                                     -fno-omit-frame-pointer)
    target_link_options(attnviz_options INTERFACE -fsanitize=${sanitizer_list})
endif()
