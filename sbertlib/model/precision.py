"""Numeric precision for inference: what the hardware offers, and a backbone cast to it.

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
           but, in eager mode on a CPU, still the fast one: see :func:`quantize_int8`; CPU only
``auto``   bf16 where it is native *and* the pooling averages over tokens (mean, max), else
           fp32 — see :func:`auto_precision`
=========  ==========================================================================

Whatever the precision, :meth:`SentenceEncoder.encode` returns float32 vectors: pooling and
normalisation run in float32 on the backbone's output.

The hardware is read the same way on Linux, macOS and Windows: torch's own CPU capability map
first (``torch.cpu.get_capabilities``, or its ``_is_*_supported`` probes in older torch), then
Linux's ``/proc/cpuinfo``, then macOS's ``sysctl``; a feature any of them reports counts. The CPU's
name comes from ``/proc/cpuinfo``, ``sysctl machdep.cpu.brand_string`` or the Windows registry, else
torch's or :mod:`platform`'s. Where no source answers, bf16 support is reported as unknown.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import importlib.util
import logging
import platform
import warnings
import subprocess
from pathlib import Path

import torch
from ..errors import SettingError

PRECISIONS = ("fp32", "bf16", "fp16", "int8", "auto")
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
CPUINFO = Path("/proc/cpuinfo")  # Linux only; tests point it elsewhere
# torch's capability names where /proc/cpuinfo's (the names cpu_flags() returns) differ
_TORCH_NAMES = {"avx512_f": "avx512f", "avx512_cd": "avx512cd", "avx512_dq": "avx512dq", "avx512_bw": "avx512bw",
                "avx512_vl": "avx512vl", "avx512_ifma": "avx512ifma", "avx512_vbmi": "avx512vbmi", "fma3": "fma"}
# older torch: the probes it offers instead of get_capabilities(), by the capability they answer
_TORCH_PROBES = {"avx512_bf16": "_is_avx512_bf16_supported", "avx512_f": "_is_avx512_supported",
                 "amx_tile": "_is_amx_tile_supported", "avx2": "_is_avx2_supported"}
# macOS sysctl feature words (lower-cased) where /proc/cpuinfo's names differ
_MAC_NAMES = {"avx1.0": "avx", "sse4.1": "sse4_1", "sse4.2": "sse4_2", "avx512bf16": "avx512_bf16"}
# how int8 quantises: torch.ao's quantize_dynamic (deprecated in torch 2.13, still the fast one in eager
# mode), or torchao, its replacement (the bench times it beside: int8-torchao); see quantize_int8
INT8_BACKENDS = ("torch.ao", "torchao")
_INT8 = {"backend": "torch.ao"}


def check_precision(precision: str, device: torch.device | str) -> str:
    """``precision`` if it can run on ``device``; ValueError naming the setting otherwise."""
    kind = torch.device(device).type
    if precision not in PRECISIONS:
        raise SettingError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    if precision == "fp16" and kind not in ("cuda", "mps"):
        raise SettingError(f"precision='fp16' needs a CUDA GPU or Apple's GPU (mps) (float16 on {kind} is emulated "
                           "or unsupported); on a CPU use 'bf16' or 'int8'")
    if precision == "bf16" and kind == "mps" and not mps_bf16_supported():
        raise SettingError("precision='bf16' on mps needs macOS 14 or newer and a torch that runs bf16 there; "
                           "on this Mac use 'fp16'")
    if precision == "int8" and kind != "cpu":
        raise SettingError(f"precision='int8' (dynamic quantisation) runs on the CPU only, not {kind}; "
                           "on a GPU use 'bf16' or 'fp16'")
    if precision == "int8" and _INT8["backend"] == "torchao" and importlib.util.find_spec("torchao") is None:
        raise SettingError("int8 through torchao needs torchao, which is not installed: "
                           "pip install 'sbertlib[torchao]' (or torchao)")
    return precision


# ----------------------------------------------------------------------------- the CPU, on any OS
def _torch_capabilities() -> dict:
    """torch's own CPU capability map (any OS); from its older probes where it lacks one; else empty."""
    get = getattr(torch.cpu, "get_capabilities", None)
    if get is not None:
        try:
            return dict(get())
        except (RuntimeError, AttributeError):
            pass
    caps = {}
    for key, name in _TORCH_PROBES.items():
        probe = getattr(torch.cpu, name, None)
        if probe is not None:
            try:
                caps[key] = bool(probe())
            except (RuntimeError, AttributeError):
                pass
    return caps


def _torch_flags() -> frozenset[str] | None:
    """The features torch reports present, in /proc/cpuinfo's names; None where torch cannot say."""
    caps = _torch_capabilities()
    known = {k: v for k, v in caps.items() if isinstance(v, bool)}
    return frozenset(_TORCH_NAMES.get(k, k) for k, v in known.items() if v) if known else None


@functools.lru_cache(maxsize=1)
def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of Linux ``/proc/cpuinfo`` (empty where that file does not exist)."""
    fields: dict[str, str] = {}
    if CPUINFO.is_file():
        for line in CPUINFO.read_text(errors="replace").splitlines():
            if not line.strip():
                break
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    return fields


def _cpuinfo_flags() -> frozenset[str] | None:
    """``/proc/cpuinfo``'s flags (x86: ``flags``, Arm: ``Features``); None where it has none."""
    info = _cpuinfo()
    words = info.get("flags", info.get("Features"))
    return None if words is None else frozenset(words.split())


@functools.lru_cache(maxsize=None)
def _sysctl(name: str) -> str | None:
    """``sysctl -n name`` (macOS, BSD); None where the command or the key does not exist."""
    try:
        out = subprocess.run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _mac_flags() -> frozenset[str] | None:
    """macOS's CPU features: Intel's feature words, and Arm's ``FEAT_BF16`` as ``bf16``; None elsewhere."""
    if platform.system() != "Darwin":
        return None
    words = " ".join(filter(None, (_sysctl("machdep.cpu.features"), _sysctl("machdep.cpu.leaf7_features"))))
    bf16 = _sysctl("hw.optional.arm.FEAT_BF16")
    if not words and bf16 is None:
        return None
    return frozenset({_MAC_NAMES.get(w, w) for w in words.lower().split()} | ({"bf16"} if bf16 == "1" else set()))


@functools.lru_cache(maxsize=1)
def _flag_sources() -> dict[str, frozenset[str]]:
    """The CPU features each source that answered reports, in the order asked: torch, /proc/cpuinfo, sysctl."""
    found = {"torch": _torch_flags(), "/proc/cpuinfo": _cpuinfo_flags(), "sysctl": _mac_flags()}
    return {source: flags for source, flags in found.items() if flags is not None}


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags, in Linux's names, from every source that answered (empty where none did)."""
    return frozenset().union(*_flag_sources().values())


def _windows_cpu_name() -> str | None:
    """The name Windows shows for the CPU (its registry); None elsewhere."""
    try:
        import winreg
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0") as key:
            return str(winreg.QueryValueEx(key, "ProcessorNameString")[0]).strip() or None
    except (ImportError, OSError):
        return None


def cpu_name() -> str:
    """The CPU's name: the OS's own (Linux ``/proc/cpuinfo``, macOS ``sysctl``, Windows registry), else
    torch's, else :mod:`platform`'s."""
    system = platform.system()
    own = {"Darwin": lambda: _sysctl("machdep.cpu.brand_string"), "Windows": _windows_cpu_name}.get(system)
    return ((own and own()) or _cpuinfo().get("model name") or str(_torch_capabilities().get("cpu_name") or "")
            or platform.processor() or platform.machine() or "unknown CPU")


def _cpu_capability() -> str:
    """The vector code torch's CPU kernels run here (``AVX512``, ``AVX2``, ``SVE256``, ``DEFAULT``...)."""
    get = getattr(torch.backends.cpu, "get_cpu_capability", None)
    return get() if get is not None else "unknown"


def cpu_bf16(flags: frozenset[str] | None = None) -> str:
    """``native`` (AMX-BF16 or AVX512-BF16: measured faster than fp32), ``emulated`` (the CPU's features are
    known and have neither), or ``unknown``: no source answered, or Arm's BF16 instructions, which
    PyTorch's speed against fp32 was not measured on (Apple's fp32 runs on its matrix units)."""
    flags = cpu_flags() if flags is None else flags
    if {"amx_bf16", "avx512_bf16"} & flags:
        return "native"
    return "emulated" if _flag_sources() and "bf16" not in flags else "unknown"


# ----------------------------------------------------------------------------- GPUs: CUDA, Apple (MPS)
def mps_available() -> bool:
    """True where Apple's GPU backend (``mps``) runs."""
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def _mps_runs_bf16() -> bool:
    """Try it: a bf16 product on ``mps`` (torch raises where this macOS or torch lacks bf16 there)."""
    try:
        x = torch.ones(2, 2, dtype=torch.bfloat16, device="mps")
        return float((x @ x).sum()) == 8.0
    except (RuntimeError, TypeError):
        return False


@functools.lru_cache(maxsize=1)
def mps_bf16_supported() -> bool:
    """True where ``mps`` runs bfloat16: macOS 14 or newer, with a torch that supports it (tried once)."""
    if not mps_available():
        return False
    newer = getattr(torch.backends.mps, "is_macos_or_newer", None)
    if newer is not None and not newer(14, 0):
        return False
    return _mps_runs_bf16()


def _cuda_bf16_native() -> bool:
    """bf16 in hardware (Ampere, compute capability 8.0, or newer); torch's own test also counts
    emulated bf16 (V100, T4), which is slower than fp16 there."""
    return torch.cuda.get_device_capability(0) >= (8, 0)


def _forget() -> None:
    """Drop what was detected (tests that fake another machine call it before and after)."""
    for cached in (_cpuinfo, _sysctl, _flag_sources, mps_bf16_supported):
        cached.cache_clear()


# ----------------------------------------------------------------------------- what it means
def hardware() -> dict:
    """What this machine offers for low precision: OS, CPU name and features (and which sources
    answered), CUDA GPU, Apple GPU (MPS)."""
    flags, cuda = cpu_flags(), torch.cuda.is_available()
    return {"os": platform.system(), "machine": platform.machine(), "cpu": cpu_name(),
            "cpu_capability": _cpu_capability(), "cpu_flag_sources": list(_flag_sources()),
            "amx_bf16": "amx_bf16" in flags, "avx512_bf16": "avx512_bf16" in flags,
            "avx512f": "avx512f" in flags, "amx_int8": "amx_int8" in flags, "arm_bf16": "bf16" in flags,
            "cpu_bf16": cpu_bf16(flags),
            "cuda": torch.cuda.get_device_name(0) if cuda else None, "cuda_bf16": bool(cuda and _cuda_bf16_native()),
            "mps": mps_available(), "mps_bf16": mps_bf16_supported()}


def bf16_is_fast(device: torch.device | str = "cpu") -> bool:
    """True when ``device`` multiplies bfloat16 natively: a CUDA GPU with bf16, or a CPU with AMX or
    AVX512-BF16. Without them PyTorch emulates bf16 on the CPU, several times slower than fp32.
    False where that is not known (Apple's GPU, Arm CPUs, a CPU no source describes)."""
    kind = torch.device(device).type
    if kind == "cuda":
        return bool(torch.cuda.is_available() and _cuda_bf16_native())
    return kind == "cpu" and cpu_bf16() == "native"


_CPU_BF16_WORDS = {"native": "native, faster than fp32", "emulated": "emulated, slower than fp32"}


def _cpu_units(hw: dict) -> str:
    """The low-precision units found, or what is known of their absence."""
    units = [name for name, key in (("AMX-BF16", "amx_bf16"), ("AVX512-BF16", "avx512_bf16"), ("AVX-512", "avx512f"),
                                    ("AMX-INT8", "amx_int8"), ("Arm BF16", "arm_bf16")) if hw[key]]
    return ", ".join(units) or ("no AMX, no AVX-512" if hw["cpu_flag_sources"] else "features unknown")


def _cpu_bf16_words(hw: dict) -> str:
    """What bf16 does on this CPU, in words."""
    if hw["cpu_bf16"] in _CPU_BF16_WORDS:
        return _CPU_BF16_WORDS[hw["cpu_bf16"]]
    if hw["arm_bf16"]:
        return "in the instruction set, speed against fp32 not measured (auto keeps fp32)"
    return "support unknown: torch, /proc/cpuinfo and sysctl did not say (auto keeps fp32)"


def describe_hardware(device: torch.device | str = "cpu") -> str:
    """One line: what was detected and what it means for bf16."""
    hw, kind = hardware(), torch.device(device).type
    if kind == "cuda" and hw["cuda"]:
        return f"GPU {hw['cuda']}: bf16 {'native' if hw['cuda_bf16'] else 'not supported'}, fp16 native"
    if kind == "mps" and hw["mps"]:
        bf16 = "runs (macOS 14+), speed not measured" if hw["mps_bf16"] else "not supported (needs macOS 14 or newer)"
        return f"Metal GPU (mps; CPU {hw['cpu']}): fp16 runs; bf16 {bf16}; int8 is CPU only"
    return f"CPU {hw['cpu']} ({hw['cpu_capability']}; {_cpu_units(hw)}): bf16 {_cpu_bf16_words(hw)}"


def auto_precision(device: torch.device | str, pooling: str) -> str:
    """What ``precision="auto"`` means: bf16 where the hardware multiplies it natively and the pooling
    combines many token vectors (mean, max), else fp32.

    Measured (STSb test Spearman ×100, fp32 → bf16, 2026-11-24): mean and max pooling moved by at most
    0.05 (all-MiniLM-L6-v2 82.03 → 82.04 and 78.80 → 78.78; random-bert-2x128 trained and untrained);
    CLS pooling moved by 0.06 for the trained encoders and 0.96 for the untrained one — one token's
    vector carries its rounding errors alone, where a mean or max over tokens does not.
    """
    return "bf16" if pooling in ("mean", "max") and bf16_is_fast(device) else "fp32"


# ----------------------------------------------------------------------------- choosing one
def available_precisions(device: torch.device | str) -> tuple[str, ...]:
    """The precisions :meth:`SentenceEncoder.encode` runs on ``device``: fp16 on a GPU (CUDA, mps), int8 on
    the CPU; bf16 everywhere but on an mps that lacks it (before macOS 14)."""
    kind = torch.device(device).type
    if kind == "mps":
        return ("fp32", "fp16", "bf16") if mps_bf16_supported() else ("fp32", "fp16")
    return ("fp32", "bf16", "fp16") if kind == "cuda" else ("fp32", "bf16", "int8")


def pick_precision(rows, tolerance: float = 0.05) -> str:
    """The fastest precision whose Spearman is within ``tolerance`` of fp32's, either way (fp32 qualifies).

    ``rows``: measured rows with ``precision``, ``spearman`` and ``sent_per_s``, as
    :func:`sbertlib.evaluation.speed.precision_comparison` returns them."""
    fp32 = next((r["spearman"] for r in rows if r["precision"] == "fp32"), None)
    if fp32 is None:
        raise SettingError("pick_precision needs the fp32 row: the Spearman every other precision is compared with")
    allowed = [r for r in rows if abs(r["spearman"] - fp32) <= tolerance]
    return max(allowed, key=lambda r: r["sent_per_s"])["precision"]

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


@contextlib.contextmanager
def int8_backend(name: str):
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


def _torchao():
    """torchao's ``quantize_`` and ``Int8DynamicActivationInt8WeightConfig`` (its import noise filtered:
    :func:`quiet_torchao_import`)."""
    quiet_torchao_import()
    from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_
    return quantize_, Int8DynamicActivationInt8WeightConfig


class _DropLogRecords(logging.Filter):
    """Drops the records whose message passes ``drop``."""

    def __init__(self, drop) -> None:
        super().__init__()
        self.drop = drop

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.drop(record.getMessage())


_TORCHAO_NOISE = {
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
