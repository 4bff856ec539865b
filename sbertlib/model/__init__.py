"""SBERT's inference network (paper, §3): a transformer backbone, a pooling step, a similarity.

==========================  ==============================================================
module                      holds
==========================  ==============================================================
``model.backbones``         where backbones come from: hub, local folder, offline stand-ins
``model.pooling``           ``pool``: mean / max / CLS over the real (non-padding) tokens
``model.tokenising``        the one way texts (or pairs) become padded token ids: cut to
                            ``max_seq_length``, length-sorted batches, right padding
``model.text``              text repairs before tokenising (lone surrogates → U+FFFD)
``model.encoder``           ``SentenceEncoder``: backbone + pooling, smart-batched ``encode``,
                            atomic ``save`` / ``load``
``model.similarity``        the one table of measures (cosine, dot, −Manhattan, −Euclidean)
``model.word_average``      the paper's non-BERT baseline: average GloVe word vectors
``model.cross_encoder``     ``CrossEncoder``: both sentences in one pass (Table 2's BERT rows)
==========================  ==============================================================
"""
from . import casting

casting.quiet_torchao_import()  # first: transformers, imported below, imports torchao where it is installed
from .backbones import BackboneNotAvailable, load_backbone
from .cross_encoder import CrossEncoder
from .encoder import SentenceEncoder
from .pooling import POOLING_MODES, pool
from .similarity import MEASURES, cos_sim, pairwise, similarity_matrix
from .word_average import AverageWordEmbeddings

__all__ = ["BackboneNotAvailable", "load_backbone", "SentenceEncoder", "POOLING_MODES", "pool", "MEASURES",
           "cos_sim", "pairwise", "similarity_matrix", "AverageWordEmbeddings", "CrossEncoder"]
