"""Text as a tokenizer can read it: what :meth:`SentenceEncoder.encode` and ``tokenize`` do to odd input.

Emoji, right-to-left scripts (Arabic, Hebrew), combining marks and control characters pass unchanged:
the tokenizer reads them (BERT's drops control characters and maps what its vocabulary lacks to
``[UNK]``), and each text still gets a finite vector.

A *lone surrogate* — a code point U+D800–U+DFFF without its partner, e.g. half of an emoji cut out of
UTF-16 text, or a byte that was not UTF-8 decoded with ``errors="surrogateescape"`` — is not a
character: no UTF-8 tokenizer can read it (the Hugging Face tokenizers fail with a bare ``TypeError``
on the whole batch). :func:`replace_lone_surrogates` replaces each with U+FFFD, the replacement
character, and warns once naming how many texts and the first item. A surrogate *pair* written as two
code points (``"\\ud83d\\ude00"``) is joined into the character it encodes (😀), without a warning.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _repair(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def replace_lone_surrogates(texts: Any) -> Any:
    """``texts`` (a list of strings) with every lone surrogate replaced by U+FFFD, and one warning
    naming how many texts held one and the first item; a list without surrogates comes back as it is.
    Anything else (one string, an item that is not a string) passes through for the type check.
    Called straight from a public method: the warning points at that method's caller."""
    if isinstance(texts, (str, bytes)):
        return texts
    texts = list(texts)
    odd = [i for i, t in enumerate(texts) if isinstance(t, str) and _SURROGATE.search(t)]
    if not odd:
        return texts
    out, lone = list(texts), []
    for i in odd:
        out[i] = _repair(texts[i])
        if out[i].count(REPLACEMENT) > texts[i].count(REPLACEMENT):
            lone.append(i)
    if lone:
        warnings.warn(f"{len(lone)} of {len(texts)} texts hold a lone surrogate (a code point U+D800-U+DFFF "
                      f"without its pair; first: item {lone[0]}), which no tokenizer reads: each was replaced "
                      "by U+FFFD, the replacement character", stacklevel=3)
    return out
