"""Putting a backbone into a precision for inference: a cast copy (bf16, fp16) or an int8-quantised one.

Which precision to use is :mod:`sbertlib.model.precision`'s. int8 quantises every ``nn.Linear``
with torch.ao's ``quantize_dynamic`` (deprecated in torch 2.13 but, in eager mode on a CPU, still the
fast one: see :func:`quantize_int8`), or with torchao, its replacement, inside
``int8_backend("torchao")`` (the bench times it beside: ``int8-torchao``). transformers imports
torchao wherever it is installed; :func:`quiet_torchao_import` filters what that import logs.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import logging
import warnings
from typing import Callable, Iterator

import torch

from ..errors import SettingError

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# how int8 quantises: torch.ao's quantize_dynamic (deprecated in torch 2.13, still the fast one in eager
# mode), or torchao, its replacement (the bench times it beside: int8-torchao); see quantize_int8
INT8_BACKENDS = ("torch.ao", "torchao")
_INT8 = {"backend": "torch.ao"}


def cast_backbone(backbone: torch.nn.Module, precision: str) -> torch.nn.Module:
    """A copy of ``backbone`` at ``precision`` for inference (``fp32``: the backbone itself)."""
    if precision == "fp32":
        return backbone
    grads = {p: p.grad for p in backbone.parameters()}
    for p in grads:  # the copy is for inference: it must not carry (or keep alive) training's gradients
        p.grad = None
    try:
        clone = copy.deepcopy(backbone).eval()
    finally:
        for p, g in grads.items():
            p.grad = g
    if precision == "int8":
        return quantize_int8(clone)
    return clone.to(DTYPES[precision])


def int8_backend_in_use() -> str:
    """The library ``int8`` casts quantise with now: one of :data:`INT8_BACKENDS` (see :func:`int8_backend`)."""
    return _INT8["backend"]


@contextlib.contextmanager
def int8_backend(name: str) -> Iterator[None]:
    """Within the block, ``int8`` casts quantise with ``name`` (one of :data:`INT8_BACKENDS`), e.g. torchao
    for the bench's comparison. An encoder keeps the int8 copy it has made: use one made inside."""
    if name not in INT8_BACKENDS:
        raise SettingError(f"int8 backend must be one of {INT8_BACKENDS}, not {name!r}")
    saved, _INT8["backend"] = _INT8["backend"], name
    try:
        yield
    finally:
        _INT8["backend"] = saved


def quantize_int8(module: torch.nn.Module) -> torch.nn.Module:
    """``module`` with every ``nn.Linear`` quantised to int8 for inference, in place.

    By torch.ao's ``quantize_dynamic``: one scale for each weight matrix, activations quantised per batch,
    fbgemm's fused int8 kernels. torch 2.13 deprecates it, with its quantized tensor types, in favour of
    torchao; its deprecation warnings are filtered here, because the replacement does not do this job
    yet. torchao's ``Int8DynamicActivationInt8WeightConfig`` (torchao 0.18, run inside
    ``int8_backend("torchao")``) rounds less — a scale per weight row and per token — but in eager mode
    it runs as separate operations: the activations' quantisation, then ``torch._int_mm``, which on a CPU
    is slower than an fp32 matrix product. It is fast only under ``torch.compile`` (Inductor lowers it to
    oneDNN's int8 kernels), whose compilation — minutes on two cores, again for each new batch shape —
    ``encode`` cannot pay. Measured with all-MiniLM-L6-v2 on the STSb test sentences (BENCHMARKS.md,
    2-core Xeon with AMX, torch 2.13): torchao's int8 ran at about half fp32's speed, torch.ao's at about
    2.3×; STSb Spearman 81.75 and 81.08 (fp32 82.03). When torch removes ``quantize_dynamic``, int8 moves
    to torchao (compiled); ``python -m sbertlib.bench encode --precision fp32,int8,int8-torchao`` compares them.
    """
    if _INT8["backend"] == "torch.ao":
        from torch.ao.quantization import quantize_dynamic
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated in torch 2.13; its replacement is slower here (above)
            return quantize_dynamic(module, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
    quantize_, config = _torchao()
    quantize_(module, config())
    return module


def _torchao() -> tuple[Callable, type]:
    """torchao's ``quantize_`` and ``Int8DynamicActivationInt8WeightConfig`` (its import noise filtered:
    :func:`quiet_torchao_import`)."""
    quiet_torchao_import()
    from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_
    return quantize_, Int8DynamicActivationInt8WeightConfig


class _DropLogRecords(logging.Filter):
    """Drops the records whose message passes ``drop``."""

    def __init__(self, drop: Callable[[str], bool]) -> None:
        super().__init__()
        self.drop = drop

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.drop(record.getMessage())


_TORCHAO_NOISE: dict[str, Callable[[str], bool]] = {
    # a torch built without CUDA cannot load torchao's CUDA kernel libraries (int8 on the CPU needs none)
    "torchao": lambda msg: msg.startswith("Failed to load ") and "torchao" in msg and "_C" in msg
    and torch.version.cuda is None,
    # torch 2.13 deprecates how torchao registers two Enum types with torch.compile (not used here)
    "torch.utils._pytree": lambda msg: "is an Enum subclass and is now natively supported by torch.compile" in msg,
}


@functools.lru_cache(maxsize=1)
def quiet_torchao_import() -> None:
    """Filter, once, the lines torchao's import logs that say nothing to a user of this library.

    transformers imports torchao whenever it is installed (for its own quantisers), so every process
    that loads a backbone imports it; with a CPU-only torch each import logged "Failed to load …/_C….so"
    for two CUDA libraries, and torch 2.13 two "… is an Enum subclass … register_constant() … is
    deprecated" lines. Only records with those messages are dropped, on those two loggers; called by
    :mod:`sbertlib.model` before anything imports transformers."""
    for name, drop in _TORCHAO_NOISE.items():
        logging.getLogger(name).addFilter(_DropLogRecords(drop))
