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
:func:`sbertlib.model.backbones.sentence_transformers_settings`. Their names (``MODULES_FILE``,
``SBERT_CONFIG_FILE``, ``MODULE_TYPES``, ``POOLING_FLAGS`` …) are defined here, once, for both.
"""
from __future__ import annotations

import json
from pathlib import Path
from ..errors import SettingError

# The folder's vocabulary, written here and read by sbertlib.model.backbones.
MODULES_FILE = "modules.json"  # the modules applied in turn
SBERT_CONFIG_FILE = "sentence_bert_config.json"  # the Transformer's settings: max_seq_length
ST_CONFIG_FILE = "config_sentence_transformers.json"  # the similarity function and prompts
POOLING_FOLDER = "1_Pooling"
DENSE_FOLDER = "2_Dense"
NORMALIZE = "Normalize"  # its folder is "<index>_Normalize"
MODULE_TYPES = ("Transformer", "Pooling", "Dense", NORMALIZE)  # what sbertlib implements, in this order
TYPE_PREFIX = "sentence_transformers.models."  # a modules.json type is this + one of MODULE_TYPES
POOLING_FLAGS = {"mean": "pooling_mode_mean_tokens", "max": "pooling_mode_max_tokens",
                 "cls": "pooling_mode_cls_token"}  # sbertlib's pooling -> the Pooling config.json flag set true
IDENTITY = "torch.nn.modules.linear.Identity"  # the one Dense activation sbertlib applies (a linear map); their
                                                # Dense's default is Tanh, which sbertlib refuses to load
DENSE_KEY_PREFIX = "linear."  # the Dense weights' keys: linear.weight, linear.bias


def write_dense(folder: Path, layer) -> None:
    """A ``Dense`` module folder for the linear ``layer`` (an ``nn.Linear``): ``config.json`` and
    ``model.safetensors`` (keys ``linear.weight`` / ``linear.bias``), as sentence-transformers writes it."""
    from safetensors.torch import save_file
    folder.mkdir()
    cfg = {"in_features": layer.in_features, "out_features": layer.out_features, "bias": layer.bias is not None,
           "activation_function": IDENTITY}
    (folder / "config.json").write_text(json.dumps(cfg, indent=2))
    save_file({f"{DENSE_KEY_PREFIX}{k}": v.detach().cpu().contiguous() for k, v in layer.state_dict().items()},
              str(folder / "model.safetensors"))


def write_modules(folder: Path, pooling: str, normalize: bool, dim: int, max_seq_length: int,
                  projection=None) -> None:
    """Write ``modules.json``, ``sentence_bert_config.json``, ``1_Pooling/config.json`` (and
    ``2_Dense/`` for a ``projection``, then ``N_Normalize/``) into ``folder``, which already holds the
    transformer and its tokenizer. ``dim`` is the transformer's width (what Pooling outputs)."""
    if pooling not in POOLING_FLAGS:
        raise SettingError(f"pooling {pooling!r} has no sentence-transformers equivalent; use one of "
                           f"{tuple(POOLING_FLAGS)}")
    modules = [{"idx": 0, "name": "0", "path": "", "type": f"{TYPE_PREFIX}Transformer"},
               {"idx": 1, "name": "1", "path": POOLING_FOLDER, "type": f"{TYPE_PREFIX}Pooling"}]
    if projection is not None:
        modules.append({"idx": 2, "name": "2", "path": DENSE_FOLDER, "type": f"{TYPE_PREFIX}Dense"})
        if not (folder / DENSE_FOLDER).is_dir():
            write_dense(folder / DENSE_FOLDER, projection)
    if normalize:
        n = len(modules)
        modules.append({"idx": n, "name": str(n), "path": f"{n}_{NORMALIZE}", "type": f"{TYPE_PREFIX}{NORMALIZE}"})
        (folder / f"{n}_{NORMALIZE}").mkdir()
    pool_cfg = {"word_embedding_dimension": int(dim), "pooling_mode_cls_token": False,
                "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
                "pooling_mode_lasttoken": False, "include_prompt": True, POOLING_FLAGS[pooling]: True}
    (folder / POOLING_FOLDER).mkdir()
    (folder / POOLING_FOLDER / "config.json").write_text(json.dumps(pool_cfg, indent=2))
    (folder / MODULES_FILE).write_text(json.dumps(modules, indent=2))
    (folder / SBERT_CONFIG_FILE).write_text(
        json.dumps({"max_seq_length": int(max_seq_length), "do_lower_case": False}, indent=2))
    (folder / ST_CONFIG_FILE).write_text(
        json.dumps({"similarity_fn_name": "cosine", "prompts": {}, "default_prompt_name": None}, indent=2))
