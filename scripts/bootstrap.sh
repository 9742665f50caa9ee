#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: system packages, npm
# dependencies, the three C builds and the script-tag bundle. Each step runs
# only when what it makes is missing or stale, so a second run costs ~1 s.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'bootstrap: %s\n' "$*" >&2; }

# 1. Debian packages (toolchains, Chromium, python3-onnx for test fixtures,
# clang-format-14 for the style check).
APT_PACKAGES=(cmake gcc clang-14 lld-14 emscripten binaryen wasi-libc libclang-rt-14-dev
  libclang-rt-14-dev-wasm32 chromium python3-onnx python3-numpy clang-format-14)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. npm dependencies, reinstalled only when package-lock.json changed.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f node_modules/.ortkeep-lock ] || [ "$(cat node_modules/.ortkeep-lock)" != "$lock_sum" ]; then
  log "npm ci"
  # onnxruntime-node (for `ortkeep prepare`) ships its CPU binaries in the npm
  # tarball; its postinstall would fetch CUDA EP libraries from nuget.org,
  # which is not reachable here (and not needed): its documented switch skips it.
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.ortkeep-lock
fi

# 3. The C core, three ways. Configure once; make rebuilds what changed.
export NODE_PATH=/usr/share/nodejs   # emcc's optimizer needs acorn from Debian
unset EM_CACHE                       # Debian's cache is frozen; never relocate it
for preset in native-asan wasm-wasi wasm-em; do
  if [ ! -f "build/$preset/CMakeCache.txt" ]; then
    log "configuring $preset"
    cmake --preset "$preset" >/dev/null
  fi
  cmake --build --preset "$preset" -j2 -- --no-print-directory >/dev/null || {
    log "build $preset failed"; cmake --build --preset "$preset" -j1; exit 1; }
done

# 3b. Capturing copies of onnxruntime-web's loaders (artifact forms), derived
# by exact patterns; remade only when missing or older than an input: the
# loaders, onnxruntime-web's package.json, the script, or the last npm ci.
capture_stale() {
  [ -f dist/ort-capture/manifest.json ] || return 0
  [ -n "$(find node_modules/.ortkeep-lock scripts/derive-capture-loader.mjs js/forms/loader-patch.js node_modules/onnxruntime-web/package.json \
    node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded*.mjs -newer dist/ort-capture/manifest.json 2>/dev/null)" ]
}
if capture_stale; then
  log "deriving capturing loaders into dist/ort-capture/"
  node scripts/derive-capture-loader.mjs
fi

# 4. What the npm package ships: the core module and the script-tag bundle.
mkdir -p dist
for f in ortkeep-core.mjs ortkeep-core.wasm; do
  cmp -s "build/wasm-em/$f" "dist/$f" || cp "build/wasm-em/$f" "dist/$f"
done
# A classic script has no import.meta: the bundle's own URL stands in for
# it, so relative URLs resolve next to the bundle. In a page that is
# document.currentScript; a classic worker (importScripts) has none, so the
# URL is read from the stack of an Error made while the bundle runs.
IIFE_BANNER='var __ortkeepBundleUrl = (function () { try { if (typeof document !== "undefined" && document.currentScript) return document.currentScript.src; var m = /((?:https?|file):\/\/[^\s()]+?\.js)(?::\d+)*/.exec(new Error().stack || ""); return m ? m[1] : undefined; } catch (e) { return undefined; } })();'
# A bundle is remade when missing or older than a source of it.
bundle_stale() {
  [ ! -f "$1" ] || [ -n "$(find js dist/ortkeep-core.mjs scripts/bootstrap.sh -newer "$1" \( -name '*.js' -o -name '*.mjs' -o -name '*.sh' \))" ]
}
if bundle_stale dist/ortkeep.iife.js; then
  log "bundling dist/ortkeep.iife.js"
  node_modules/.bin/esbuild js/browser-global.js --bundle --format=iife --target=es2022 \
    --external:onnxruntime-web --external:'node:*' --log-level=error --minify \
    --banner:js="$IIFE_BANNER" \
    --define:import.meta.url=__ortkeepBundleUrl --outfile=dist/ortkeep.iife.js
fi
# The same as one ES module, for pages without a bundler (an import map, a
# CDN): one request instead of js/'s ~84 modules (~300 ms per page load here).
# Its import.meta.url is its own, so the relative URLs resolve as in js/.
if bundle_stale dist/ortkeep.mjs; then
  log "bundling dist/ortkeep.mjs"
  node_modules/.bin/esbuild js/index.js --bundle --format=esm --target=es2022 \
    --external:onnxruntime-web --external:'node:*' --log-level=error --minify --outfile=dist/ortkeep.mjs
fi
# The script-tag drop-ins: the same bundle, which also makes window.ort's
# InferenceSession ortkeep's (loaded after ort.min.js).
for dropin in onnxruntime-web; do
  out="dist/ortkeep-$dropin.iife.js"
  if bundle_stale "$out"; then
    log "bundling $out"
    node_modules/.bin/esbuild "js/dropin/global-$dropin.js" --bundle --format=iife --target=es2022 \
      --external:onnxruntime-web --external:'#onnxruntime-web' --external:'node:*' --log-level=error --minify \
      --banner:js="$IIFE_BANNER" \
      --define:import.meta.url=__ortkeepBundleUrl --outfile="$out"
  fi
done
