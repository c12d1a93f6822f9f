"""The API key goes only over https or to this machine, unless ``--allow-insecure-endpoint``: one check
(:func:`mirforge.models.endpoint.check_endpoint`) in the LLM client and at the boundary of generate, difficulty and
eval."""

from __future__ import annotations

import pytest

from mirforge.errors import InputError
from mirforge.models.endpoint import check_endpoint
from mirforge.models.factory import make_backend

from conftest import run_cli

pytest.importorskip("openai")

SAFE = [
    "https://api.example.com/v1",
    "http://127.0.0.1:8000/v1",
    "http://127.8.9.10/v1",
    "http://[::1]:8000/v1",
    "http://localhost:8000/v1",
    "HTTP://LOCALHOST/v1",
]
INSECURE = ["http://10.1.2.3:8000/v1", "http://gpu-box.lan:8000/v1", "http://[2001:db8::1]/v1", "http://128.0.0.1/v1"]
NOT_URLS = ["not a url", "ftp://host/v1", "http://", "127.0.0.1:8000/v1", "http://host:99999/v1", "https://a b/v1"]


@pytest.mark.parametrize("url", SAFE)
def test_https_and_loopback_endpoints_are_allowed(url):
    assert check_endpoint(url) == url


@pytest.mark.parametrize("url", INSECURE)
def test_plain_http_to_another_machine_needs_the_flag(url):
    with pytest.raises(InputError, match=r"^--base-url: .* plain http .* --allow-insecure-endpoint$"):
        check_endpoint(url)
    assert check_endpoint(url, allow_insecure=True) == url


@pytest.mark.parametrize("url", NOT_URLS)
def test_what_is_not_an_http_url_is_refused(url):
    with pytest.raises(InputError, match=r"^--base-url: .*(not a URL|not an http\(s\) URL)"):
        check_endpoint(url, allow_insecure=True)


@pytest.mark.parametrize("url", ["https://user:sk-secret@api.example.com/v1", "https://api.example.com/v1?key=sk"])
def test_credentials_in_the_url_are_refused(url):
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        check_endpoint(url)


def test_the_environment_endpoint_is_checked_too(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.9.9.9/v1")
    with pytest.raises(InputError, match="^OPENAI_BASE_URL: "):
        check_endpoint(None)
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert check_endpoint(None) == "https://api.openai.com/v1"


def test_the_client_refuses_before_sending_anything():
    with pytest.raises(InputError, match="plain http"):
        make_backend("openai", "m", base_url="http://10.1.2.3:8000/v1")
    backend = make_backend("openai", "m", base_url="http://10.1.2.3:8000/v1", allow_insecure_endpoint=True)
    backend.close()  # built, nothing sent: the client connects on the first request


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds") / "data"
    assert run_cli("generate", "--tasks", "view_3d", "--n", "1", "--out", str(out), "-q") == 0
    return out


COMMANDS = {
    "generate": ["generate", "--tasks", "view_3d", "--n", "1", "--out", "{tmp}/out", "--rewriter", "openai"],
    "generate-dry-run": ["generate", "--tasks", "view_3d", "--n", "1", "--dry-run", "--rewriter", "openai"],
    "difficulty": ["difficulty", "{data}", "--backend", "openai", "--out", "{tmp}/out/d.jsonl"],
    "eval": ["eval", "--data", "{data}", "--backend", "openai", "--out", "{tmp}/out"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://10.1.2.3:8000/v1", "plain http to another machine"),
        ("not a url", "is not an http(s) URL"),
        ("https://u:p@example.com/v1", "OPENAI_API_KEY"),
    ],
)
def test_generate_difficulty_and_eval_refuse_the_same_endpoints(dataset, tmp_path, capsys, command, url, message):
    args = [a.format(tmp=tmp_path, data=dataset) for a in COMMANDS[command]]
    assert run_cli(*args, "--model", "m", "--base-url", url) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --base-url: ") and message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_with_the_flag_an_insecure_endpoint_is_accepted_and_recorded(tmp_path, capsys):
    args = ["generate", "--tasks", "view_3d", "--n", "1", "--dry-run", "--rewriter", "openai", "--model", "m"]
    assert run_cli(*args, "--base-url", "http://10.1.2.3:8000/v1", "--allow-insecure-endpoint") == 0
    assert "view_3d" in capsys.readouterr().out
    from mirforge.runner.config import RunConfig

    options = {"tasks": "view_3d", "n": 1, "rewriter": "openai", "model": "m", "dry_run": True}
    config, _ = RunConfig.from_options({**options, "base_url": "http://10.1.2.3/v1", "allow_insecure_endpoint": True})
    assert config.rewriter["allow_insecure_endpoint"] is True
    config, _ = RunConfig.from_options({**options, "base_url": "https://x.org/v1", "allow_insecure_endpoint": True})
    assert "allow_insecure_endpoint" not in config.rewriter  # not needed, so not part of the split's identity
