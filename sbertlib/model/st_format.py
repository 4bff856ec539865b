"""The sentence-transformers folder layout, so that models trained here load in that library.

A sentence-transformers model folder holds the transformer (``config.json``, weights, tokenizer)
at its root and a ``modules.json`` listing the modules applied in turn:

=================  ==========================================  =====================================
module folder      type                                        config
=================  ==========================================  =====================================
``.`` (root)       ``sentence_transformers.models.Transformer`` ``sentence_bert_config.json``: max_seq_length
``1_Pooling``      ``sentence_transformers.models.Pooling``     ``config.json``: one ``pooling_mode_*`` true
``2_Normalize``    ``sentence_transformers.models.Normalize``   (none) — only when the encoder normalises
=================  ==========================================  =====================================

:func:`write_modules` writes those files; reading them back is
:func:`sbertlib.model.backbones.sentence_transformers_settings`.
"""
from __future__ import annotations

import json
from pathlib import Path

_MODES = {"mean": "pooling_mode_mean_tokens", "max": "pooling_mode_max_tokens", "cls": "pooling_mode_cls_token"}


def write_modules(folder: Path, pooling: str, normalize: bool, dim: int, max_seq_length: int) -> None:
    """Write ``modules.json``, ``sentence_bert_config.json``, ``1_Pooling/config.json`` (and
    ``2_Normalize/``) into ``folder``, which already holds the transformer and its tokenizer."""
    if pooling not in _MODES:
        raise ValueError(f"pooling {pooling!r} has no sentence-transformers equivalent; use one of {tuple(_MODES)}")
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        (folder / "2_Normalize").mkdir()
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
