"""Overhead peer: mini-swe-agent's ``DefaultAgent`` with ``LitellmModel`` and ``LocalEnvironment``, one process.

mini-swe-agent 2.x asks the model for native tool calls of one ``bash`` tool (``LitellmModel``; the
markdown-block protocol of 1.x lives on as ``LitellmTextbasedModel``) and runs each command in a
subprocess of ``LocalEnvironment``. So its tool step here is ``sed -n 'A,Bp' app.log`` in a fresh
shell, which costs a fork and exec that the in-process tools of the other rows do not pay: the table
in ``bench/overhead.py`` says so. It finishes the way mini does, with the scripted last call
``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``. The configuration is the ``mini`` command's own
``mini.yaml`` with the non-interactive ``DefaultAgent`` (as in mini's python-bindings example), no cost
limit, and litellm pointed at the scripted server as an OpenAI-compatible endpoint.
Runs in ``bench/peers/.venvs/mini``.
"""

from __future__ import annotations

import os
import tempfile

# Before mini or litellm are imported: no banner, no config written to the user's home, litellm's
# bundled model price map instead of a download, and no cost lookup for a model litellm cannot price.
os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
if "MSWEA_GLOBAL_CONFIG_DIR" not in os.environ:
    os.environ["MSWEA_GLOBAL_CONFIG_DIR"] = tempfile.mkdtemp(prefix="mswea-")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("MSWEA_COST_TRACKING", "ignore_errors")

# After the environment above, which mini and litellm read at import (ruff allows os.environ first).
import yaml
from minisweagent.agents import get_agent
from minisweagent.config import get_config_path
from minisweagent.environments import get_environment
from minisweagent.models import get_model
from overhead_common import TASK, parse_args, report


def main() -> None:
    """Run the task with mini's default agent, model and local environment."""
    args = parse_args(__doc__.splitlines()[0])
    config = yaml.safe_load(get_config_path("mini").read_text())
    agent_config = {**config["agent"], "agent_class": "default", "cost_limit": 0, "step_limit": args.steps + 5}
    agent_config.pop("mode", None)  # InteractiveAgent's confirm/yolo switch; DefaultAgent never asks
    model_kwargs = {**config["model"].get("model_kwargs", {}), "api_base": args.base_url, "api_key": "none"}
    model = get_model(config={**config["model"], "model_name": "openai/bench", "model_kwargs": model_kwargs})
    env = get_environment({**config["environment"], "cwd": str(args.workspace)}, default_type="local")
    agent = get_agent(model, env, agent_config)
    result = agent.run(TASK)
    tool_calls = sum(1 for message in agent.messages if message.get("role") == "tool")
    if result.get("exit_status") != "Submitted":
        raise SystemExit(f"mini-swe-agent ended with {result.get('exit_status')!r}: {result}")
    report(result.get("submission", "").strip(), tool_calls)


if __name__ == "__main__":
    main()
