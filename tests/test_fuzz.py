"""Fuzzed inputs (hypothesis): run configs, task configs, template overrides and corrupted datasets.

Every bad input must give a clear error naming the flag, field or file (an ``InputError``, exit code 2 from the
CLI), never a raw traceback, and must write nothing under a final name. The examples are derandomized, so CI
runs the same cases every time; ``pytest --hypothesis-show-statistics`` prints how many ran.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mirforge.errors import InputError, MirforgeError
from mirforge.registry import load
from mirforge.runner import prepare
from mirforge.runner.config import RunConfig
from mirforge.templates import STEP_FILES, render_steps
from mirforge.validate import validate_dataset

from conftest import make_task, step_facts, written

WORKING = ("view_3d", "yes_but", "image_puzzle", "chart_analysis", "weight_comparison", "scale_blur", "process_order")
FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)
cli_strings = st.one_of(
    st.text(max_size=16),
    st.sampled_from(["1", "0", "-1", "2,3,4", "2,3", "nan", "inf", "1e9", "true", "no", "", ",", "3,,4", " 5 ", "1_0"]),
)


def one_line_naming(message: str, names: list[str]) -> bool:
    return "\n" not in message.strip() and any(name in message for name in names)


# -- run configs -----------------------------------------------------------------------------------------------
@st.composite
def run_configs(draw) -> RunConfig:
    tasks = draw(st.lists(st.one_of(st.sampled_from(WORKING), st.text(max_size=8)), min_size=0, max_size=3))
    field_names = ["n_options", "max_tries", "objects_per_level", "margin", "keep_video", "nope"]
    task_config = draw(
        st.dictionaries(
            st.one_of(st.sampled_from(tasks or ["view_3d"]), st.text(max_size=5)),
            st.dictionaries(st.sampled_from(field_names), st.one_of(cli_strings, json_values), max_size=2),
            max_size=2,
        )
    )
    return RunConfig(
        tasks=tuple(tasks),
        n=draw(st.integers(-3, 10**5)),
        seed=draw(st.integers(-3, 2**70)),
        split=draw(st.one_of(st.sampled_from(["test", "train", "dev.1"]), st.text(max_size=6))),
        shard_size=draw(st.integers(-3, 10**5)),
        task_config=task_config,
        templates=draw(st.one_of(st.none(), st.text(max_size=10))),
        renderer=draw(st.one_of(st.sampled_from(["moderngl", "pyrender"]), st.text(max_size=8))),
        keep_video=draw(st.booleans()),
    )


@FUZZ
@given(config=run_configs())
def test_fuzzed_run_configs_are_accepted_or_refused_by_name(config):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        try:
            prepare(config, out)
        except InputError as exc:
            # a task list built in Python (not by --tasks) is refused by the registry: "unknown task 'x'"
            names = ["--", "unknown task", *(f"{t}." for t in config.tasks), *(f"{t}." for t in config.task_config)]
            assert one_line_naming(str(exc), names), str(exc)
        assert not out.exists(), "prepare wrote something"


# -- task configs ----------------------------------------------------------------------------------------------
@FUZZ
@given(task=st.sampled_from(WORKING), data=st.data())
def test_fuzzed_set_values_are_coerced_or_refused_by_field(task, data):
    cls = load(task)
    fields = [f.name for f in dataclasses.fields(cls.Config)]
    values = data.draw(
        st.dictionaries(st.one_of(st.sampled_from(fields), st.text(max_size=6)), cli_strings, min_size=1, max_size=3)
    )
    try:
        config = cls.configure(values)
    except InputError as exc:
        assert one_line_naming(str(exc), [f"{task}.{k}" for k in values] + [f"{task}."]), str(exc)
    else:
        config.validate()


@FUZZ
@given(task=st.sampled_from(WORKING), data=st.data())
def test_fuzzed_typed_task_config_values_are_refused_by_field(task, data):
    """Values as a schedule or a Python caller gives them: any JSON type, nested."""
    cls = load(task)
    fields = [f.name for f in dataclasses.fields(cls.Config)]
    values = data.draw(st.dictionaries(st.sampled_from(fields), json_values, min_size=1, max_size=3))
    try:
        cls.configure(values)
    except InputError as exc:
        assert one_line_naming(str(exc), [f"{task}.{k}" for k in values]), str(exc)


# -- template overrides ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def facts() -> tuple[Any, dict[str, Any], int]:
    task = make_task("yes_but")
    return (task, *step_facts(task, 0))


FRAGMENTS = [
    "plain text ",
    "{{ answer }}",
    "{{ options }}",
    "{{ pick('a', 'b') }}",
    "{{ i }}",
    "{{ nope }}",
    "{{ answer|box }}",
    "{{ answer|no_such_filter }}",
    "{{ 1/0 }}",
    "{{ 'a' ~ 3 }}",
    "{{ [1, 2][7] }}",
    "{{ pick() }}",
    "{{ answer.upper() }}",
    "{{ options.items() | list }}",
    "{% if answer %}yes{% endif %}",
    "{% for k in options %}{{ k }}{% endfor %}",
    "{% if %}",
    "{% for %}",
    "{% endfor %}",
    "{{",
    "}}",
    "{#",
    "{% raw %}",
    "{% include 'nope.j2' %}",
    "{% include 'summary.j2' %}",
    "{% extends 'summary.j2' %}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
    "{{ ''.__class__.__mro__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ range.__self__ }}",
    "{{ '{0.__class__}'.format(answer) }}",
    "{{ answer|attr('__class__') }}",
    "{% set x = namespace() %}{{ x.__dict__ }}",
    "{{ range(10**9)|list }}",
]


@st.composite
def template_files(draw) -> dict[str, bytes]:
    files = {}
    for step in draw(st.lists(st.sampled_from(STEP_FILES), min_size=1, max_size=3, unique=True)):
        parts = draw(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), min_size=1, max_size=4))
        data = "".join(parts).encode()
        if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:
            data = data + b"\xff\xfe bad utf-8"
        files[f"{step}.j2"] = data
    return files


@FUZZ
@given(files=template_files())
def test_fuzzed_template_overrides_give_a_clear_error_naming_the_template(facts, files):
    task, values, n_images = facts
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / task.name
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
        try:
            steps = render_steps(task, values, n_images, np.random.default_rng(0), Path(tmp))
        except MirforgeError as exc:
            message = str(exc)
            assert "\n" not in message and "Traceback" not in message, message
            assert task.name in message and any(f"{step}.j2" in message for step in STEP_FILES), message
        else:
            assert steps.summary is not None


# -- corrupted datasets ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """A small valid dataset, written in this process by the same shard function the executors run."""
    root = written(tmp_path_factory.mktemp("fuzz") / "data", RunConfig(tasks=("yes_but",), n=3, seed=1, shard_size=2))
    assert validate_dataset(root).ok
    return root


SHARDS = ["instances/yes_but/test/shard-00000.jsonl", "instances/yes_but/test/shard-00001.jsonl"]
FIELDS = ["id", "question", "images", "options", "answer", "caption", "regions", "difficulty", "provenance", "split"]


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
    }


def corrupt(root: Path, op: tuple) -> None:
    kind = op[0]
    if kind == "manifest":
        (root / "manifest.json").write_bytes(op[1])
        return
    if kind == "delete_image":
        images = sorted((root / "images").rglob("*.png"))
        images[op[1] % len(images)].unlink(missing_ok=True)
        return
    if kind == "orphan_image":
        shutil.copy(next((root / "images").rglob("*.png")), root / "images/yes_but/test/999999-0.png")
        return
    if kind == "extra_shard":
        (root / "instances/yes_but/test/shard-99999.jsonl").write_bytes(op[1])
        return
    path = root / SHARDS[op[1] % len(SHARDS)]
    lines = path.read_bytes().splitlines()
    i = op[2] % len(lines)
    if kind == "truncate":
        lines[i] = lines[i][: op[3] % max(1, len(lines[i]))]
    elif kind == "bad_utf8":
        cut = op[3] % len(lines[i])
        lines[i] = lines[i][:cut] + b"\xc3\x28\xff" + lines[i][cut:]
    elif kind == "non_object":
        lines[i] = op[3]
    elif kind == "duplicate":
        other = root / SHARDS[(op[1] + 1) % len(SHARDS)]
        other.write_bytes(other.read_bytes() + lines[i] + b"\n")
    else:
        try:
            record = json.loads(lines[i])
        except ValueError:  # an earlier op broke this line already
            return
        if not isinstance(record, dict):
            return
        if kind == "set":
            record[op[3]] = op[4]
        elif kind == "drop":
            record.pop(op[3], None)
        elif kind == "slots":
            record["question"] = (
                record["question"].replace("<image>", "", 1) if op[3] else record["question"] + " <image>"
            )
        elif kind == "images":
            record["images"] = record["images"][:-1] if op[3] else [*record["images"], record["images"][0]]
        lines[i] = json.dumps(record, ensure_ascii=False).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")


corruptions = st.one_of(
    st.tuples(st.just("manifest"), st.one_of(st.binary(max_size=20), json_values.map(lambda v: json.dumps(v).encode()),
              st.sampled_from([b'{"splits": []}', b'{"splits": {"test": {"shards": ["ab"]}}}',
                               b'{"splits": {"test": {"shards": {"instances/yes_but/test/shard-00000.jsonl": 3}}}}',
                               b'{"splits": {"test": []}}', b"[1]"]))),
    st.tuples(st.just("delete_image"), st.integers(0, 20)),
    st.tuples(st.just("orphan_image")),
    st.tuples(st.just("extra_shard"), st.binary(max_size=30)),
    st.tuples(st.just("truncate"), st.integers(0, 3), st.integers(0, 3), st.integers(0, 10**5)),
    st.tuples(st.just("bad_utf8"), st.integers(0, 3), st.integers(0, 3), st.integers(0, 10**5)),
    st.tuples(st.just("non_object"), st.integers(0, 3), st.integers(0, 3),
              st.sampled_from([b"[1, 2]", b'"text"', b"null", b"42", b"true", b"{}", b"{", b"\x00"])),
    st.tuples(st.just("duplicate"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("set"), st.integers(0, 3), st.integers(0, 3), st.sampled_from(FIELDS), json_values),
    st.tuples(st.just("drop"), st.integers(0, 3), st.integers(0, 3), st.sampled_from(FIELDS)),
    st.tuples(st.just("slots"), st.integers(0, 3), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("images"), st.integers(0, 3), st.integers(0, 3), st.booleans()),
)  # fmt: skip

PREFIXES = ("instances/", "images/", "manifest.json")


@FUZZ
@given(ops=st.lists(corruptions, min_size=1, max_size=3))
def test_fuzzed_corrupted_datasets_are_reported_by_file(dataset, ops):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        shutil.copytree(dataset, root)
        before = digest(root)
        for op in ops:
            corrupt(root, op)
        changed = digest(root)
        try:
            report = validate_dataset(root)
        except InputError as exc:
            assert "\n" not in str(exc) and str(root) in str(exc)
        else:
            if changed != before:
                assert not report.ok, f"{ops} went unnoticed"
            for problem in report.problems:
                assert problem.startswith(PREFIXES), problem
                assert "\n" not in problem and "Traceback" not in problem
        assert digest(root) == changed, "validate wrote something"


def test_validate_cli_on_a_corrupted_dataset_is_exit_2_without_traceback(dataset, tmp_path):
    root = tmp_path / "data"
    shutil.copytree(dataset, root)
    for op in [
        ("bad_utf8", 0, 0, 40),
        ("non_object", 1, 0, b"[1, 2]"),
        ("slots", 0, 1, True),
        ("duplicate", 0, 1),
        ("manifest", b'{"splits": {"test": {"shards": ["ab"]}}}'),
    ]:
        corrupt(root, op)
    (root / "images/yes_but/test/000001-0.png").unlink()
    proc = subprocess.run([sys.executable, "-m", "mirforge", "validate", str(root)], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: {root}: ")
    for needle in (
        "not valid UTF-8",
        "expected a JSON object",
        "slots",
        "duplicates",
        "does not exist",
        "manifest.json",
    ):
        assert needle in proc.stderr, needle


@pytest.mark.parametrize("value", [[[2], [3], [4]], {"a": [1]}, [2, [3]]])
def test_nested_config_values_are_refused_by_field_not_by_the_cache(tmp_path, value):
    """Found by the fuzzer: a nested list reached the task cache and failed as "unhashable type: 'list'"."""
    config = RunConfig(tasks=("view_3d",), n=2, task_config={"view_3d": {"objects_per_level": value}})
    with pytest.raises(InputError, match="view_3d.objects_per_level: expected int"):
        prepare(config, tmp_path / "out")
    assert not (tmp_path / "out").exists()
