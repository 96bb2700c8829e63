"""Redaction (issue 12, item 5): what counts as a secret, what does not, and that redacting is a fixed point.

The wiring (tool results, traces, ``--json``, the context store, the write refusal) is tested in
``test_redaction_wiring.py``; this module tests ``chrysalis.redact`` on its own.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chrysalis.redact import MARKER, Redactor, added_markers, current, env_secrets
from chrysalis.tools.base import truncate
from chrysalis.tools.text import number_lines

OPENAI = "sk-proj-Zq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob"
ANTHROPIC = "sk-ant-api03-Qw8Er5Ty2Ui9Op4As7Df1Gh6Jk3Lz0Xc"
GITHUB = "ghp_4fJk9Lm2Np7Qr5St8Uv1Wx3Yz6Ab0Cd9Ef2Gh"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
SLACK = "xoxb-2048-4096-Zq3xT9bLm2Vw8Rk5"
AWS_ID = "AKIAZ3XT9BLM2VW8RK5N"
AWS_SECRET = "Zq3xT9bLm2Vw8Rk5Np7Hs4/Jd6Fg1Yc0Ua9Ei3Ob+Q"
GOOGLE = "AIzaSyZq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Zq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob"
PEM_BODY = "MIIEowIBAAKCAQEAzq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob\nQw8Er5Ty2Ui9Op4As7Df1Gh6Jk3Lz0XcVb2Nm5Mq8"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
KNOWN = (OPENAI, ANTHROPIC, GITHUB, GITHUB_PAT, SLACK, AWS_ID, GOOGLE, JWT)
"""Secrets found by their shape alone, wherever they stand."""

FOUND = [
    # (text, the secret that must go, the marker that must appear)
    (f"OPENAI_API_KEY={OPENAI}\n", OPENAI, "[REDACTED:openai-key]"),
    (f"key: {ANTHROPIC}", ANTHROPIC, "[REDACTED:anthropic-key]"),
    (f"git remote set-url origin https://{GITHUB}@github.com/o/r", GITHUB, "[REDACTED:github-token]"),
    (f"token {GITHUB_PAT}", GITHUB_PAT, "[REDACTED:github-token]"),
    (f"SLACK={SLACK}", SLACK, "[REDACTED:slack-token]"),
    (f"aws_access_key_id = {AWS_ID}", AWS_ID, "[REDACTED:aws-access-key-id]"),
    (f"[default]\naws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET, "[REDACTED:secret]"),
    (f'maps.init("{GOOGLE}")', GOOGLE, "[REDACTED:google-api-key]"),
    (f"cookie: session={JWT}; path=/", JWT, "[REDACTED:jwt]"),
    (PEM, PEM_BODY.splitlines()[0], "[REDACTED:private-key]"),
    ("curl -H 'Authorization: Bearer q3xT9bLm2Vw8Rk5Np7Hs4' api", "q3xT9bLm2Vw8Rk5Np7Hs4", "[REDACTED:authorization]"),
    ("> authorization: bearer q3xT9bLm2Vw8Rk5Np7Hs4", "q3xT9bLm2Vw8Rk5Np7Hs4", "[REDACTED:bearer-token]"),
    ("Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "[REDACTED:authorization]"),
    ("postgres://app:Vx7pQ2mZk9@db:5432/app", "Vx7pQ2mZk9", "postgres://app:[REDACTED:url-password]@db"),
    ('{"api_key": "q3xT9bLm2Vw8"}', "q3xT9bLm2Vw8", '{"api_key": "[REDACTED:secret]"}'),
    ("password = 'hunter2hunter2'", "hunter2hunter2", "password = '[REDACTED:secret]'"),
    ("export DEPLOY_TOKEN=correcthorsebattery\n", "correcthorsebattery", "DEPLOY_TOKEN=[REDACTED:secret]"),
    ("  3| STRIPE_KEY=rk_live_Zq3xT9bLm2Vw8Rk5", "rk_live_Zq3xT9bLm2Vw8Rk5", "STRIPE_KEY=[REDACTED:secret]"),
    ("db:\n  password: s3cr3t-Pa55\n", "s3cr3t-Pa55", "password: [REDACTED:secret]"),
    ("client_secret := 'Zq3xT9bLm2Vw8Rk5'", "Zq3xT9bLm2Vw8Rk5", "[REDACTED:secret]"),
    (f"token = {GITHUB}", GITHUB, "token = [REDACTED:github-token]"),
]


@pytest.mark.parametrize(("text", "secret", "marker"), FOUND, ids=[m for _, _, m in FOUND])
def test_each_kind_of_secret_is_replaced_by_its_marker(text: str, secret: str, marker: str) -> None:
    redacted = Redactor().text(text)
    assert secret not in redacted
    assert marker in redacted


ORDINARY = [
    "commit 3f2a9c1e0b7d4e5f6a7b8c9d0e1f2a3b4c5d6e7f\nAuthor: Ada <ada@example.com>",
    "run_id = 123e4567-e89b-12d3-a456-426614174000",
    "sha256: cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    "PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='",
    "The token is checked before the secret key is used; pass the password through the environment.",
    "max_tokens = 1000\nsort_key = 'created_at'\ntokens = tokenizer(text)\ncache_key = f'{user}:{day}'",
    "def login(password: str, token: str | None = None) -> None:\n    self.token = token\n",
    "api_key = os.environ['OPENAI_API_KEY']\nsecret = settings.secret_value\npassword = getpass.getpass()",
    "client = OpenAI(api_key=api_key, base_url=base_url)\n    eos_token=_token_text(llama, llama.token_eos()),",
    "headers = {'Authorization': f'Bearer {token}'}\nrequest.headers['Authorization'] = auth_token",
    'KEY_VARS = {"openai": "OPENAI_API_KEY"}\nTRUST_KEY = "trusted_folders"\n"input_token": "nextToken"',
    "docs: scheme://user:password@host and https://user:pass@example.com/path",
    "git@github.com:org/repo.git http://localhost:8080/a@b ssh://host:22/x",
    'password = "${DB_PASSWORD}"\ntoken: "<your-token>"\nsecret: "{{ secrets.DEPLOY }}"\napi_key="changeme"',
    "task-runner-configuration-abcdefghij1 pip install scikit-learn disk-0123456789abcdefghijk",
    "CHRYSALIS_LEVEL=3\nCHRYSALIS_MODEL=openai:gpt-4o-mini\nAWS_REGION=eu-west-1",
    '_X509_SUBJECT_TOKEN_TYPE = "urn:openai:params:oauth:token-type:x509"',
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    'path.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")  # a header alone holds nothing',
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_code_and_prose_are_left_alone(text: str) -> None:
    assert Redactor().text(text) == text
    assert Redactor().text(number_lines(text.splitlines(), 1)) == number_lines(text.splitlines(), 1)


def test_chrysalis_own_source_is_left_alone() -> None:
    """A false positive costs the model a line it cannot copy into an edit: none in our own code."""
    from pathlib import Path

    import chrysalis

    redactor = Redactor()
    changed = []
    for path in sorted(Path(chrysalis.__file__).parent.rglob("*.py")):
        text = path.read_text()
        if redactor.text(text) != text:
            changed.append(path.name)
    assert changed == []


def test_a_private_key_is_redacted_whole_cut_short_or_only_its_end() -> None:
    redactor = Redactor()
    numbered = number_lines(f"x = 1\n{PEM}\ny = 2".splitlines(), 1)
    assert redactor.text(numbered) == "   1| x = 1\n   2| [REDACTED:private-key]\n   6| y = 2"
    head = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + PEM_BODY + "\n[... truncated 900 characters ...]\nrest"
    assert redactor.text(head) == "[REDACTED:private-key]\n[... truncated 900 characters ...]\nrest"
    tail = "[... truncated 900 characters ...]\n" + PEM_BODY + "\n-----END OPENSSH PRIVATE KEY-----\nnext"
    assert redactor.text(tail) == "[... truncated 900 characters ...]\n[REDACTED:private-key]\nnext"
    encrypted = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\n" + PEM_BODY
    assert redactor.text(encrypted) == "[REDACTED:private-key]"


def test_a_key_cut_in_the_middle_by_truncate_leaves_nothing_of_it() -> None:
    long_key = "-----BEGIN PRIVATE KEY-----\n" + "\n".join([PEM_BODY] * 200) + "\n-----END PRIVATE KEY-----\n"
    cut = truncate(long_key, 2000)
    assert "truncated" in cut
    redacted = Redactor().text(cut)
    assert all(line not in redacted for line in PEM_BODY.splitlines())


def test_environment_secrets_are_found_by_name_and_value() -> None:
    environ = {
        "OPENAI_API_KEY": OPENAI,
        "DB_PASSWORD": "hunter2hunter2",
        "CHRYSALIS_API_TOKEN": "chrysalis-token-value-1",
        "MY_SECRET": "short",
        "FEATURE_TOKEN_ENABLED": "true",
        "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.42",
        "AWS_REGION": "eu-west-1",
        "CHRYSALIS_MODEL": "openai:gpt-4o-mini",
        "CHRYSALIS_LEVEL": "3",
        "HOME": "/root",
        "SESSION_TIMEOUT_KEY": "86400000",
    }
    assert env_secrets(environ) == {
        OPENAI: "OPENAI_API_KEY",
        "hunter2hunter2": "DB_PASSWORD",
        "chrysalis-token-value-1": "CHRYSALIS_API_TOKEN",
    }
    redactor = Redactor(env_secrets(environ))
    assert redactor.text("use hunter2hunter2 with gpt-4o-mini") == "use [REDACTED:DB_PASSWORD] with gpt-4o-mini"
    assert redactor.text(f"echo {OPENAI}") == "echo [REDACTED:OPENAI_API_KEY]"


def test_a_secret_that_would_match_a_marker_is_not_used() -> None:
    """An env value such as ``private-key`` would be redacted inside every marker, forever."""
    redactor = Redactor({"private-key": "MY_SECRET", "MY_TOKEN_NAME": "MY_TOKEN_NAME", "abcdefgh12": "MY_TOKEN_NAME"})
    assert redactor.text(PEM) == "[REDACTED:private-key]"
    assert redactor.text("abcdefgh12") == "[REDACTED:MY_TOKEN_NAME]"


def test_current_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "svc-Zq3xT9bLm2")
    assert current().text("t=svc-Zq3xT9bLm2") == "t=[REDACTED:SERVICE_TOKEN]"
    assert current() is current()  # built once per set of secrets
    monkeypatch.delenv("SERVICE_TOKEN")
    assert current().text("t=svc-Zq3xT9bLm2") == "t=svc-Zq3xT9bLm2"


def test_values_are_walked_keeping_their_shape() -> None:
    redactor = Redactor({"hunter2hunter2": "DB_PASSWORD"})
    value = {
        "type": "tool_result",
        "ok": True,
        "duration_ms": 1.5,
        "result": [f"line {OPENAI}", ("hunter2hunter2", 3, None)],
        "args": {"password": "Tr0ub4dor&3", "path": ".env", "token": "nextToken"},
    }
    assert redactor.value(value) == {
        "type": "tool_result",
        "ok": True,
        "duration_ms": 1.5,
        "result": ["line [REDACTED:openai-key]", ("[REDACTED:DB_PASSWORD]", 3, None)],
        "args": {"password": "[REDACTED:secret]", "path": ".env", "token": "nextToken"},
    }


def test_added_markers_names_what_a_write_would_put_in_a_file() -> None:
    old = "A=[REDACTED:secret]\n"  # a file that really holds this text
    assert added_markers(old, old + "B=2\n") == []
    assert added_markers(old, old + "C=[REDACTED:openai-key]\n") == ["[REDACTED:openai-key]"]
    assert added_markers("", "x [REDACTED:secret] y [REDACTED:secret]") == ["[REDACTED:secret]"]
    assert added_markers("", "[REDACTED:] [not a marker]") == []


# -- Properties -----------------------------------------------------------------------------------

PROPS = settings(max_examples=150, deadline=None, database=None)
ENV_SECRET = "Vx7pQ2mZk9-env"
SEPARATORS = st.sampled_from([" ", "\n", "\t", "(", ")", '"', "'", ",", ";", "=", ": ", "\n  12| "])
NOISE = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)
CODEISH = st.text(alphabet="abcdefKEYTOKENkeytoken_=:-/.@'\" \n[]REDACTED0123456789sk", max_size=60)


@PROPS
@given(st.one_of(NOISE, CODEISH, st.sampled_from(KNOWN)), st.one_of(NOISE, CODEISH), st.one_of(NOISE, CODEISH))
def test_redacting_twice_changes_nothing(middle: str, before: str, after: str) -> None:
    redactor = Redactor({ENV_SECRET: "DB_PASSWORD"})
    once = redactor.text(before + middle + after)
    assert redactor.text(once) == once


@PROPS
@given(
    st.sampled_from([*KNOWN, PEM, ENV_SECRET]),
    st.one_of(NOISE, CODEISH),
    st.one_of(NOISE, CODEISH),
    SEPARATORS,
    SEPARATORS,
)
def test_no_known_secret_survives_in_any_text(secret: str, before: str, after: str, left: str, right: str) -> None:
    redactor = Redactor({ENV_SECRET: "DB_PASSWORD"})
    redacted = redactor.text(before + left + secret + right + after)
    assert secret not in redacted
    assert MARKER.search(redacted)


@PROPS
@given(st.one_of(NOISE, CODEISH), st.one_of(NOISE, CODEISH))
def test_an_environment_secret_goes_even_inside_a_word(before: str, after: str) -> None:
    redacted = Redactor({ENV_SECRET: "DB_PASSWORD"}).text(before + ENV_SECRET + after)
    assert ENV_SECRET not in redacted
