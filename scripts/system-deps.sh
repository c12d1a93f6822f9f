#!/usr/bin/env bash
# Installs the system libraries offscreen rendering needs (EGL + GL, Mesa's llvmpipe), when they are missing;
# with --browser also Debian's Chromium, which the gallery test drives headless (never a downloaded browser).
set -euo pipefail
need=()
if [ "${1:-}" = "--browser" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
fi
ldconfig -p | grep -q 'libEGL.so.1 ' || need+=(libegl1)
ldconfig -p | grep -q 'libGL.so.1 ' || need+=(libgl1)
ldconfig -p | grep -q 'libXrender.so.1 ' || need+=(libxrender1)
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || ls /usr/lib/*/dri/llvmpipe_dri.so >/dev/null 2>&1 \
  || need+=(libgl1-mesa-dri)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "installing system libraries: ${need[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
