"""What this machine can do in low precision: the CPU's features and name, CUDA and Apple GPUs (MPS).

The hardware is read the same way on Linux, macOS and Windows: torch's own CPU capability map
first (``torch.cpu.get_capabilities``, or its ``_is_*_supported`` probes in older torch), then
Linux's ``/proc/cpuinfo``, then macOS's ``sysctl``; a feature any of them reports counts. The CPU's
name comes from ``/proc/cpuinfo``, ``sysctl machdep.cpu.brand_string`` or the Windows registry, else
torch's or :mod:`platform`'s. Where no source answers, bf16 support is reported as unknown.

Which precision to use is :mod:`sbertlib.model.precision`'s; putting a model into one,
:mod:`sbertlib.model.casting`'s.
"""
from __future__ import annotations

import functools
import platform
import subprocess
from pathlib import Path

import torch

CPUINFO = Path("/proc/cpuinfo")  # Linux only; tests point it elsewhere
# torch's capability names where /proc/cpuinfo's (the names cpu_flags() returns) differ
_TORCH_NAMES = {"avx512_f": "avx512f", "avx512_cd": "avx512cd", "avx512_dq": "avx512dq", "avx512_bw": "avx512bw",
                "avx512_vl": "avx512vl", "avx512_ifma": "avx512ifma", "avx512_vbmi": "avx512vbmi", "fma3": "fma"}
# older torch: the probes it offers instead of get_capabilities(), by the capability they answer
_TORCH_PROBES = {"avx512_bf16": "_is_avx512_bf16_supported", "avx512_f": "_is_avx512_supported",
                 "amx_tile": "_is_amx_tile_supported", "avx2": "_is_avx2_supported"}
# macOS sysctl feature words (lower-cased) where /proc/cpuinfo's names differ
_MAC_NAMES = {"avx1.0": "avx", "sse4.1": "sse4_1", "sse4.2": "sse4_2", "avx512bf16": "avx512_bf16"}


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
