#!/usr/bin/env bash
# Create bench/.venv-dspy with DSPy for the peer benchmark (bench/peers/dspy_compile.py).
#
# Why a separate virtual env: DSPy talks to models through litellm, which needs openai<3, while the
# product pins openai>=3.31. DSPy is a benchmark peer, never a dependency, so it lives apart.
# Everything comes from PyPI; versions are pinned so that runs compare like with like.
#
#   bash bench/peers/setup_dspy.sh            # idempotent: reuses the venv when the pins already match
#   PYTHON=python3.12 bash bench/peers/setup_dspy.sh
set -euo pipefail

DSPY_VERSION="3.4.1"
GEPA_VERSION="0.1.4"     # DSPy 3.4.1 pins gepa[dspy]==0.1.4 itself; named here so the check below sees it
OPTUNA_VERSION="4.5.0"   # MIPROv2 needs the optional optuna (dspy[optuna]); pinned so its sampler cannot change

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(cd "$here/.." && pwd)/.venv-dspy"
python="${PYTHON:-python3.11}"

if [ ! -x "$venv/bin/python" ]; then
    echo ">> creating $venv with $python"
    "$python" -m venv "$venv"
fi

if "$venv/bin/python" - "$DSPY_VERSION" "$GEPA_VERSION" "$OPTUNA_VERSION" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(0 if (version("dspy"), version("gepa"), version("optuna")) == tuple(sys.argv[1:4]) else 1)
PY
    echo ">> dspy==$DSPY_VERSION, gepa==$GEPA_VERSION and optuna==$OPTUNA_VERSION already installed in $venv"
    exit 0
fi

echo ">> installing dspy==$DSPY_VERSION gepa==$GEPA_VERSION optuna==$OPTUNA_VERSION into $venv (about 30 s)"
"$venv/bin/pip" install --quiet --progress-bar off "dspy==$DSPY_VERSION" "gepa==$GEPA_VERSION" "optuna==$OPTUNA_VERSION"
"$venv/bin/python" -c "import dspy, gepa, optuna; print('>> ok: dspy', dspy.__version__, 'optuna', optuna.__version__)"
