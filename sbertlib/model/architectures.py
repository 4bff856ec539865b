"""The hub encoders' architectures as constants: built with random weights, they cost what the real
ones cost.

A forward or backward pass costs the same whatever the weights hold, so ``random-init:NAME`` (e.g.
``random-init:bert-base-uncased``) builds NAME's exact architecture from the config below with
random weights and the bert-base-uncased WordPiece vocabulary. It measures *time* without a
download; its embeddings mean nothing (a stand-in: every score it gets is meaningless).

Its tokenizer (:func:`~sbertlib.model.backbones.random_init_tokenizer`) is bert-base-uncased's. Where
that vocabulary is not installed, :func:`word_tokenizer` stands in: the common English words of
``WORDS``, each one token in bert-base-uncased too, so that sentences made of them (see
:mod:`sbertlib.evaluation.workload`) have the same token counts under either tokenizer.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import torch
from transformers import BertConfig, BertModel
from ..errors import UnknownName

PREFIX = "random-init:"
_BERT_DEFAULTS = dict(vocab_size=30522, max_position_embeddings=512, type_vocab_size=2, hidden_act="gelu",
                      hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, layer_norm_eps=1e-12,
                      initializer_range=0.02, pad_token_id=0)
HUB_CONFIGS: dict[str, dict] = {  # the fields of each model's config.json that set its cost
    "bert-base-uncased": dict(_BERT_DEFAULTS, num_hidden_layers=12, hidden_size=768, num_attention_heads=12,
                              intermediate_size=3072),
    "google/bert_uncased_L-4_H-256_A-4": dict(_BERT_DEFAULTS, num_hidden_layers=4, hidden_size=256,
                                              num_attention_heads=4, intermediate_size=1024),
    "sentence-transformers/all-MiniLM-L6-v2": dict(_BERT_DEFAULTS, num_hidden_layers=6, hidden_size=384,
                                                   num_attention_heads=12, intermediate_size=1536),
}


def random_init_name(hub_name: str) -> str:
    """``random-init:HUB_NAME``: the name :func:`sbertlib.model.backbones.load_backbone` builds it by."""
    if hub_name not in HUB_CONFIGS:
        raise UnknownName(f"no architecture constant for {hub_name!r}; known: {', '.join(HUB_CONFIGS)}")
    return PREFIX + hub_name


def is_random_init(name: str) -> bool:
    """True for a ``random-init:`` name."""
    return str(name).startswith(PREFIX)


def hub_name(name: str) -> str:
    """The hub model a ``random-init:`` name copies the architecture of."""
    return str(name)[len(PREFIX):] if is_random_init(name) else str(name)


def random_model(name: str, seed: int = 0) -> BertModel:
    """NAME's architecture (no pooler, as :func:`~sbertlib.model.backbones.load_backbone` loads the real
    one) with random weights drawn with ``seed``; the global RNG is left as it was."""
    key = hub_name(name)
    if key not in HUB_CONFIGS:
        raise UnknownName(f"no architecture constant for {key!r}; known: {', '.join(HUB_CONFIGS)}")
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        return BertModel(BertConfig(**HUB_CONFIGS[key]), add_pooling_layer=False)
    finally:
        torch.random.set_rng_state(state)


def max_seq_length(name: str) -> int:
    """What the real model's folder gives: its position limit, at most 512 (as bert-base-uncased's tokenizer)."""
    return min(512, HUB_CONFIGS[hub_name(name)]["max_position_embeddings"])


SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
WORDS = tuple("""the a an man woman men women boy girl child children people person dog cat group team player
is are was were be has have had does do can will would on in at of to with for from by near over under behind into
and or but while as playing running walking sitting standing eating holding looking wearing riding talking reading
working red blue green black white small large young old big little new good long other same street water table park
beach field road house city car ball book shirt hat game music food two three some many several one each this that it
they he she we there here said says think know like want make take see look get give today yesterday now then very not
also just only still even again market company government year time day week world country school""".split())


def word_tokenizer():
    """A BERT tokenizer whose vocabulary is the special tokens, ``.`` and :data:`WORDS` (anything else
    is ``[UNK]``): for random-init models where bert-base-uncased's vocabulary is not installed."""
    from transformers import BertTokenizerFast
    with tempfile.TemporaryDirectory() as tmp:
        vocab = Path(tmp) / "vocab.txt"
        vocab.write_text("\n".join((*SPECIAL_TOKENS, ".", *WORDS)) + "\n", encoding="utf-8")
        return BertTokenizerFast(str(vocab), do_lower_case=True)  # positional: vocab_file (4.x), vocab (5.x)
