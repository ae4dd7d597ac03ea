#!/usr/bin/env bash
# make/venv.sh VENV PYTHON EXPLICIT VERSIONS...: make sure VENV exists and runs a supported Python.
# `make setup` runs it before pip. VERSIONS is the Makefile's SUPPORTED_PYTHONS (pyproject's
# requires-python says the same range; tests/test_project_metadata.py checks that they agree).
#  - VENV missing: check PYTHON first (a clear message, not pip's ResolutionImpossible), then create it.
#  - VENV made by an unsupported or broken interpreter (a failed try with Python 3.10): rebuild it
#    with PYTHON. It holds only installed packages, never a student's work.
#  - VENV made by another supported interpreter: kept, unless PYTHON=... was given on the command
#    line (EXPLICIT=yes) and names another version: rebuilt with it.
set -u
venv=$1 python=$2 explicit=$3
shift 3
supported=" $* "
range="$1–${!#}"

version_of() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }

check_python() {
  local have
  have=$(version_of "$python") || have=""
  if [ -z "$have" ]; then
    echo "make setup: cannot run '$python'. The course needs Python $range."
  elif [[ "$supported" != *" $have "* ]]; then
    echo "make setup: '$python' is Python $have; the course needs Python $range."
  else
    return 0
  fi
  echo "Install one, then run: make setup PYTHON=python3.12 (the name of the one you installed)"
  echo "  Ubuntu 22.04: sudo apt install python3.11 python3.11-venv   (or the deadsnakes PPA for 3.12)"
  echo "  macOS: brew install python@3.12;  Windows: use WSL, or python.org's installer"
  echo "  anywhere: uv python install 3.12 (https://docs.astral.sh/uv/), or conda (docs/students.md)"
  exit 1
}

if [ -e "$venv" ]; then
  had=$(version_of "$venv/bin/python") || had=""
  if [ -z "$had" ] || [[ "$supported" != *" $had "* ]]; then
    check_python
    made_by="Python $had"
    [ -n "$had" ] || made_by="an interpreter that no longer runs"
    echo "make setup: $venv was made by $made_by; rebuilding it with $python"
    rm -rf "$venv"
  elif [ "$explicit" = yes ] && [ "$(version_of "$python")" != "$had" ]; then
    check_python
    echo "make setup: $venv has Python $had; rebuilding it with $python ($(version_of "$python"))"
    rm -rf "$venv"
  fi
fi
if [ ! -e "$venv" ]; then
  check_python
  echo "Creating $venv with $python (Python $(version_of "$python"))"
  "$python" -m venv "$venv" || {
    echo "make setup: '$python -m venv' failed. On Debian/Ubuntu install the venv module:"
    echo "  sudo apt install python$(version_of "$python")-venv"
    rm -rf "$venv"
    exit 1
  }
fi
