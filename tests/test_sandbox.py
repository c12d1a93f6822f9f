"""User templates cannot reach Python internals; an API key in the environment never reaches a file or a log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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


BOMBS = {
    "lipsum": "{{ lipsum(n=10**7) }}",
    "nested ranges": "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "silent nested ranges": "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
    "string repeat": "{{ 'x' * 10**9 }}",
    "power": "{{ 10 ** 100000000 }}",
    "doubling by ~": "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "doubling by +": "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "percent width": "{{ '%999999999d' % 1 }}",
    "format filter width": "{{ '%999999999d'|format(1) }}",
    "str.format width": "{{ '{:>999999999}'.format(1) }}",
    "str.format nested width": "{{ '{:{}}'.format(1, 999999999) }}",
    "center filter": "{{ 'x'|center(10**9) }}",
    "ljust method": "{{ 'x'.ljust(10**9) }}",
    "join of a long range": "{{ range(100000)|join(',') }}",
    "long output": "{% for i in range(9000) %}ten chars.{% endfor %}",
}


@pytest.mark.parametrize("bomb", BOMBS.values(), ids=BOMBS.keys())
def test_a_template_that_would_exhaust_memory_or_time_is_stopped_at_once(facts, tmp_path, bomb):
    task, values, n_images = facts
    (tmp_path / task.name).mkdir()
    (tmp_path / task.name / "img2img.j2").write_text(f"Compare the panels. {bomb}")
    t0 = time.perf_counter()
    with pytest.raises(InputError) as caught:
        render_steps(task, values, n_images, np.random.default_rng(0), tmp_path)
    assert time.perf_counter() - t0 < 2
    message = str(caught.value)
    assert "img2img.j2" in message and "SecurityError" in message and "\n" not in message, message
    assert "limit" in message or "not allowed" in message, message


def test_the_limits_leave_ordinary_templates_alone(facts, tmp_path):
    task, values, n_images = facts
    (tmp_path / task.name).mkdir()
    ordinary = (
        "{% for k in range(3) %}{{ k }}{% endfor %} {{ 'a' ~ 'b' }} {{ '%5.2f' % 3.14159 }} {{ '{:>4}'.format(7) }} "
        "{{ 'x' * 3 }} {{ 2 ** 10 }} {{ [1, 2] + [3] }} {{ lipsum(1, false)|length > 0 }} {{ answer }}"
    )
    (tmp_path / task.name / "summary.j2").write_text(ordinary)
    steps = render_steps(task, values, n_images, np.random.default_rng(0), tmp_path)
    assert steps.summary == f"012 ab 3.14 7 xxx 1024 [1, 2, 3] True {values['answer']}"


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
