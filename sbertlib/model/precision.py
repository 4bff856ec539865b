"""Which numeric precision to encode in: the settings, what runs where, ``auto``, the measured choice.

=========  ==========================================================================
precision  what runs
=========  ==========================================================================
``fp32``   the weights as trained (the reference)
``bf16``   weights and activations in bfloat16: 8 exponent bits like fp32, 8 mantissa bits.
           Fast where the hardware multiplies bf16 natively (CPU: AMX or AVX512-BF16;
           GPU: Ampere and newer); elsewhere it is emulated and *slower* than fp32.
           On Apple's GPU (``mps``) only with macOS 14 or newer
``fp16``   float16 on a GPU: CUDA or Apple's ``mps`` (5 exponent bits: may overflow; a CPU
           emulates it)
``int8``   dynamic quantisation of every ``nn.Linear`` (weights stored as int8, activations
           quantised per batch) by torch.ao's ``quantize_dynamic``, deprecated in torch 2.13
           but, in eager mode on a CPU, still the fast one: see
           :func:`sbertlib.model.casting.quantize_int8`; CPU only
``auto``   bf16 where it is native *and* the pooling averages over tokens (mean, max), else
           fp32 — see :func:`auto_precision`
=========  ==========================================================================

Whatever the precision, :meth:`SentenceEncoder.encode` returns float32 vectors: pooling and
normalisation run in float32 on the backbone's output.

What this machine can do is :mod:`sbertlib.model.hardware`'s; putting a backbone into a precision,
:mod:`sbertlib.model.casting`'s.
"""
from __future__ import annotations

import importlib.util
from typing import Sequence

import torch

from ..errors import SettingError
from . import casting, hardware

PRECISIONS = ("fp32", "bf16", "fp16", "int8", "auto")


def check_precision(precision: str, device: torch.device | str) -> str:
    """``precision`` if it can run on ``device``; ValueError naming the setting otherwise."""
    kind = torch.device(device).type
    if precision not in PRECISIONS:
        raise SettingError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    if precision == "fp16" and kind not in ("cuda", "mps"):
        raise SettingError(f"precision='fp16' needs a CUDA GPU or Apple's GPU (mps) (float16 on {kind} is emulated "
                           "or unsupported); on a CPU use 'bf16' or 'int8'")
    if precision == "bf16" and kind == "mps" and not hardware.mps_bf16_supported():
        raise SettingError("precision='bf16' on mps needs macOS 14 or newer and a torch that runs bf16 there; "
                           "on this Mac use 'fp16'")
    if precision == "int8" and kind != "cpu":
        raise SettingError(f"precision='int8' (dynamic quantisation) runs on the CPU only, not {kind}; "
                           "on a GPU use 'bf16' or 'fp16'")
    if (precision == "int8" and casting.int8_backend_in_use() == "torchao"
            and importlib.util.find_spec("torchao") is None):
        raise SettingError("int8 through torchao needs torchao, which is not installed: "
                           "pip install 'sbertlib[torchao]' (or torchao)")
    return precision


def auto_precision(device: torch.device | str, pooling: str) -> str:
    """What ``precision="auto"`` means: bf16 where the hardware multiplies it natively and the pooling
    combines many token vectors (mean, max), else fp32.

    Measured (STSb test Spearman ×100, fp32 → bf16, 2026-11-24): mean and max pooling moved by at most
    0.05 (all-MiniLM-L6-v2 82.03 → 82.04 and 78.80 → 78.78; random-bert-2x128 trained and untrained);
    CLS pooling moved by 0.06 for the trained encoders and 0.96 for the untrained one — one token's
    vector carries its rounding errors alone, where a mean or max over tokens does not.
    """
    return "bf16" if pooling in ("mean", "max") and hardware.bf16_is_fast(device) else "fp32"


def is_emulated(precision: str, device: torch.device | str) -> bool:
    """True where ``precision`` runs on ``device`` only emulated, slower than fp32: bf16 on a CPU known to
    have neither AMX nor AVX512-BF16 (most laptops), or on a CUDA GPU before Ampere."""
    kind = torch.device(device).type
    if precision != "bf16" or kind not in ("cpu", "cuda"):
        return False
    return hardware.cpu_bf16() == "emulated" if kind == "cpu" else not hardware.bf16_is_fast(device)


# ----------------------------------------------------------------------------- choosing one
def available_precisions(device: torch.device | str) -> tuple[str, ...]:
    """The precisions :meth:`SentenceEncoder.encode` runs on ``device``: fp16 on a GPU (CUDA, mps), int8 on
    the CPU; bf16 everywhere but on an mps that lacks it (before macOS 14)."""
    kind = torch.device(device).type
    if kind == "mps":
        return ("fp32", "fp16", "bf16") if hardware.mps_bf16_supported() else ("fp32", "fp16")
    return ("fp32", "bf16", "fp16") if kind == "cuda" else ("fp32", "bf16", "int8")


def pick_precision(rows: Sequence[dict], tolerance: float = 0.05) -> str:
    """The fastest precision whose Spearman is within ``tolerance`` of fp32's, either way (fp32 qualifies).

    ``rows``: measured rows with ``precision``, ``spearman`` and ``sent_per_s``, as
    :func:`sbertlib.evaluation.speed.precision_comparison` returns them."""
    fp32 = next((r["spearman"] for r in rows if r["precision"] == "fp32"), None)
    if fp32 is None:
        raise SettingError("pick_precision needs the fp32 row: the Spearman every other precision is compared with")
    allowed = [r for r in rows if abs(r["spearman"] - fp32) <= tolerance]
    return max(allowed, key=lambda r: r["sent_per_s"])["precision"]
