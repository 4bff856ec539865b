"""Precision: encode in bf16/int8 returns float32 close to fp32; settings refused clearly; bf16 autocast trains."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch

from sbertlib.losses import CosineSimilarityLoss
from sbertlib.model import casting, hardware
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.training import fit

pytestmark = pytest.mark.usefixtures("one_thread")
SENTENCES = ["A man is playing a guitar.", "Two dogs run in the park.", "The stock market fell.", "Hello"]


def tiny() -> SentenceEncoder:
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


@pytest.mark.parametrize("name, tolerance", [("bf16", 0.05), ("int8", 0.1)])
def test_low_precision_encode_is_float32_and_close_to_fp32(name, tolerance):
    enc = tiny()
    ref = enc.encode(SENTENCES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bf16 may be emulated on this CPU (it says so)
        low = enc.encode(SENTENCES, precision=name)
    assert low.dtype == np.float32 and low.shape == ref.shape
    cos = (low * ref).sum(1) / np.linalg.norm(low, axis=1) / np.linalg.norm(ref, axis=1)
    assert cos.min() > 1 - tolerance
    assert not np.array_equal(low, ref)  # it really ran at another precision


def test_cast_copy_follows_the_weights_and_leaves_them_float32():
    enc = tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = enc.encode(SENTENCES, precision="bf16")
        assert enc.inference_backbone("bf16") is enc.inference_backbone("bf16")  # made once
        with torch.no_grad():
            enc.backbone.embeddings.word_embeddings.weight.mul_(2.0)  # a training step changes weights in place
        after = enc.encode(SENTENCES, precision="bf16")
    assert not np.allclose(before, after)
    assert all(p.dtype == torch.float32 for p in enc.parameters())


def test_default_precision_is_a_setting_and_bad_settings_are_named():
    enc = tiny()
    assert enc.precision == "fp32"
    enc.precision = "int8"
    np.testing.assert_array_equal(enc.encode(SENTENCES), enc.encode(SENTENCES, precision="int8"))
    with pytest.raises(ValueError, match="precision must be one of"):
        enc.precision = "fp8"
    with pytest.raises(ValueError, match="needs a CUDA GPU"):
        enc.encode(SENTENCES, precision="fp16")


def test_bf16_autocast_trains_on_cpu_and_fp16_is_refused():
    enc = tiny()
    data = [("a man plays", "a man plays music", 0.9), ("a dog", "the market", 0.1)] * 2
    dtypes = []  # what the backbone's linear layers compute in during training
    hooks = [m.register_forward_hook(lambda mod, inp, out: dtypes.append(out.dtype))
             for m in enc.backbone.modules() if isinstance(m, torch.nn.Linear)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # emulated bf16 warns on CPUs without AMX/AVX512-BF16
        history = fit(enc, CosineSimilarityLoss(enc), data, batch_size=2, mixed_precision="bf16",
                      show_progress_bar=False)
    for h in hooks:
        h.remove()
    assert dtypes and set(dtypes) == {torch.bfloat16}  # autocast was on for every forward
    assert len(history.records) == 2 and all(np.isfinite(r["loss"]) for r in history.records)
    assert all(p.dtype == torch.float32 for p in enc.parameters())
    with pytest.raises(ValueError, match="fp16.*needs a CUDA GPU"):
        fit(enc, CosineSimilarityLoss(enc), data, batch_size=2, mixed_precision="fp16", show_progress_bar=False)


def test_auto_is_bf16_only_where_native_and_only_for_pooling_over_tokens():
    enc = tiny()
    enc.precision = "auto"
    native = hardware.bf16_is_fast("cpu")
    assert enc.resolved_precision() == ("bf16" if native else "fp32")  # mean pooling
    enc.pooling = "max"
    assert enc.resolved_precision() == ("bf16" if native else "fp32")
    enc.pooling = "cls"  # one token's vector keeps its rounding errors: fp32
    assert enc.resolved_precision() == "fp32"
    np.testing.assert_array_equal(enc.encode(SENTENCES), enc.encode(SENTENCES, precision="fp32"))


def test_only_ampere_or_newer_counts_as_native_bf16_on_a_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=0: (7, 0))  # V100: emulated bf16
    assert not hardware._cuda_bf16_native()
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=0: (8, 0))  # A100
    assert hardware._cuda_bf16_native()


# --------------------------------------------------------------------------- int8: torch.ao, torchao beside it
def test_int8_quantises_quietly_and_torchao_runs_beside_it(capfd):
    """int8 runs torch.ao.quantization.quantize_dynamic, deprecated in torch 2.13: every cast warned. It stays
    (torchao's replacement is slower than fp32 in eager mode on a CPU: see casting.quantize_int8), its
    warnings filtered; torchao's int8 (one scale per weight row) runs inside int8_backend("torchao")."""
    enc = tiny()
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vectors = enc.encode(SENTENCES, precision="int8")
    assert capfd.readouterr().err == "" and vectors.dtype == np.float32
    modules = list(enc.inference_backbone("int8").modules())
    assert any(isinstance(m, torch.ao.nn.quantized.dynamic.Linear) for m in modules)
    assert not [m for m in modules if type(m) is torch.nn.Linear]
    pytest.importorskip("torchao")
    from torchao.quantization import Int8Tensor
    with warnings.catch_warnings(), casting.int8_backend("torchao"):
        warnings.simplefilter("error")
        other = tiny()
        moved = other.encode(SENTENCES, precision="int8")
    assert capfd.readouterr().err == ""
    linears = [m for m in other.inference_backbone("int8").modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(isinstance(m.weight, Int8Tensor) for m in linears)
    assert not np.array_equal(moved, vectors)


def test_loading_a_model_prints_nothing_although_transformers_imports_torchao():
    """transformers imports torchao whenever it is installed; with a CPU-only torch that import logged four
    lines (two CUDA libraries that cannot load, two torch deprecations aimed at torchao), for every process."""
    import subprocess
    import sys
    pytest.importorskip("torchao")
    code = ("import sys; from sbertlib.model import SentenceEncoder, casting\n"
            "with casting.int8_backend('torchao'):\n"
            "    SentenceEncoder.from_pretrained('tiny-random-bert', device='cpu').encode(['a'], precision='int8')\n"
            "assert 'torchao' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_int8_through_torchao_without_it_says_how_to_install_it(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "torchao", None)     # as if not installed
    assert tiny().encode(SENTENCES, precision="int8").shape == (4, 64)      # int8 itself needs none
    needs = r"needs torchao, which is not installed: pip install 'sbertlib\[torchao\]'"
    with casting.int8_backend("torchao"), pytest.raises(ValueError, match=needs):
        tiny().encode(SENTENCES, precision="int8")


def test_torchao_scales_each_weight_row_where_torch_ao_scales_the_matrix():
    """Why torchao's int8 moves the scores less: rows of very different sizes. torch.ao's one scale for the
    whole matrix leaves the small rows a few int8 steps; torchao gives each row its own."""
    pytest.importorskip("torchao")
    torch.manual_seed(0)
    layer = torch.nn.Sequential(torch.nn.Linear(64, 32)).eval()
    with torch.no_grad():
        layer[0].weight.mul_(torch.logspace(-2, 0, 32).unsqueeze(1))   # row norms spread over 100×
    x = torch.randn(16, 64)
    exact = layer(x)
    errors = {}
    for backend in ("torchao", "torch.ao"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")                          # torch.ao's deprecation is filtered
            with casting.int8_backend(backend):
                quantised = casting.quantize_int8(copy.deepcopy(layer))
        with torch.inference_mode():
            errors[backend] = float(((quantised(x) - exact).abs().mean(0) / exact.abs().mean(0))[:8].mean())
    assert errors["torchao"] < errors["torch.ao"] / 5, errors
    with pytest.raises(ValueError, match="int8 backend must be one of"):
        with casting.int8_backend("fbgemm"):
            pass


def test_bench_times_torchao_int8_beside_int8(shared_data, capsys):
    """`bench encode --precision fp32,int8,int8-torchao`: torchao's int8 on an encoder of its own."""
    import json

    from sbertlib.cli import bench
    pytest.importorskip("torchao")
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "1", "--warmup-runs", "0",
                       "--precision", "fp32,int8,int8-torchao", "--no-reference", "--data-dir", str(shared_data),
                       "--json"]) == 0
    out = capsys.readouterr()
    result = json.loads(out.out)
    assert list(result) == ["fp32", "int8", "int8-torchao"]
    assert "runs_as" not in result["int8-torchao"]
    assert result["int8"]["max_abs_diff_vs_fp32"] != result["int8-torchao"]["max_abs_diff_vs_fp32"]  # two paths
    for r in result.values():
        assert r["ours"] > 0 and r["spearman_diff"] == pytest.approx(r["spearman"] - result["fp32"]["spearman"])
    assert "int8-torchao" in out.err and "ours int8-torchao / ours fp32" in out.err
