"""Precision: encode in bf16/int8 returns float32 close to fp32; settings refused clearly; bf16 autocast trains."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from sbertlib.losses import CosineSimilarityLoss
from sbertlib.model import precision
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


def test_hardware_report_names_what_bf16_runs_on():
    line = precision.describe_hardware()
    assert line.startswith("CPU") and "bf16" in line
    assert ("native" in line) == precision.bf16_is_fast("cpu")
    hw = precision.hardware()
    assert precision.bf16_is_fast("cpu") == (hw["amx_bf16"] or hw["avx512_bf16"])


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
    native = precision.bf16_is_fast("cpu")
    assert enc.resolved_precision() == ("bf16" if native else "fp32")  # mean pooling
    enc.pooling = "max"
    assert enc.resolved_precision() == ("bf16" if native else "fp32")
    enc.pooling = "cls"  # one token's vector keeps its rounding errors: fp32
    assert enc.resolved_precision() == "fp32"
    np.testing.assert_array_equal(enc.encode(SENTENCES), enc.encode(SENTENCES, precision="fp32"))


def test_only_ampere_or_newer_counts_as_native_bf16_on_a_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=0: (7, 0))  # V100: emulated bf16
    assert not precision._cuda_bf16_native()
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=0: (8, 0))  # A100
    assert precision._cuda_bf16_native()
