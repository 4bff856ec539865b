"""sbertlib — the helper package behind the sbert-workbook (Sentence-BERT, rebuilt to be understood).

``from sbertlib import SentenceEncoder`` works; the heavy import (transformers) happens on first use.
``import sbertlib.data`` stays quick: it imports neither torch nor transformers (a test holds it).
``sbertlib.search`` computes on torch tensors, so it imports torch, and transformers through
:mod:`sbertlib.model`.
"""
__all__ = ["SentenceEncoder"]
__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "SentenceEncoder":
        from .model.encoder import SentenceEncoder
        return SentenceEncoder
    raise AttributeError(f"module 'sbertlib' has no attribute {name!r}")
