#!/usr/bin/env bash
# Create one virtual env per peer of the overhead benchmark (bench/overhead.py) under bench/peers/.venvs/.
#
# Why one venv per peer: mini-swe-agent talks to models through litellm, which needs openai<3, while
# pydantic-ai-slim[openai] 2.68 (the product's pin) needs openai>=3.31; and each peer should be timed with
# only its own dependencies imported, as its users would run it. The peers are benchmark subjects, never
# dependencies of chrysalis. Everything comes from PyPI; versions are pinned so that runs compare like with
# like. The raw openai client and stock pydantic-ai use the same openai version as each other.
#
#   bash bench/peers/setup_overhead_peers.sh          # idempotent: a venv whose pins already match is skipped
#   bash bench/peers/setup_overhead_peers.sh openai   # only the named peers (openai pydantic-ai smolagents mini)
#   PYTHON=python3.12 bash bench/peers/setup_overhead_peers.sh
set -euo pipefail

OPENAI_VERSION="3.54.0"          # the raw client; also pinned under stock pydantic-ai and smolagents
PYDANTIC_AI_VERSION="2.68.0"     # the same version as pyproject.toml's pydantic-ai-slim pin
SMOLAGENTS_VERSION="1.26.0"
MINI_VERSION="2.4.6"             # mini-swe-agent
LITELLM_VERSION="1.106.2"        # what mini-swe-agent 2.4.6 resolves to here (1.109 needs an unreleased certifi)
MCP_VERSION="2.3.0"              # litellm's [mcp] extra: completion() with tools imports mcp, a missing dependency
MINI_OPENAI_VERSION="2.54.0"     # the openai version that litellm accepts

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venvs="$here/.venvs"
python="${PYTHON:-python3.11}"

# pip requirement specs per peer; the check below compares installed versions with the "==" pins.
declare -A SPECS=(
    [openai]="openai==$OPENAI_VERSION"
    [pydantic-ai]="pydantic-ai-slim[openai]==$PYDANTIC_AI_VERSION openai==$OPENAI_VERSION"
    [smolagents]="smolagents[openai]==$SMOLAGENTS_VERSION openai==$OPENAI_VERSION"
    [mini]="mini-swe-agent==$MINI_VERSION litellm[mcp]==$LITELLM_VERSION mcp==$MCP_VERSION openai==$MINI_OPENAI_VERSION"
)
# A module each driver imports, to prove the venv works after installing.
declare -A PROBES=([openai]="openai" [pydantic-ai]="pydantic_ai" [smolagents]="smolagents" [mini]="minisweagent")

mkdir -p "$venvs"
# The repository's .gitignore is not ours to edit: keep the venvs out of git from inside their folder.
printf '# peer venvs of bench/overhead.py, made by setup_overhead_peers.sh\n*\n' > "$venvs/.gitignore"

peers=("$@")
if [ ${#peers[@]} -eq 0 ]; then
    peers=(openai pydantic-ai smolagents mini)
fi

for peer in "${peers[@]}"; do
    if [ -z "${SPECS[$peer]+x}" ]; then
        echo "unknown peer '$peer': choose from ${!SPECS[*]}" >&2
        exit 2
    fi
    venv="$venvs/$peer"
    specs="${SPECS[$peer]}"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" - $specs <<'PY' 2>/dev/null; then
import re
import sys
from importlib.metadata import version

for spec in sys.argv[1:]:
    name, pinned = re.sub(r"\[.*\]", "", spec).split("==")
    if version(name) != pinned:
        sys.exit(1)
PY
        echo ">> $peer: already set up in $venv ($specs)"
        continue
    fi
    if [ ! -x "$venv/bin/python" ]; then
        echo ">> $peer: creating $venv with $python"
        "$python" -m venv "$venv"
    fi
    echo ">> $peer: installing $specs"
    # shellcheck disable=SC2086  # the specs are meant to split into separate arguments
    "$venv/bin/pip" install --quiet --progress-bar off --disable-pip-version-check $specs
    MSWEA_SILENT_STARTUP=1 MSWEA_GLOBAL_CONFIG_DIR="$venv/mswea-config" LITELLM_LOCAL_MODEL_COST_MAP=True \
        "$venv/bin/python" -c "import ${PROBES[$peer]}; print('>> $peer: ok')"
done
