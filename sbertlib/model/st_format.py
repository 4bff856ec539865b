"""The sentence-transformers folder layout, so that models trained here load in that library.

A sentence-transformers model folder holds the transformer (``config.json``, weights, tokenizer)
at its root and a ``modules.json`` listing the modules applied in turn:

=================  ==========================================  =====================================
module folder      type                                        config
=================  ==========================================  =====================================
``.`` (root)       ``sentence_transformers.models.Transformer`` ``sentence_bert_config.json``: max_seq_length
``1_Pooling``      ``sentence_transformers.models.Pooling``     ``config.json``: one ``pooling_mode_*`` true
``2_Dense``        ``sentence_transformers.models.Dense``       ``config.json`` + ``model.safetensors`` — only
                                                               when the encoder has a projection (a linear map:
                                                               activation Identity, written out, since
                                                               their Dense defaults to Tanh)
``N_Normalize``    ``sentence_transformers.models.Normalize``   (none) — only when the encoder normalises
=================  ==========================================  =====================================

:func:`write_modules` writes those files; reading them back is
:func:`sbertlib.model.backbones.sentence_transformers_settings`.
"""
from __future__ import annotations

import json
from pathlib import Path
from ..errors import SettingError

_MODES = {"mean": "pooling_mode_mean_tokens", "max": "pooling_mode_max_tokens", "cls": "pooling_mode_cls_token"}


IDENTITY = "torch.nn.modules.linear.Identity"


def write_dense(folder: Path, layer) -> None:
    """A ``Dense`` module folder for the linear ``layer`` (an ``nn.Linear``): ``config.json`` and
    ``model.safetensors`` (keys ``linear.weight`` / ``linear.bias``), as sentence-transformers writes it."""
    from safetensors.torch import save_file
    folder.mkdir()
    cfg = {"in_features": layer.in_features, "out_features": layer.out_features, "bias": layer.bias is not None,
           "activation_function": IDENTITY}
    (folder / "config.json").write_text(json.dumps(cfg, indent=2))
    save_file({f"linear.{k}": v.detach().cpu().contiguous() for k, v in layer.state_dict().items()},
              str(folder / "model.safetensors"))


def write_modules(folder: Path, pooling: str, normalize: bool, dim: int, max_seq_length: int,
                  projection=None) -> None:
    """Write ``modules.json``, ``sentence_bert_config.json``, ``1_Pooling/config.json`` (and
    ``2_Dense/`` for a ``projection``, then ``N_Normalize/``) into ``folder``, which already holds the
    transformer and its tokenizer. ``dim`` is the transformer's width (what Pooling outputs)."""
    if pooling not in _MODES:
        raise SettingError(f"pooling {pooling!r} has no sentence-transformers equivalent; use one of {tuple(_MODES)}")
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if projection is not None:
        modules.append({"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"})
        if not (folder / "2_Dense").is_dir():
            write_dense(folder / "2_Dense", projection)
    if normalize:
        n = len(modules)
        modules.append({"idx": n, "name": str(n), "path": f"{n}_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
        (folder / f"{n}_Normalize").mkdir()
    pool_cfg = {"word_embedding_dimension": int(dim), "pooling_mode_cls_token": False,
                "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
                "pooling_mode_lasttoken": False, "include_prompt": True, _MODES[pooling]: True}
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pool_cfg, indent=2))
    (folder / "modules.json").write_text(json.dumps(modules, indent=2))
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": int(max_seq_length), "do_lower_case": False}, indent=2))
    (folder / "config_sentence_transformers.json").write_text(
        json.dumps({"similarity_fn_name": "cosine", "prompts": {}, "default_prompt_name": None}, indent=2))
