"""sbertlib — the helper package behind the sbert-workbook (Sentence-BERT, rebuilt to be understood).

``from sbertlib import SentenceEncoder`` works; the heavy import (transformers) happens on first use,
so ``import sbertlib.data`` or ``sbertlib.search`` stays quick.
"""
__all__ = ["SentenceEncoder"]
__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "SentenceEncoder":
        from .model.encoder import SentenceEncoder
        return SentenceEncoder
    raise AttributeError(f"module 'sbertlib' has no attribute {name!r}")
