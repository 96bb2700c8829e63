"""``chrysalis doctor``'s model and keys sections: can the configured model be called, can approvals be signed.

The model section checks what ``build_model`` would need, without loading anything heavy: for
``local:NAME`` the weights file and whether llama-cpp-python is installed (``find_spec``, not an
import: importing it loads llama.cpp); for a provider its key variable. A ``base_url`` (or Ollama's
URL) is probed only when it is on this machine, by a TCP connect with no request: doctor never
sends anything to a remote server, so running it leaks no key and costs nothing, and a remote
URL is reported as "not checked". ``model = "auto"`` checks every candidate ``auto`` chooses among.
"""

from __future__ import annotations

import os
import stat
from importlib.util import find_spec
from typing import Any

from chrysalis.cli.doctor.sections import Problem, Section, is_loopback, loopback_answers
from chrysalis.config import DEFAULT_MODEL, Settings
from chrysalis.errors import ChrysalisError
from chrysalis.llm.local.catalog import LOCAL_MODELS, get_local_model
from chrysalis.llm.local.weights import is_cached, weights_path
from chrysalis.llm.names import ModelName
from chrysalis.llm.providers import DEFAULT_OLLAMA_URL, KEY_VARS
from chrysalis.runtime.keys import PASSPHRASE_VAR, PRIVATE_NAME, PUBLIC_NAME, is_encrypted, keys_dir, load_private

__all__ = ["keys_section", "model_section"]

_LLAMA_FIX = (
    "make setup in a checkout (it builds llama.cpp with the right flags), or pip install 'chrysalis-forge[local]'"
)


def model_section(settings: Settings) -> Section:
    """The configured model (each of ``auto``'s candidates), and whether each can be called here."""
    source = settings.sources.get("model", "default")
    specs, problems = [settings.model], []
    if settings.model == "auto":
        from chrysalis.llm.routing import auto_candidates

        try:
            specs = list(auto_candidates(settings))
        except ChrysalisError as exc:
            specs = []
            problems.append(
                Problem(
                    f"model 'auto' cannot choose: {exc}",
                    "set auto_models in the config file `chrysalis config show` names, or give --model provider:name",
                )
            )
    checked = [_check_model(spec, settings) for spec in specs]
    problems += [problem for _entry, found in checked for problem in found]
    entries = [entry for entry, _found in checked]
    lines = [f"model: {settings.model} ({source})" + (f", base_url {settings.base_url}" if settings.base_url else "")]
    lines += [f"  {_describe(entry)}" for entry in entries]
    facts = {"configured": settings.model, "source": source, "base_url": settings.base_url, "models": entries}
    return Section(facts, lines, problems)


def _check_model(spec: str, settings: Settings) -> tuple[dict[str, Any], list[Problem]]:
    try:
        name = ModelName.parse(spec, base_url=settings.base_url)
    except ChrysalisError as exc:
        return {"model": spec}, [
            Problem(str(exc), f"--model provider:name or CHRYSALIS_MODEL, e.g. --model {DEFAULT_MODEL}")
        ]
    entry: dict[str, Any] = {"model": spec, "provider": name.provider}
    if name.provider == "local":
        return entry, _check_local(name, settings, entry)
    problems: list[Problem] = []
    var = KEY_VARS.get(name.provider)
    if var is not None:
        entry["key_var"], entry["key_set"] = var, bool(os.environ.get(var, "").strip())
        if not entry["key_set"]:
            fix = f"export {var}=<your key>, or choose another model: --model {DEFAULT_MODEL}"
            problems.append(Problem(f"{var} is not set, so {spec} cannot be called", fix))
    url = _endpoint(name, settings)
    if url is not None:
        problems += _check_url(url, entry)
    return entry, problems


def _check_local(name: ModelName, settings: Settings, entry: dict[str, Any]) -> list[Problem]:
    try:
        info = get_local_model(name.name)
    except ChrysalisError as exc:
        return [Problem(str(exc), f"--model {' or --model '.join(f'local:{n}' for n in LOCAL_MODELS)}")]
    path = weights_path(info, settings.home)
    entry["weights"], entry["weights_present"] = str(path), is_cached(info, settings.home)
    entry["llama_runtime"] = find_spec("llama_cpp") is not None
    problems = []
    if not entry["weights_present"]:
        fix = f"chrysalis models fetch local:{name.name}"
        if f"local:{name.name}" == DEFAULT_MODEL:
            fix += " (or make weights in a checkout)"
        problems.append(Problem(f"the weights of local:{name.name} are not at {path}", fix))
    if not entry["llama_runtime"]:
        problems.append(Problem("llama-cpp-python is not installed, so the embedded model cannot run", _LLAMA_FIX))
    return problems


def _endpoint(name: ModelName, settings: Settings) -> str | None:
    """The URL the model is called at, when it is not a provider's own fixed one."""
    if name.provider == "ollama":
        return settings.base_url or os.environ.get("OLLAMA_BASE_URL") or DEFAULT_OLLAMA_URL
    return settings.base_url


def _check_url(url: str, entry: dict[str, Any]) -> list[Problem]:
    entry["url"] = url
    if not is_loopback(url):
        entry["reachable"] = None  # doctor sends nothing to other machines
        return []
    why = loopback_answers(url)
    entry["reachable"] = why is None
    if why is None:
        return []
    return [
        Problem(
            f"nothing answers at {url} ({why})",
            "start the model server there (e.g. ollama serve, or "
            "llama-server --port N), or point --base-url / CHRYSALIS_BASE_URL at where it runs",
        )
    ]


def _describe(entry: dict[str, Any]) -> str:
    parts = [str(entry["model"])]
    if "weights_present" in entry:
        parts.append(f"weights {'present' if entry['weights_present'] else 'missing'} ({entry['weights']})")
        parts.append(f"llama runtime {'installed' if entry['llama_runtime'] else 'missing'}")
    if "key_var" in entry:
        parts.append(f"{entry['key_var']} {'set' if entry['key_set'] else 'NOT set'}")
    if "url" in entry:
        state = {None: "not checked (not this machine)", True: "answers", False: "does not answer"}[entry["reachable"]]
        parts.append(f"{entry['url']} {state}")
    return "; ".join(parts)


def keys_section(settings: Settings) -> Section:
    """The Ed25519 approval key pair (present, private half mode 600, encrypted or not) and the provider keys set."""
    folder = keys_dir(settings.home)
    private, public = folder / PRIVATE_NAME, folder / PUBLIC_NAME
    provider_keys = {var: bool(os.environ.get(var, "").strip()) for var in KEY_VARS.values()}
    facts: dict[str, Any] = {
        "approval_private": str(private),
        "approval_present": private.is_file() and public.is_file(),
        "provider_keys": provider_keys,
    }
    problems: list[Problem] = []
    if not private.is_file():
        problems.append(
            Problem(
                f"no approval key at {private}: signed approvals (chrysalis approve, durable runs "
                "that wait for one) cannot be made",
                "chrysalis keys init",
            )
        )
    else:
        problems += _private_key(settings, facts)
        if not public.is_file():
            problems.append(
                Problem(
                    f"the public half {public} is missing", "chrysalis keys init (it restores it from the private key)"
                )
            )
    state = "present" if facts["approval_present"] else "missing"
    set_keys = [var for var, present in provider_keys.items() if present]
    lines = [f"keys: approval key pair {state} ({folder})"]
    if "approval_encrypted" in facts:
        lines.append(f"  private key: {_encryption_line(facts)}")
    lines.append(f"  provider keys set: {', '.join(set_keys) or 'none'}")
    return Section(facts, lines, problems)


def _private_key(settings: Settings, facts: dict[str, Any]) -> list[Problem]:
    """The private key's mode and encryption into ``facts``; that CHRYSALIS_KEY_PASSPHRASE, when set, unlocks it."""
    private = keys_dir(settings.home) / PRIVATE_NAME
    mode = stat.S_IMODE(private.stat().st_mode)
    facts["approval_mode"] = f"{mode:o}"
    if mode & 0o077:
        return [Problem(f"{private} has mode {mode:o}: others could read the approval key", f"chmod 600 {private}")]
    try:
        facts["approval_encrypted"] = is_encrypted(settings.home)
    except ChrysalisError as exc:  # unreadable: say so, with the fix the error carries
        return [Problem(str(exc).rstrip("."), f"chmod 600 {private} (as its owner)")]
    passphrase = os.environ.get(PASSPHRASE_VAR) or None
    facts["passphrase_var_set"] = passphrase is not None
    if not facts["approval_encrypted"] or passphrase is None:
        return []
    try:
        load_private(settings.home, lambda _path: passphrase)
    except ChrysalisError:
        return [
            Problem(
                f"{PASSPHRASE_VAR} does not unlock the encrypted approval key {private}",
                f"set {PASSPHRASE_VAR} to the passphrase given at `chrysalis keys init`, or unset it to be asked",
            )
        ]
    return []


def _encryption_line(facts: dict[str, Any]) -> str:
    if not facts["approval_encrypted"]:
        return "not encrypted (a new key can be: chrysalis keys init --passphrase)"
    source = f"from {PASSPHRASE_VAR}" if facts["passphrase_var_set"] else "asked in a terminal"
    return f"encrypted with a passphrase ({source})"
