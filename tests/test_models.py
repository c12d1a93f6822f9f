"""Model backends: tiny random VLMs end to end on CPU, and the OpenAI-compatible client against a local server."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from PIL import Image
from test_stages import make_dataset

from mirforge.errors import InputError, MirforgeError
from mirforge.models.backend import Query, Sampling
from mirforge.models.openai_backend import OpenAIBackend

from openai_server import OpenAIServer
from scripted_backend import ScriptedBackend

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def three_images(root: Path) -> tuple[Path, ...]:
    paths = []
    for i, colour in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255)]):
        path = root / f"img{i}.png"
        Image.new("RGB", (56 + 28 * i, 56), colour).save(path)
        paths.append(path)
    return tuple(paths)


def pixels(path: Path) -> str:
    with Image.open(path) as im:
        return hashlib.sha256(im.tobytes()).hexdigest()


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    return three_images(tmp_path_factory.mktemp("imgs"))


def interleaved(images: tuple[Path, ...], qid: str = "q1") -> Query:
    return Query(qid, "First <image>, then <image> and finally <image>. Which is red? A. first B. second", images)


def test_query_parts_and_slot_check(images: tuple[Path, ...]) -> None:
    q = interleaved(images)
    assert q.parts() == ["First ", 0, ", then ", 1, " and finally ", 2, ". Which is red? A. first B. second"]
    with pytest.raises(MirforgeError, match="slots"):
        Query("bad", "<image> only", images).parts()


def test_sampling_validation() -> None:
    with pytest.raises(InputError, match="-k"):
        Sampling(k=0).validate()
    with pytest.raises(InputError, match="--top-p"):
        Sampling(top_p=0).validate()


def test_scripted_backend() -> None:
    backend = ScriptedBackend(lambda q, j: f"{q.id}:{j}")
    out = backend.answer([Query("a", "x", ()), Query("b", "y", ())], Sampling(k=3))
    assert out == [["a:0", "a:1", "a:2"], ["b:0", "b:1", "b:2"]]


# ---------------------------------------------------------------------------------------------- transformers


def _tiny(tmp_path_factory: pytest.TempPathFactory, arch: str) -> Path:
    pytest.importorskip("transformers")
    from mirforge.models.tiny import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp(arch), arch)


def _check_backend(path: Path, images: tuple[Path, ...], image_token: str) -> None:
    from mirforge.models.transformers_backend import TransformersBackend

    backend = TransformersBackend.load(path, batch_size=2)
    q1, q2 = interleaved(images, "q1"), Query("q2", "Only <image> here. Answer:", images[:1])
    text = backend.processor.apply_chat_template(backend.messages(q1), add_generation_prompt=True, tokenize=False)
    # the images sit at their slots, between the right pieces of text
    pieces = text.split(image_token)
    assert len(pieces) == 4
    assert pieces[0].endswith("First ") and pieces[1] == ", then " and pieces[2] == " and finally "
    answers = backend.answer([q1, q2], Sampling(k=3, max_new_tokens=4))
    assert [len(a) for a in answers] == [3, 3]
    assert all(isinstance(t, str) for a in answers for t in a)
    again = backend.answer([q1, q2], Sampling(k=3, max_new_tokens=4))
    assert again == answers  # seeded per batch


def test_transformers_qwen2_vl(tmp_path_factory: pytest.TempPathFactory, images: tuple[Path, ...]) -> None:
    path = _tiny(tmp_path_factory, "qwen2_vl")
    from transformers import AutoModelForImageTextToText

    assert type(AutoModelForImageTextToText.from_pretrained(path)).__name__ == "Qwen2VLForConditionalGeneration"
    _check_backend(path, images, "<|vision_start|><|image_pad|><|vision_end|>")
    from mirforge.models.transformers_backend import TransformersBackend

    def image_tokens(backend: TransformersBackend) -> int:
        text = backend.processor.apply_chat_template(backend.messages(interleaved(images)), add_generation_prompt=True)
        batch = backend.processor(text=[text], images=[[Image.open(p) for p in images]], return_tensors="pt")
        return int((batch["input_ids"] == backend.processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")).sum())

    assert (
        image_tokens(TransformersBackend.load(path, max_pixels=56 * 56))
        < image_tokens(TransformersBackend.load(path))
        == 18
    )


def test_transformers_idefics3(tmp_path_factory: pytest.TempPathFactory, images: tuple[Path, ...]) -> None:
    _check_backend(_tiny(tmp_path_factory, "idefics3"), images, "<image>")


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["qwen2_5_vl", "llava_onevision"])
def test_transformers_other_archs(
    tmp_path_factory: pytest.TempPathFactory, images: tuple[Path, ...], arch: str
) -> None:
    token = "<|vision_start|><|image_pad|><|vision_end|>" if arch.startswith("qwen") else "<image>"
    _check_backend(_tiny(tmp_path_factory, arch), images, token)


def test_transformers_difficulty_end_to_end(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    from mirforge.curriculum.difficulty import read_sidecar, run_difficulty
    from mirforge.models.transformers_backend import TransformersBackend

    path = _tiny(tmp_path_factory, "qwen2_vl")
    data = make_dataset(tmp_path / "data", per_task=3)
    backend = TransformersBackend.load(path, batch_size=3)
    report = run_difficulty(data, backend, Sampling(k=2, max_new_tokens=3), chunk=3, progress=False)
    lines = read_sidecar(data / "difficulty.jsonl")
    assert report.measured == 6 and len(lines) == 6
    for line in lines:
        assert line["k"] == 2 and len(line["answers"]) == 2
        assert line["p"] == line["correct"] / 2 and line["model"] == str(path)


# ---------------------------------------------------------------------------------------------- openai


def backend_for(server: OpenAIServer, tmp_path: Path, **kw: object) -> OpenAIBackend:
    kw.setdefault("timeout", 5.0)
    return OpenAIBackend("test-model", server.url, "key", cache=tmp_path / "cache.sqlite", **kw)  # type: ignore[arg-type]


def test_openai_images_in_slot_order(tmp_path: Path, images: tuple[Path, ...]) -> None:
    with OpenAIServer("Your option: A") as server:
        backend = backend_for(server, tmp_path)
        out = backend.answer([interleaved(images)], Sampling(k=4, max_new_tokens=8))
        assert out == [["Your option: A"] * 4]
        assert server.count == 1  # n=4 honoured: one request
        decoded = server.images[0]
        assert [d.pixels_sha256 for d in decoded] == [pixels(p) for p in images]
        assert [d.size for d in decoded] == [(56, 56), (84, 56), (112, 56)]
        body = server.requests[0]
        kinds = [part["type"] for part in body["messages"][0]["content"]]
        assert kinds == ["text", "image_url", "text", "image_url", "text", "image_url", "text"]
        assert body["n"] == 4 and body["temperature"] == 0.7 and body["top_p"] == 0.8 and body["max_tokens"] == 8
        assert body["repetition_penalty"] == 1.05  # vLLM's extra field
        backend.close()


def test_openai_n_ignored_tops_up_and_loop_mode(tmp_path: Path, images: tuple[Path, ...]) -> None:
    with OpenAIServer(["B", "C"], honour_n=False) as server:
        backend = backend_for(server, tmp_path)
        out = backend.answer([interleaved(images)], Sampling(k=3))
        assert len(out[0]) == 3 and server.count == 3
        assert len({r["seed"] for r in server.requests}) == 3  # every top-up has its own seed
    with OpenAIServer("D") as server:
        backend = backend_for(server, tmp_path / "loop", n_mode="loop")
        assert backend.answer([interleaved(images, "a"), interleaved(images, "b")], Sampling(k=2)) == [["D"] * 2] * 2
        assert server.count == 4 and all("n" not in r for r in server.requests)


def test_openai_retries_then_succeeds(tmp_path: Path, images: tuple[Path, ...]) -> None:
    with OpenAIServer("Your option: B", timeout_delay=1.5) as server:
        server.fail(500, 429, "timeout", 503)
        backend = backend_for(server, tmp_path, timeout=0.5, retries=5)
        assert backend.answer([interleaved(images)], Sampling(k=2)) == [["Your option: B"] * 2]
        assert server.count == 5 and backend.requests == 1  # one call, retried four times by the openai client


def test_openai_gives_up_and_fails_fast(tmp_path: Path, images: tuple[Path, ...]) -> None:
    with OpenAIServer("x") as server:
        server.fail(500, 500, 500)
        backend = backend_for(server, tmp_path, retries=2)
        with pytest.raises(MirforgeError, match="call failed: HTTP 500 after 3 attempts"):
            backend.answer([interleaved(images)], Sampling(k=1))
        server.fail(400)
        with pytest.raises(MirforgeError, match="endpoint refused: HTTP 400"):
            backend.answer([interleaved(images, "other")], Sampling(k=1))
        assert server.count == 4  # a 400 is not retried


def test_openai_cache_and_concurrency(tmp_path: Path, images: tuple[Path, ...]) -> None:
    queries = [interleaved(images, f"q{i}") for i in range(6)]
    with OpenAIServer(lambda body, imgs: f"Your option: {'ABC'[len(imgs) % 3]}") as server:
        first = backend_for(server, tmp_path, concurrency=3).answer(queries, Sampling(k=2))
        assert server.count == 6
        cached = backend_for(server, tmp_path, concurrency=3)
        assert cached.answer(queries, Sampling(k=2)) == first
        assert server.count == 6 and cached.cache_hits == 6
        backend_for(server, tmp_path).answer(queries[:1], Sampling(k=2, seed=1))  # the seed is in the key
        assert server.count == 7


def test_openai_bad_flags(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--n-mode"):
        OpenAIBackend("m", "http://127.0.0.1:1/v1", n_mode="sometimes")
    from mirforge.models.factory import make_backend

    with pytest.raises(InputError, match="--base-url"):
        make_backend("openai", "m")
    with pytest.raises(InputError, match="--backend"):
        make_backend("vllm", "m")
    with pytest.raises(InputError, match="--model"):
        make_backend("transformers", str(tmp_path))


def test_openai_client_waits_as_long_as_retry_after_asks(tmp_path: Path, images: tuple[Path, ...]) -> None:
    import time

    with OpenAIServer("Your option: C", retry_after=1.0) as server:
        server.fail(429)
        backend = backend_for(server, tmp_path, retries=1)
        start = time.monotonic()
        assert backend.answer([interleaved(images)], Sampling(k=1)) == [["Your option: C"]]
        waited = time.monotonic() - start
        assert server.count == 2 and 1.0 <= waited < 5  # the client's own first delay is at most 0.5 s


# ---------------------------------------------------------------------------------------------- one cache


def test_cache_key_and_file_format_are_the_rewriters_of_before(tmp_path: Path) -> None:
    """Cache files written by earlier versions keep answering: same key for the same inputs, same table."""
    import sqlite3

    from mirforge.models.cache import ResponseCache, cache_key

    messages = [{"role": "system", "content": "Rewrite."}, {"role": "user", "content": "Steps: 3 cubes, café"}]
    key = cache_key("m", messages, {"temperature": 0.0, "max_tokens": None}, 2**40 + 7)
    assert key == "3b35980308f3edda998730a47922356d2adc0264b5d514c2049224942b3b5391"  # recorded before the move
    old = sqlite3.connect(tmp_path / "llm.sqlite")
    old.executescript(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, content TEXT NOT NULL,"
        " created REAL NOT NULL);"
        "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    )
    old.execute("INSERT INTO responses VALUES (?, 'm', ?, 0)", (key, '{"summary": "x"}'))
    old.execute("INSERT INTO counters VALUES ('calls', 5)")
    old.commit()
    old.close()
    cache = ResponseCache(tmp_path / "llm.sqlite")
    assert cache.get(key) == '{"summary": "x"}' and cache.count() == 5
    assert cache.claim(6) and not cache.claim(6) and cache.count() == 6
    cache.put(key, "m", "another")  # the first response stored under a key stays
    assert cache.get(key) == '{"summary": "x"}' and len(cache) == 1


# ---------------------------------------------------------------------------------------------- one loader


@pytest.fixture(scope="module")
def adapter(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny Qwen2-VL and a LoRA adapter on it (non-zero, so merging changes the weights), as ``mirforge train``
    saves them: the adapter folder names the base and holds the processor."""
    pytest.importorskip("peft")
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForImageTextToText

    from mirforge.models.processor import load_processor

    base = _tiny(tmp_path_factory, "qwen2_vl").resolve()
    lora = LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    model = get_peft_model(AutoModelForImageTextToText.from_pretrained(base), lora)
    folder = tmp_path_factory.mktemp("adapter")
    model.save_pretrained(folder)
    load_processor(base).save_pretrained(folder)
    return base, folder


def test_one_loader_for_model_and_adapter_folders(
    adapter: tuple[Path, Path], images: tuple[Path, ...], tmp_path: Path
) -> None:
    import json

    import torch

    from mirforge.models.factory import make_backend
    from mirforge.models.loader import load_model, model_folder, use_bf16
    from mirforge.models.transformers_backend import TransformersBackend
    from mirforge.training.config import TrainConfig

    base, folder = adapter
    assert model_folder(base).adapter is False and model_folder(folder).base == base
    plain, merged = load_model(base).model, load_model(folder).model
    assert merged.dtype == torch.float32 and not merged.training
    names = [n for n, _ in plain.named_parameters() if "q_proj.weight" in n]
    weights = dict(merged.named_parameters())
    assert names and all(n in weights for n in names)
    assert any(not torch.equal(weights[n], dict(plain.named_parameters())[n]) for n in names)  # the adapter is in
    # difficulty (lazy, for Ray) and eval (loaded) take the same adapter folder
    lazy = make_backend("transformers", str(folder), lazy=True)
    assert lazy.model_id == str(folder)
    backend = make_backend("transformers", str(folder), batch_size=1)
    assert isinstance(backend, TransformersBackend)
    assert [len(a) for a in backend.answer([interleaved(images)], Sampling(k=2, max_new_tokens=2))] == [2]
    # the one dtype rule
    assert use_bf16("cpu") is False and use_bf16("cpu", True) is True and use_bf16("cuda:0", False) is False
    # a new training run starts from full weights
    with pytest.raises(InputError, match="LoRA adapter folder"):
        TrainConfig(model=str(folder), curriculum=tmp_path, out=tmp_path / "o").validate()
    # an adapter whose base is not a local model folder
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": "org/remote-model"}))
    with pytest.raises(InputError, match="names base model 'org/remote-model'"):
        make_backend("transformers", str(broken), lazy=True)


def test_models_layer_imports_no_feature_package() -> None:
    """mirforge.models sits under curriculum, training, evaluation and the rewriter, never beside or above them."""
    import ast

    import mirforge.models

    allowed = ("mirforge.errors", "mirforge.models")
    for path in Path(mirforge.models.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.startswith("mirforge"):
                    assert name.startswith(allowed), f"{path.name} imports {name}"
