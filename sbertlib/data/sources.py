"""Where each data set's original files are published: a file's own address (:data:`SOURCES`), or the
archive that holds it (:data:`ARCHIVE_SOURCES`), keyed by its path in a local data folder.

Read by :mod:`sbertlib.data.files` (to download a missing file, or say where to find it) and by
:mod:`sbertlib.data.hub` (the fallback when a Hub copy is gone, and the catalogue's table).
"""
from __future__ import annotations

# Files fetched from their publisher when no local folder holds them and the Hub has no verified copy
# (every other data set comes from the Hub: data.hub.CATALOGUE).
_TREC = "https://cogcomp.seas.upenn.edu/Data/QA/QC"  # SentEval's cogcomp.cs.illinois.edu moved here
SOURCES: dict[str, str] = {f"senteval/TREC/{n}.label": f"{_TREC}/{n}.label" for n in ("train_5500", "TREC_10")}
# SentEval's binary SST files, from the address its get_transfer_data.bash downloads them (not checked offline).
_SST = "https://raw.githubusercontent.com/PrincetonML/SIF/master/data"
SOURCES.update({f"senteval/SST/binary/sentiment-{s}": f"{_SST}/sentiment-{s}" for s in ("train", "dev", "test")})
# Files published only inside archives (or needing conversion): named in the error, not auto-fetched.
# Keys are a file or a folder prefix; URLs are the ones SentEval's get_transfer_data.bash uses.
_STSWIKI = "http://ixa2.si.ehu.eus/stswiki/images"
_SICK = "https://alt.qcri.org/semeval2014/task1/data/uploads"
_FAIR = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
ARCHIVE_SOURCES: dict[str, str] = {
    "stsbenchmark/": f"{_STSWIKI}/4/48/Stsbenchmark.tar.gz",
    "sts/STS12/": f"{_STSWIKI}/4/40/STS2012-en-test.zip",
    "sts/STS13/": f"{_STSWIKI}/2/2f/STS2013-en-test.zip",
    "sts/STS14/": f"{_STSWIKI}/8/8c/STS2014-en-test.zip",
    "sts/STS15/": f"{_STSWIKI}/d/da/STS2015-en-test.zip",
    "sts/STS16/": f"{_STSWIKI}/9/98/STS2016-en-test.zip",
    **{f"sick/SICK_{s}.txt": f"{_SICK}/sick_{s}.zip" for s in ("train", "trial", "test_annotated")},
    "snli/": "https://nlp.stanford.edu/projects/snli/snli_1.0.zip",
    **{f"senteval/{t}/": f"{_FAIR}/datasmall_NB_ACL12.zip" for t in ("MR", "CR", "SUBJ", "MPQA")},
}


def archive_for(relpath: str) -> str | None:
    """The archive that holds ``relpath`` (the longest matching key of :data:`ARCHIVE_SOURCES`), if any."""
    keys = [k for k in ARCHIVE_SOURCES if relpath == k or (k.endswith("/") and relpath.startswith(k))]
    return ARCHIVE_SOURCES[max(keys, key=len)] if keys else None


def original_url(relpath: str) -> str | None:
    """Where the original of ``relpath`` is published: the file itself, else an archive holding it."""
    return SOURCES.get(relpath) or archive_for(relpath)
