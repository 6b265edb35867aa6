#!/usr/bin/env bash
# Installs what is missing, builds the release preset and starts the AttnViz desktop app on its
# bundled demo sentence. Without a display it runs the command-line engine on the bundled D2L case
# instead, so the command still shows something useful over ssh.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
    exec build/release/bin/attnviz "$@"
fi
echo "run-demo: no display; running attnviz-cli on the bundled D2L example instead" >&2
exec build/release/bin/attnviz-cli mha resources/examples/d2l_example.safetensors \
    --dump build/release/d2l_example.trace.safetensors
