#!/usr/bin/env bash
# Installs what is missing, builds the release preset and starts the AttnViz desktop app on its
# bundled demo (the trained reverse model on "attention"). Without a display it runs the same demo
# through attnviz-cli and exports its cross-attention heatmaps, so the command still shows
# something useful over ssh.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
    exec build/release/bin/attnviz "$@"
fi
echo "run-demo: no display; running the demo through attnviz-cli instead" >&2
mkdir -p build/release/demo
build/release/bin/attnviz-cli trace --model reverse --text attention --dump build/release/demo/trace.safetensors
build/release/bin/attnviz-cli export --model reverse --text attention --layers 1 --blocks cross \
    --format png --overwrite --out build/release/demo
echo "run-demo: the cross-attention heatmaps are in build/release/demo/ (layer1_cross_head*_weights.png)" >&2
