"""Running a module: one structured-output request, validated, retried once with the error.

The output fields become a pydantic model, offered to the provider as the output tool
``final_result`` (pydantic-ai's own convention), so every provider answers the same way: OpenAI and
Anthropic through native tool calls, the embedded model through the text protocol with decoding
constrained to the tool's JSON schema. A reply that breaks the signature goes back once with the
validation errors (as pydantic-ai does for tool retries); a second failure raises
``OutputValidationError`` naming the field.

The prompt is laid out for prefix reuse: instructions, field descriptions and demos form the
system message, the same for every input, and only the last user message changes. The embedded
model keeps that prefix in its KV cache, so evaluating a variant on a dev set pays for the demos once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pydantic

from chrysalis.errors import MalformedReplyError, ModelError, OutputValidationError
from chrysalis.evolve.prediction import CallStats, ModuleLike, Prediction
from chrysalis.evolve.signature import FieldSpec

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model

__all__ = ["DEFAULT_MAX_TOKENS", "OUTPUT_TOOL", "model_id", "render_system", "resolve_model", "run_module"]

OUTPUT_TOOL = "final_result"
DEFAULT_MAX_TOKENS = {"predict": 256, "chain-of-thought": 768}
"""Reply tokens per call unless the module's ``params`` say ``max_tokens``."""
_models: dict[tuple[str, str | None], Model] = {}


def resolve_model(model: str | Model | None) -> Model:
    """The pydantic-ai model to call: a ``Model`` as given, else a name built once per process.

    ``None`` means the model ``configure(model=...)`` set, or the settings' (``CHRYSALIS_MODEL``, a config
    file, or the embedded model by default). Built models are kept, so the embedded weights load once
    however many calls follow.
    """
    from pydantic_ai.models import Model as ModelBase

    if isinstance(model, ModelBase):
        return model
    from chrysalis.config import SettingFlags, library_flags, load_settings
    from chrysalis.llm.providers import build_model

    settings = load_settings(library_flags(SettingFlags(model=model)))
    key = (settings.model, settings.base_url)
    if key not in _models:
        _models[key] = build_model(settings)
    return _models[key]


def model_id(model: Model) -> str:
    """``provider:name`` for pricing and phenotypes (``local:qwen2.5-coder-0.5b``, ``function:fn``)."""
    return f"{model.system}:{model.model_name}"


async def run_module(module: ModuleLike, inputs: Mapping[str, Any], *, model: str | Model | None = None) -> Prediction:
    """Call ``module`` on ``inputs`` and return its validated prediction.

    Raises:
        ValueError: an input field is missing or unknown (the message lists the expected ones).
        OutputValidationError: the reply broke the signature twice; names the field.
        ModelError: the provider failed, or never gave a structured reply.
    """
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolReturnPart, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import ToolDefinition

    _check_inputs(module, inputs)
    chosen = resolve_model(model if model is not None else module.model)
    cot = module.strategy == "chain-of-thought"
    output_model = module.signature.output_model(reasoning=cot)
    tool = ToolDefinition(
        name=OUTPUT_TOOL,
        description=f"Give the output fields of {module.signature.__name__}.",
        parameters_json_schema=output_model.model_json_schema(),
        kind="output",
    )
    params = ModelRequestParameters(output_mode="tool", output_tools=[tool], allow_text_output=False)
    settings: ModelSettings = {"temperature": float(module.params.get("temperature", 0.0))}
    # A bound on every reply: a small model that starts repeating itself inside a JSON string would
    # otherwise write until the provider's limit, on every retry (measured: minutes per call).
    default_tokens = DEFAULT_MAX_TOKENS[module.strategy]
    settings["max_tokens"] = int(module.params.get("max_tokens", default_tokens))
    system = render_system(module)
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(system), UserPromptPart(render_inputs(module, inputs))])
    ]
    text_field: str | None = None  # set when the one string output is asked for as plain text
    started = time.monotonic()
    tokens_in = tokens_out = 0
    for attempt in (0, 1):
        try:
            response = await model_request(chosen, messages, model_settings=settings, model_request_parameters=params)
        except MalformedReplyError as exc:  # the output broke the schema in a way no retry fixed
            tokens_in += exc.input_tokens
            tokens_out += exc.output_tokens
            if attempt == 0 and _single_text_output(module):
                # One string wanted: ask for it as plain text (DSPy's way) rather than inside JSON,
                # where small models lose track of the quotes in values like "{'a': 1}".
                params = ModelRequestParameters(allow_text_output=True)
                text_field = module.signature.output_fields()[0].name
                ask = f"{render_inputs(module, inputs)}\n\nReply with the value of {text_field} only, as plain text."
                messages = [ModelRequest(parts=[SystemPromptPart(system), UserPromptPart(ask)])]
                continue
            failed = OutputValidationError(module.signature.__name__, None, None, [str(exc)])
            raise _priced(failed, chosen, started, tokens_in, tokens_out, attempt + 1) from exc
        except Exception as exc:
            from chrysalis.llm.providers import translate_model_error

            error = translate_model_error(exc)
            if error is None:
                raise
            raise error from exc
        tokens_in += response.usage.input_tokens
        tokens_out += response.usage.output_tokens
        args, call_id = _output_args(response, text_field)
        try:
            if args is None:
                raise ValueError("the reply held no output fields")
            validated = output_model.model_validate(args)
        except (pydantic.ValidationError, ValueError) as exc:
            if attempt == 1:
                failed = _validation_error(module, args, exc)
                raise _priced(failed, chosen, started, tokens_in, tokens_out, attempt + 1) from exc
            feedback = _feedback(exc)
            retry = (
                ToolReturnPart(tool_name=OUTPUT_TOOL, content=feedback, tool_call_id=call_id, outcome="retried")
                if call_id
                else UserPromptPart(feedback)
            )
            messages += [response, ModelRequest(parts=[retry])]
            continue
        return _prediction(validated, chosen, started, tokens_in, tokens_out, attempt, cot)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def _check_inputs(module: ModuleLike, inputs: Mapping[str, Any]) -> None:
    expected = [f.name for f in module.signature.input_fields()]
    missing = [name for name in expected if name not in inputs]
    unknown = [name for name in inputs if name not in expected]
    if missing or unknown:
        parts = ([f"missing {missing}"] if missing else []) + ([f"unknown {unknown}"] if unknown else [])
        raise ValueError(f"{module.signature.__name__} takes the inputs {expected}: {', '.join(parts)}")


def render_system(module: ModuleLike) -> str:
    """The system message: instructions, what each field holds, and the demos."""
    sig = module.signature
    lines = [module.instructions.strip(), "", "Inputs:"]
    lines += [_describe(f) for f in sig.input_fields()]
    lines.append("Outputs:")
    if module.strategy == "chain-of-thought":
        lines.append("- reasoning (str): think step by step, briefly, before the other outputs")
    lines += [_describe(f) for f in sig.output_fields()]
    for i, demo in enumerate(module.demos, 1):
        lines += ["", f"Example {i}:"]
        lines += [f"{f.name}: {_show(demo[f.name])}" for f in sig.fields]
    return "\n".join(lines)


def render_inputs(module: ModuleLike, inputs: Mapping[str, Any]) -> str:
    """The user message: one ``name: value`` line per input field."""
    return "\n".join(f"{f.name}: {_show(inputs[f.name])}" for f in module.signature.input_fields())


def _describe(spec: FieldSpec) -> str:
    desc = f": {spec.desc}" if spec.desc else ""
    return f"- {spec.name} ({spec.type_text}){desc}"


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _single_text_output(module: ModuleLike) -> bool:
    outputs = module.signature.output_fields()
    return module.strategy == "predict" and len(outputs) == 1 and outputs[0].annotation is str


def _output_args(response: ModelResponse, text_field: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The output tool's arguments (or a JSON object written as text), and the call's id.

    ``text_field`` names the one string output when plain text was asked for: the text is its value.
    """
    from pydantic_ai.messages import TextPart, ToolCallPart

    for part in response.parts:
        if isinstance(part, ToolCallPart) and part.tool_name == OUTPUT_TOOL:
            try:
                return part.args_as_dict(), part.tool_call_id
            except ValueError:
                return None, part.tool_call_id
    for part in response.parts:
        if isinstance(part, TextPart):
            try:
                value = json.loads(part.content)
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                return value, None
            if text_field is not None:
                return {text_field: part.content.strip()}, None
    if not response.parts:
        raise ModelError("The model returned an empty reply to a structured-output request.")
    return None, None


def _feedback(exc: Exception) -> str:
    if isinstance(exc, pydantic.ValidationError):
        return "Fix these fields and call final_result again:\n" + "\n".join(_error_lines(exc))
    return f"{exc}; call {OUTPUT_TOOL} with every output field."


def _error_lines(exc: pydantic.ValidationError) -> list[str]:
    return [f"- {'.'.join(map(str, e['loc'])) or 'output'}: {e['msg']} (got {e.get('input')!r})" for e in exc.errors()]


def _validation_error(module: ModuleLike, args: dict[str, Any] | None, exc: Exception) -> OutputValidationError:
    name = module.signature.__name__
    if isinstance(exc, pydantic.ValidationError):
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else None
        value = (args or {}).get(field) if field else args
        return OutputValidationError(name, field, value, [line[2:] for line in _error_lines(exc)])
    return OutputValidationError(name, None, args, [str(exc)])


def _priced(
    error: OutputValidationError, model: Model, started: float, tokens_in: int, tokens_out: int, calls: int
) -> OutputValidationError:
    """Attach what the failed call cost, so callers that keep budgets can count it."""
    from chrysalis.llm.pricing import cost_usd

    error.calls = calls
    error.input_tokens = tokens_in
    error.output_tokens = tokens_out
    error.cost_usd = cost_usd(model_id(model), tokens_in, tokens_out)
    error.latency_ms = (time.monotonic() - started) * 1000
    return error


def _prediction(
    validated: pydantic.BaseModel,
    model: Model,
    started: float,
    tokens_in: int,
    tokens_out: int,
    retries: int,
    cot: bool,
) -> Prediction:
    from chrysalis.llm.pricing import cost_usd

    name = model_id(model)
    outputs = validated.model_dump()
    reasoning = outputs.pop("reasoning", None) if cot else None
    stats = CallStats(
        latency_ms=(time.monotonic() - started) * 1000,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost_usd=cost_usd(name, tokens_in, tokens_out),
        model=name,
        retries=retries,
    )
    return Prediction(outputs, stats, reasoning=reasoning)
