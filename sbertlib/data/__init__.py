"""Datasets of the paper: STS benchmark, STS12–16, SICK, SNLI/AllNLI and the SentEval transfer tasks.

========================  ==================================================================
module                    holds
========================  ==================================================================
``data.records``          ``STSPair``, ``NLIPair``, ``Triplet``, ``SentEvalTask``; the errors
``data.files``            finding files (data folders, downloads), reading them line by line
``data.sources``          where each data set's original files are published (``SOURCES``)
``data.sts``              ``load_stsb``, ``load_sts_year``, ``load_sick``, ``load_sts_dataset``
``data.nli``              ``load_snli``, ``load_allnli``, ``load_sick_nli``, ``nli_triplets``
``data.senteval``         ``load_senteval``
``data.own``              your own CSV/TSV: ``load_scored_pairs``, ``load_labelled_pairs``,
                          ``load_sentences``, ``group_split``
========================  ==================================================================

Every loader reads from the data directory: an explicit ``data_dir`` argument (then *only* there),
else ``$SBERTLIB_DATA_DIR``, else the checkout's ``data/``, else ``./data`` (see :mod:`sbertlib.config`).
Malformed input raises :class:`DataFormatError` naming the file and the 1-based line; a missing
file raises :class:`DataNotFoundError` saying where it looked and how to provide the file.
Sentences are returned with surrounding whitespace stripped and otherwise untouched.
"""
from . import hub
from .files import download, locate
from .nli import load_allnli, load_sick_nli, load_snli, nli_triplets
from .own import group_split, load_labelled_pairs, load_scored_pairs, load_sentences
from .records import (NLI_LABELS, ChecksumError, DataFormatError, DataNotFoundError, NLIPair, SentEvalTask,
                      STSPair, Triplet)
from .sources import ARCHIVE_SOURCES, SOURCES
from .senteval import SENTEVAL_TASKS, TREC_LABELS, load_senteval
from .sts import STS_DATASETS, STS_SUBSETS, load_sick, load_sts_dataset, load_sts_year, load_stsb

__all__ = ["hub", "ARCHIVE_SOURCES", "SOURCES", "download", "locate", "load_allnli", "load_sick_nli", "load_snli",
           "nli_triplets", "NLI_LABELS", "ChecksumError", "DataFormatError", "DataNotFoundError", "NLIPair",
           "SentEvalTask", "STSPair", "Triplet", "SENTEVAL_TASKS", "TREC_LABELS", "load_senteval",
           "STS_DATASETS", "STS_SUBSETS", "load_sick", "load_sts_dataset", "load_sts_year", "load_stsb",
           "group_split", "load_labelled_pairs", "load_scored_pairs", "load_sentences"]
