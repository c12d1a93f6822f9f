"""``mirforge dev tiny-vlm``: a tiny, randomly initialised vision-language model that needs no download.

It is built from a config with a byte-level BPE tokenizer trained on the fly, and saved (model + processor) so that
the same ``from_pretrained`` calls that load a real model load it. Quality is meaningless; it exists so the whole
difficulty -> curriculum -> train -> eval path, and the trainers' own data pipelines, run offline in a minute.

Every folder names stock transformers classes (``processor_class``, ``image_processor_type``), and the image token
id in ``config.json`` is the tokenizer's id of the image token, which the processor reports too. ``llava`` (the
default) and ``idefics3`` load with a plain ``AutoProcessor.from_pretrained(folder)`` anywhere. The processors of
``qwen2_vl``, ``qwen2_5_vl`` and ``llava_onevision`` carry a video processor, which in transformers 5 needs
torchvision (there is no PIL video backend): their folders hold a ``video_preprocessor_config.json`` and load with
``AutoProcessor`` where torchvision is installed, and everywhere through :func:`mirforge.models.load_processor`,
which drops the video processor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.models.processor import image_only_processor_class, restore_processor_class

ARCHES = ("llava", "qwen2_vl", "qwen2_5_vl", "llava_onevision", "idefics3")
DEFAULT_ARCH = "llava"
VIDEO_ARCHES = ("qwen2_vl", "qwen2_5_vl", "llava_onevision")  # stock processors that carry a video processor

_CORPUS_SEED = (
    "Which of these top views shows the same objects from above? Select the correct option from the following "
    "options: A. B. C. D. Your option: Reason: The answer is Image 1 2 3 4 5 6 front side view left right behind "
    "bigger smaller nearer farther faster slower heavier lighter chart value trend cube sphere cylinder cone red "
    "green blue yellow purple orange <summary> </summary> <caption> </caption> <text2img> </text2img> <img2img> "
    "</img2img> <conclusion> </conclusion> Therefore the correct option is 0123456789 , . ; : ? ! ( ) [ ] \n"
)

# Chat templates: content may be a string or a list of {"type": "text"|"image"} parts (TRL, ms-swift, HF style).
_PARTS = (
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'text' -%}{{ part['text'] }}"
    "{%- elif part['type'] in ('image', 'image_url') or 'image' in part -%}IMAGE"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
)
_NL = "{{ '\\n' }}"
_CHATML = (
    "{%- for message in messages -%}<|im_start|>{{ message['role'] }}"
    + _NL
    + _PARTS
    + "<|im_end|>"
    + _NL
    + "{%- endfor -%}{%- if add_generation_prompt -%}<|im_start|>assistant"
    + _NL
    + "{%- endif -%}"
)
_IDEFICS = (
    "<|im_start|>{%- for message in messages -%}{{ message['role'] | capitalize }}:"
    + _PARTS
    + "<end_of_utterance>"
    + _NL
    + "{%- endfor -%}{%- if add_generation_prompt -%}Assistant:{%- endif -%}"
)
_SPECIALS = {
    "qwen2_vl": ["<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>"],
    "qwen2_5_vl": ["<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>"],
    "llava": ["<image>"],
    "llava_onevision": ["<image>", "<video>"],
    "idefics3": ["<image>", "<fake_token_around_image>", "<global-img>", "<end_of_utterance>"],
}
_IMAGE_MARK = {
    "qwen2_vl": "<|vision_start|><|image_pad|><|vision_end|>",
    "qwen2_5_vl": "<|vision_start|><|image_pad|><|vision_end|>",
    "llava": "<image>",
    "llava_onevision": "<image>",
    "idefics3": "<image>",
}


def _tokenizer(arch: str, corpus: list[str]) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *_SPECIALS[arch]]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=500,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    extra: dict[str, Any] = {}
    if arch == "llava":
        extra = {"extra_special_tokens": {"image_token": "<image>"}}
    if arch == "llava_onevision":
        extra = {"extra_special_tokens": {"image_token": "<image>", "video_token": "<video>"}}
    if arch == "idefics3":
        extra = {
            "extra_special_tokens": {
                "image_token": "<image>",
                "fake_image_token": "<fake_token_around_image>",
                "global_image_token": "<global-img>",
                "end_of_utterance_token": "<end_of_utterance>",
            }
        }
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token="<|im_start|>" if arch == "idefics3" else None,
        padding_side="left",
        **extra,
    )
    template = _IDEFICS if arch == "idefics3" else _CHATML
    hf.chat_template = template.replace("IMAGE", _IMAGE_MARK[arch])
    return hf


def _pil(tf: Any, name: str) -> Any:
    """The PIL backend of an image processor (transformers 5: no torchvision needed), else the stock class."""
    return getattr(tf, f"{name}Pil", None) or getattr(tf, name)


def _text_config(tok: Any, **extra: Any) -> dict[str, Any]:
    return dict(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=tok.convert_tokens_to_ids("<|endoftext|>"),
        eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tok.convert_tokens_to_ids("<|endoftext|>"),
        **extra,
    )


def _qwen(arch: str, tok: Any, image_px: int) -> tuple[Any, Any]:
    import transformers as tf

    ids = {t: tok.convert_tokens_to_ids(t) for t in _SPECIALS[arch]}
    rope = {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [2, 3, 3]}
    if arch == "qwen2_vl":
        vision = dict(
            depth=1, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=2, patch_size=14, spatial_merge_size=2
        )
        cfg_cls, model_cls, proc_cls = tf.Qwen2VLConfig, tf.Qwen2VLForConditionalGeneration, tf.Qwen2VLProcessor
    else:
        vision = dict(
            depth=1,
            hidden_size=32,
            out_hidden_size=64,
            intermediate_size=64,
            num_heads=2,
            patch_size=14,
            spatial_merge_size=2,
            window_size=56,
            fullatt_block_indexes=[0],
        )
        cfg_cls, model_cls = tf.Qwen2_5_VLConfig, tf.Qwen2_5_VLForConditionalGeneration
        proc_cls = tf.Qwen2_5_VLProcessor
    cfg = cfg_cls(
        text_config=_text_config(tok, rope_parameters=rope),
        vision_config=dict(vision, temporal_patch_size=2),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    side = max(56, image_px)
    ip = _pil(tf, "Qwen2VLImageProcessor")(
        patch_size=14,
        merge_size=2,
        temporal_patch_size=2,
        size={"shortest_edge": 56 * 56, "longest_edge": side * side},
    )
    processor = image_only_processor_class(proc_cls)(image_processor=ip, tokenizer=tok, chat_template=tok.chat_template)
    return model_cls(cfg), processor


def _siglip(tf: Any) -> Any:
    return tf.SiglipVisionConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14
    )


def _llava(tok: Any) -> tuple[Any, Any]:
    """LLaVA-1.5 layout (``LlavaForConditionalGeneration``, ``LlavaProcessor``): a 28 px SigLIP tower, 4 tokens an
    image, and a processor with no video processor."""
    import transformers as tf

    cfg = tf.LlavaConfig(
        vision_config=_siglip(tf),
        text_config=tf.Qwen2Config(**_text_config(tok)),
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        image_seq_length=4,
    )
    ip = _pil(tf, "SiglipImageProcessor")(size={"height": 28, "width": 28})
    proc = tf.LlavaProcessor(
        image_processor=ip,
        tokenizer=tok,
        chat_template=tok.chat_template,
        patch_size=14,
        vision_feature_select_strategy="full",
        num_additional_image_tokens=0,
        image_token="<image>",
    )
    return tf.LlavaForConditionalGeneration(cfg), proc


def _llava_onevision(tok: Any) -> tuple[Any, Any]:
    import transformers as tf

    cfg = tf.LlavaOnevisionConfig(
        vision_config=_siglip(tf),
        text_config=tf.Qwen2Config(**_text_config(tok)),
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        video_token_id=tok.convert_tokens_to_ids("<video>"),
        image_grid_pinpoints=[[28, 28], [28, 56], [56, 28], [56, 56]],
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
    )
    ip = _pil(tf, "LlavaOnevisionImageProcessor")(
        size={"height": 28, "width": 28},
        image_grid_pinpoints=[[28, 28], [28, 56], [56, 28], [56, 56]],
    )
    proc = image_only_processor_class(tf.LlavaOnevisionProcessor)(
        image_processor=ip,
        tokenizer=tok,
        chat_template=tok.chat_template,
        num_image_tokens=4,
        vision_feature_select_strategy="full",
    )
    return tf.LlavaOnevisionForConditionalGeneration(cfg), proc


def _idefics3(tok: Any) -> tuple[Any, Any]:
    import transformers as tf

    vision = dict(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14
    )
    cfg = tf.Idefics3Config(
        vision_config=vision,
        text_config=_text_config(tok, model_type="llama"),
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        scale_factor=2,
    )
    ip = _pil(tf, "Idefics3ImageProcessor")(
        do_image_splitting=False,
        size={"longest_edge": 28},
        max_image_size={"longest_edge": 28},
    )
    proc = tf.Idefics3Processor(image_processor=ip, tokenizer=tok, image_seq_len=1, chat_template=tok.chat_template)
    return tf.Idefics3ForConditionalGeneration(cfg), proc


def build_tiny_vlm(out: Path, arch: str = DEFAULT_ARCH, seed: int = 0, image_px: int = 112) -> Path:
    """Build, save and return ``out``: a tiny random VLM of ``arch`` with its processor, loadable from the path."""
    if arch not in ARCHES:
        raise InputError(f"--arch: {arch!r} is not one of {', '.join(ARCHES)}")
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as exc:
        raise InputError(f"dev tiny-vlm needs the [train] extra ({exc}); pip install 'mirforge[train]'") from None
    torch.manual_seed(seed)
    tok = _tokenizer(arch, [_CORPUS_SEED] * 4)
    if arch in ("qwen2_vl", "qwen2_5_vl"):
        model, processor = _qwen(arch, tok, image_px)
    elif arch == "llava":
        model, processor = _llava(tok)
    elif arch == "llava_onevision":
        model, processor = _llava_onevision(tok)
    else:
        model, processor = _idefics3(tok)
    gen = model.generation_config
    gen.do_sample, gen.temperature, gen.top_p = True, 0.7, 0.8
    gen.eos_token_id = tok.convert_tokens_to_ids("<|im_end|>")
    gen.pad_token_id = tok.convert_tokens_to_ids("<|endoftext|>")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    restore_processor_class(out)
    if arch in VIDEO_ARCHES:
        write_video_processor_config(out, arch, processor.image_processor)
    (out / "mirforge_tiny.json").write_text(json.dumps({"arch": arch, "seed": seed}) + "\n")
    return out


def write_video_processor_config(out: Path, arch: str, image_processor: Any) -> None:
    """The ``video_preprocessor_config.json`` a stock checkpoint of ``arch`` ships (same sizes as the images), so
    ``AutoProcessor`` finds the video processor where torchvision is installed."""
    if arch == "llava_onevision":
        config: dict[str, Any] = {
            "video_processor_type": "LlavaOnevisionVideoProcessor",
            "size": {"height": 28, "width": 28},
        }
    else:
        config = {
            "video_processor_type": "Qwen2VLVideoProcessor",
            "patch_size": image_processor.patch_size,
            "merge_size": image_processor.merge_size,
            "temporal_patch_size": image_processor.temporal_patch_size,
            "size": dict(image_processor.size),
        }
    config.update(
        image_mean=list(image_processor.image_mean), image_std=list(image_processor.image_std), do_convert_rgb=True
    )
    (out / "video_preprocessor_config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
