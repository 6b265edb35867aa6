#!/usr/bin/env bash
# Installs what is missing, builds the release preset and starts AttnViz on its bundled demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec build/release/bin/attnviz-cli mha resources/examples/d2l_example.safetensors \
    --dump build/release/d2l_example.trace.safetensors
