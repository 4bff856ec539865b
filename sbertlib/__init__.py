"""sbertlib — the helper package behind the sbert-workbook (Sentence-BERT, rebuilt to be understood)."""
from .models import SentenceEncoder

__all__ = ["SentenceEncoder"]
__version__ = "0.1.0"
