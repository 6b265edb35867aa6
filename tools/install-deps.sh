#!/usr/bin/env bash
# Installs every Debian package AttnViz needs to build, test (clang 14 for the fuzzers; Chromium
# and ChromeDriver for the web page's browser test) and run.
# Idempotent: it asks apt only for what is missing, so a second run costs a few dpkg queries. Run
# as root on Debian 12.
#   tools/install-deps.sh            build, test and run
#   tools/install-deps.sh --torch    also PyTorch + OpenBLAS(OpenMP), Pillow and the KJV text, to
#                                    regenerate reference data, retrain the demo models and run the
#                                    speed comparisons
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    libeigen3-dev nlohmann-json3-dev libcli11-dev libonig-dev libutf8proc-dev
    libpng-dev libjpeg62-turbo-dev
    qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl1-mesa-dev
    qt6-tools-dev qt6-l10n-tools qt6-translations-l10n fonts-wqy-microhei
    libgtest-dev libgmock-dev libbenchmark-dev
    xvfb xauth fonts-dejavu-core fonts-cmu poppler-utils librsvg2-bin python3-numpy
    clang-14 libclang-rt-14-dev libomp-14-dev clang-format-14
    chromium chromium-driver
)
if [[ "${1:-}" == "--torch" ]]; then
    packages+=(python3-torch libopenblas0-openmp bible-kjv python3-pil)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]} == 0)); then
    echo "install-deps: all ${#packages[@]} packages present"
    exit 0
fi

if [[ $EUID -ne 0 ]]; then
    echo "install-deps: missing packages ${missing[*]}; run this script as root to install them" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
