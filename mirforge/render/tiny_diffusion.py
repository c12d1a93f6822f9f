"""A tiny Stable Diffusion + depth ControlNet, built from configs with no download.

``build_tiny_diffusion(DIR)`` writes ``DIR/sd`` (a full Stable Diffusion pipeline folder: unet, vae, text encoder,
CLIP tokenizer, DDIM scheduler) and ``DIR/controlnet`` (a ControlNet folder), which the production loader
(:func:`mirforge.render.diffusion.pipeline`) opens with the same ``from_pretrained(path)`` calls as a real
SD1.5-class model.

The UNet, ControlNet and text encoder are random. The VAE is set, not random: it passes the image through,
auto-contrasted (one affine map per image for the three colour channels, so hues are kept), so that a
low-strength pass keeps the scene's layout the way a trained model does and the geometry post-check can accept
an output (and reject a shifted one). At strength 1, or with many steps, the random UNet dominates and the
output is noise-like. The native size is 128 px (latents 64 x 64); tests run it at 64 px. About 8 MB on disk.

The CLIP tokenizer is character-level (the 256 byte-level characters, the same with ``</w>``, and the two
specials; no merges), so it needs no vocabulary file from the Hub; long prompts are cut at 77 characters.
"""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.errors import InputError

SD_FOLDER = "sd"
CONTROLNET_FOLDER = "controlnet"
BLOCKS = (32, 64)
CROSS_DIM = 32


def _tokenizer():
    from transformers import CLIPTokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    chars = list(bytes_to_unicode().values())
    tokens = chars + [c + "</w>" for c in chars] + ["<|startoftext|>", "<|endoftext|>"]
    vocab = {tok: i for i, tok in enumerate(tokens)}
    return CLIPTokenizer(vocab=vocab, merges=[], model_max_length=77), vocab


def _components(seed: int) -> dict:
    import torch
    from diffusers import AutoencoderKL, ControlNetModel, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    torch.manual_seed(seed)  # only this builder seeds the global torch RNG; the pass itself uses a Generator
    tokenizer, vocab = _tokenizer()
    unet = UNet2DConditionModel(
        block_out_channels=BLOCKS,
        layers_per_block=1,
        sample_size=64,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=CROSS_DIM,
    )
    vae = AutoencoderKL(
        block_out_channels=list(BLOCKS),
        in_channels=3,
        out_channels=3,
        latent_channels=4,
        down_block_types=["DownEncoderBlock2D"] * 2,
        up_block_types=["UpDecoderBlock2D"] * 2,
        mid_block_add_attention=False,  # attention over every latent pixel is slow on a CPU
        norm_num_groups=8,  # colour channels 0-2 share a group: one affine map for all three keeps hues
        scaling_factor=1.0,
    )
    _pass_through(vae)
    text_encoder = CLIPTextModel(
        CLIPTextConfig(
            hidden_size=CROSS_DIM,
            intermediate_size=37,
            num_attention_heads=4,
            num_hidden_layers=2,
            vocab_size=len(vocab),
            bos_token_id=vocab["<|startoftext|>"],
            eos_token_id=vocab["<|endoftext|>"],
            pad_token_id=vocab["<|endoftext|>"],
        )
    )
    controlnet = ControlNetModel(
        block_out_channels=BLOCKS,
        layers_per_block=1,
        in_channels=4,
        cross_attention_dim=CROSS_DIM,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        conditioning_embedding_out_channels=(16, 32),
    )
    scheduler = DDIMScheduler(
        beta_schedule="scaled_linear",
        beta_start=0.00085,
        beta_end=0.012,
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    return {
        "unet": unet,
        "vae": vae,
        "text_encoder": text_encoder,
        "tokenizer": tokenizer,
        "scheduler": scheduler,
        "controlnet": controlnet,
    }


def _pass_through(vae) -> None:
    """Set the VAE's weights so that decode(encode(x)) is x auto-contrasted (layout and hues kept).

    Residual branches (resnet ``conv2``, attention ``to_out``) are zeroed, so each block is the identity;
    shortcuts, resamplers and the in/out convolutions carry the three colour channels in channels 0-2. The
    output group norms make the map affine per image (one map for the colour channels, which share a group);
    the SiLU before each output convolution is kept in its monotone range."""
    import torch
    from diffusers.models.attention_processor import Attention
    from diffusers.models.downsampling import Downsample2D
    from diffusers.models.resnet import ResnetBlock2D
    from diffusers.models.upsampling import Upsample2D

    def carry(conv: torch.nn.Conv2d, taps: list[tuple[int, int]], gain: float = 1.0, bias: float = 0.0) -> None:
        conv.weight.zero_()
        for c in range(min(conv.in_channels, conv.out_channels, 3)):
            for ky, kx in taps:
                conv.weight[c, c, ky, kx] = gain / len(taps)
        conv.bias.zero_()
        conv.bias[:3] = bias

    centre = [(1, 1)]
    with torch.no_grad():
        for module in vae.modules():
            if isinstance(module, ResnetBlock2D):
                module.conv2.weight.zero_()
                module.conv2.bias.zero_()
                if module.conv_shortcut is not None:
                    carry(module.conv_shortcut, [(0, 0)])
            elif isinstance(module, Attention):
                module.to_out[0].weight.zero_()
                module.to_out[0].bias.zero_()
            elif isinstance(module, Downsample2D):
                carry(module.conv, [(0, 0), (0, 1), (1, 0), (1, 1)])  # 2 x 2 mean (the input is padded right/bottom)
            elif isinstance(module, Upsample2D):
                carry(module.conv, centre)
        for coder in (vae.encoder, vae.decoder):
            carry(coder.conv_in, centre)
            coder.conv_norm_out.weight.fill_(0.3)  # standardised values z -> 0.3 z + 4: SiLU is monotone there
            coder.conv_norm_out.bias.fill_(4.0)
        carry(vae.encoder.conv_out, centre, gain=3.0, bias=-12.0)  # latent mean ~ z
        vae.encoder.conv_out.bias[4:] = -30.0  # log-variance: sampling the latent adds no noise
        carry(vae.decoder.conv_out, centre, gain=1.1, bias=-4.4)  # ~ z / 3, in [-1, 1]
        carry(vae.quant_conv, [(0, 0)])
        vae.quant_conv.weight[3, 3, 0, 0] = 1.0
        for c in range(4, 8):
            vae.quant_conv.weight[c, c, 0, 0] = 1.0
        carry(vae.post_quant_conv, [(0, 0)])


def build_tiny_diffusion(directory: Path | str, seed: int = 0) -> tuple[Path, Path]:
    """Write ``directory/sd`` and ``directory/controlnet``; return their paths."""
    try:
        from diffusers import StableDiffusionPipeline
    except ImportError:
        raise InputError(
            "mirforge dev tiny-diffusion needs the [diffusion] extra: pip install 'mirforge[diffusion]'"
        ) from None
    root = Path(directory)
    sd_dir, cn_dir = root / SD_FOLDER, root / CONTROLNET_FOLDER
    for path in (sd_dir, cn_dir):
        if path.exists() and any(path.iterdir()):
            raise InputError(f"{path} exists and is not empty; pick a new folder for the tiny pipeline")
    parts = _components(seed)
    controlnet = parts.pop("controlnet")
    pipe = StableDiffusionPipeline(**parts, safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    pipe.save_pretrained(sd_dir)
    # the pass defaults this model wants (read by mirforge.realism.realism_config; flags override them): at one
    # denoising step from t = 1 the random UNet barely changes the image, at 20 steps it is noise
    (sd_dir / "mirforge_realism.json").write_text(json.dumps({"steps": 2, "strength": 0.5}) + "\n")
    controlnet.save_pretrained(cn_dir)
    return sd_dir, cn_dir
