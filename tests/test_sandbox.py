"""User templates cannot reach Python internals; an API key in the environment never reaches a file or a log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from mirforge.errors import InputError
from mirforge.task import Steps
from mirforge.templates import render_steps

from conftest import make_task, step_facts
from openai_server import OpenAIServer

ESCAPES = [
    "{{ ''.__class__.__mro__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ joiner.__init__.__globals__.os.environ }}",
    "{{ lipsum.__globals__['os'] }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ pick.__globals__ }}",
    "{{ pick.__code__ }}",
    "{{ range.__self__ }}",
    "{{ self.__init__.__globals__ }}",
    "{{ options.__class__.__base__.__subclasses__() }}",
    "{{ options.items.__self__.__class__ }}",
    "{{ ''|attr('__class__') }}",
    "{{ '{0.__class__.__mro__}'.format(answer) }}",
    "{{ '%s'.__mod__.__self__ }}",
    "{% for c in ().__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{% set ns = namespace() %}{{ ns.__dict__ }}",
    "{{ answer.__class__.__init__.__globals__ }}",
]


@pytest.fixture(scope="module")
def facts() -> tuple[Any, dict[str, Any], int]:
    task = make_task("yes_but")
    return (task, *step_facts(task, 0))


@pytest.mark.parametrize("escape", ESCAPES)
def test_sandbox_escapes_fail_with_a_clear_error(facts, tmp_path, escape):
    task, values, n_images = facts
    (tmp_path / task.name).mkdir()
    (tmp_path / task.name / "img2img.j2").write_text(f"Compare the panels. {escape}")
    with pytest.raises(InputError) as caught:
        render_steps(task, values, n_images, np.random.default_rng(0), tmp_path)
    message = str(caught.value)
    assert "img2img.j2" in message and str(tmp_path) in message and "\n" not in message
    assert any(word in message.lower() for word in ("security", "unsafe", "undefined")), message
    assert "<class" not in message and "<module" not in message and "environ" not in message.split(":", 2)[-1]


def test_ordinary_overrides_still_work(facts, tmp_path):
    task, values, n_images = facts
    (tmp_path / task.name).mkdir()
    (tmp_path / task.name / "summary.j2").write_text("Find the contradiction; the answer is {{ answer }}.")
    steps = render_steps(task, values, n_images, np.random.default_rng(0), tmp_path)
    assert isinstance(steps, Steps) and steps.summary == f"Find the contradiction; the answer is {values['answer']}."


@pytest.mark.slow
def test_an_escape_through_the_cli_is_exit_2_and_writes_no_instance(tmp_path):
    (tmp_path / "tpl" / "yes_but").mkdir(parents=True)
    (tmp_path / "tpl" / "yes_but" / "summary.j2").write_text("{{ cycler.__init__.__globals__.os.system('id') }}")
    out = tmp_path / "out"
    args = ["generate", "--tasks", "yes_but", "--n", "1", "-q", "--templates", str(tmp_path / "tpl"), "--out", str(out)]
    proc = subprocess.run([sys.executable, "-m", "mirforge", *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "Traceback" not in proc.stderr
    assert "summary.j2" in proc.stderr and "SecurityError" in proc.stderr
    assert not list(out.glob("instances/**/*.jsonl")) and not list(out.glob("images/**/*.png"))


SECRET = "sk-planted-7d1c9e0b4a2f4e55a1c3"


def test_a_planted_api_key_never_reaches_a_file_or_a_log(tmp_path):
    """A rewriter run (the key is sent to the endpoint), whose first request is refused, must leave no trace of it."""

    def respond(request: dict[str, Any], images: list) -> str:
        user = request["messages"][1]["content"]
        return json.dumps(json.loads(user.split("Original steps (JSON):\n", 1)[1]))

    env = {**os.environ, "OPENAI_API_KEY": SECRET, "HF_TOKEN": SECRET + "-hf", "ANTHROPIC_API_KEY": SECRET + "-a"}
    out = tmp_path / "out"
    with OpenAIServer(respond) as server:
        server.fail(401)
        args = ["generate", "--tasks", "yes_but", "--n", "2", "--shard-size", "1", "--out", str(out)]
        args += ["--rewriter", "openai", "--model", "m", "--base-url", server.url]
        proc = subprocess.run(
            [sys.executable, "-m", "mirforge", *args], capture_output=True, text=True, env=env, timeout=600
        )
        assert server.count >= 1, "the rewriter never called the endpoint"
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files, proc.stderr
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), f"the key is in {path.relative_to(out)}"
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
