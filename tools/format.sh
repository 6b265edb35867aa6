#!/usr/bin/env bash
# Formats every C++ file of the project as .clang-format says, with the clang-format that CI's
# check (format.clang_format, cmake/CheckFormat.cmake) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
find src tests bench \( -name '*.cpp' -o -name '*.h' \) -not -path 'tests/data/*' -print0 |
    xargs -0 clang-format-14 -i --style=file
