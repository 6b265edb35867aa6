#!/usr/bin/env bash
# Installs what is missing, builds with the dev preset (optimised, warnings on) and runs every test
# with ctest. This is README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --workflow --preset dev
