"""Every notebook runs top to bottom, headlessly, on the smoke profile, and prints a headline whose
figures — for the notebooks the library can recompute cheaply (00, 01, 04, 05) — are what the library
computes for the same models and data."""
from __future__ import annotations

import ast
import re
import warnings
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from sbertlib.workbook.publish import notebooks

# Executed copies (with nbclient's per-cell timings in each cell's metadata) for when a run is slow or fails.
ARTIFACTS = Path(__file__).resolve().parents[1] / "build" / "test-artifacts" / "notebooks"

pytest.importorskip("nbclient")


pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def fresh_machine_hub(shared_data, tmp_path_factory):
    """A machine as a student's: no data folder, an empty Hub cache, and a Hub — here a stand-in on
    127.0.0.1 serving the course's data in the Hub's formats (tests/hubdata.py)."""
    from hubdata import serve_course
    from hubstub import HubStub
    with HubStub() as stub:
        serve_course(stub, shared_data)
        yield {"HF_ENDPOINT": stub.url, "HF_HUB_CACHE": str(tmp_path_factory.mktemp("hub-cache")),
               "SBERTLIB_DATA_DIR": None, "HF_HUB_OFFLINE": None, "TRANSFORMERS_OFFLINE": None}


# A cell's limit. The longest smoke cell took 10.4 s on the 2-core machine (09's cell 22; nbclient's timings in
# build/test-artifacts), a whole notebook 8–24 s. The intermittent kernel stall (below) costs this limit once before
# the retry, so it is about 9× the longest cell, not more.
CELL_LIMIT_S = 90


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_notebook_runs_on_smoke_profile(path, fresh_machine_hub, tmp_path):
    """Every notebook on a fresh machine: its data arrive from the (stand-in) Hub on first use."""
    env = {"SBERTLIB_PROFILE": "smoke", **fresh_machine_hub,
           "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"), "MPLBACKEND": "Agg", "TQDM_DISABLE": "1"}
    nb, result = notebooks.execute(path, timeout=CELL_LIMIT_S, env=env, cwd=path.parent)
    if result.error and result.error.startswith(notebooks.TIMEOUT_PREFIX):
        # A kernel that stops answering (seen intermittently: kernel idle, client waiting) is retried
        # once in a fresh kernel; a cell that fails with an error is never retried. The per-cell limit bounds
        # the other form of the same stall (the client waits the full limit between two cells, then goes on).
        warnings.warn(f"{path.name}: {result.error}; retrying once in a fresh kernel", stacklevel=1)
        nb, result = notebooks.execute(path, timeout=CELL_LIMIT_S, env=env, cwd=path.parent)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, ARTIFACTS / path.name)
    assert result.error is None, f"{path.name} failed: {result.error}"
    assert result.headlines, f"{path.name} printed no headline"
    check = HEADLINE_CHECKS.get(path.stem)
    if check is not None:  # the headline's figures against the library's, same models (the run's) and data
        with as_the_notebook_ran(env):
            check(Headline(path.name, "\n".join(result.headlines)), nb)


# ----------------------------------------------------------------------------- the headlines' figures
@contextmanager
def as_the_notebook_ran(env: dict):
    """This process with the notebook's environment: its data from the same (stand-in) Hub and cache —
    the Hub's STS12–16 have no subset names, so a sample of them is not the course folder's — and its
    output folder, where the lessons' models it trained are."""
    from sbertlib import config
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            if value is None:
                mp.delenv(key, raising=False)
            else:
                mp.setenv(key, value)
        config.hub_reachable.cache_clear()
        try:
            yield
        finally:
            config.hub_reachable.cache_clear()


# Printed with 2 decimals: a figure recomputed here agrees to half a unit in the last place, plus float noise
# between two processes (a mean of rounded figures: one unit).
TOL, TOL_MEAN = 0.006, 0.011
NUM = r"(-?\d+\.\d+)"


class Headline:
    """A notebook's headline text; ``find`` reads its figures (failing, with the text, where the wording changed)."""

    def __init__(self, notebook: str, text: str):
        self.notebook, self.text = notebook, text

    def find(self, pattern: str) -> re.Match:
        m = re.search(pattern, self.text)
        assert m, f"{self.notebook}: the headline no longer reads as its check expects ({pattern!r}): {self.text}"
        return m

    def figure(self, pattern: str) -> float:
        return float(self.find(pattern).group(1))


def assert_figure(headline: Headline, what: str, printed: float, computed: float, tol: float = TOL) -> None:
    assert abs(printed - computed) <= tol, (f"{headline.notebook}: headline {what} {printed:.2f}, the library "
                                            f"computes {computed:.4f} for the same model and data")


def notebook_literal(nb, name: str):
    """The literal a code cell of the executed notebook assigns to ``name`` (e.g. the sentences it uses)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:  # a cell with IPython magics
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return ast.literal_eval(node.value)
    raise AssertionError(f"no cell of the notebook assigns {name}")


def smoke():
    from sbertlib.workbook.profiles import get_profile
    return get_profile("smoke", dry_run=False)


def lesson_model(profile, objective: str):
    """A model the notebook trained (it is in the run's output folder): loaded, never trained here."""
    from sbertlib.workbook import runs
    assert runs.is_trained(profile, objective), f"the notebook left no trained {objective!r} model in {runs.output_dir()}"
    return runs.trained_model(profile, objective, show_progress_bar=False)[0]


def check_00(headline: Headline, nb) -> None:
    """The tour: the most similar pair of the tour's sentences, its cosine, and each model's nearest-neighbour
    paraphrase hits, from the profile's encoder (and its reference) — recomputed with sbertlib."""
    import numpy as np
    from sbertlib.model.similarity import cos_sim
    from sbertlib.workbook.profiles import load_encoder, load_reference
    profile = smoke()
    sentences, paraphrases = notebook_literal(nb, "tour_sentences"), notebook_literal(nb, "PARAPHRASES")
    models = [m for m in (load_encoder(profile), load_reference(profile)) if m is not None]
    hits_printed = dict((name.strip(), int(n)) for name, n in re.findall(r"([^,;]+?) (\d+)/8", headline.find(
        r"nearest-neighbour paraphrase hits (.*)").group(1)))
    for k, enc in enumerate(models):
        sim = cos_sim(enc.encode(sentences), enc.encode(sentences)).double().numpy()
        np.fill_diagonal(sim, -np.inf)
        if k == 0:  # the pair and cosine are the profile's encoder's
            i, j = np.unravel_index(np.argmax(sim), sim.shape)
            m = headline.find(rf"tour \({re.escape(enc.name)}\): most similar pair '(.*?)' ↔ '(.*?)' \(cosine {NUM}\)")
            assert {m.group(1), m.group(2)} == {sentences[i], sentences[j]}, (m.group(0), sentences[i], sentences[j])
            assert_figure(headline, "cosine of the most similar pair", float(m.group(3)), float(sim[i, j]))
        hits = sum(tuple(sorted((a, int(b)))) in paraphrases for a, b in enumerate(sim.argmax(axis=1)))
        assert hits_printed.get(enc.name) == hits, (headline.text, enc.name, hits)
    assert len(hits_printed) == len(models), hits_printed


def check_01(headline: Headline, nb) -> None:
    """Table 1's broken baselines on the first STSb test pairs: the untrained network's CLS and mean pooling,
    average GloVe, the reference — evaluate_sts on the same encoders and pairs."""
    from sbertlib import data, evaluation
    from sbertlib.model.encoder import SentenceEncoder
    from sbertlib.model.word_average import AverageWordEmbeddings
    from sbertlib.workbook.profiles import load_reference, with_precision
    profile = smoke()
    n = int(headline.find(r"profile smoke \(([\d,]+) pairs\)").group(1).replace(",", ""))
    pairs = data.load_sts_dataset("stsb-test")[:n]  # the notebook's: the first pairs of STSb test

    def spearman(encoder) -> float:
        return evaluation.evaluate_sts(encoder, pairs, ("cosine",)).main
    plain = with_precision(SentenceEncoder.from_pretrained(profile.baseline_backbone or profile.backbone,
                                                           pooling="mean", normalize=False), profile)
    assert_figure(headline, "mean pooling", headline.figure(rf"mean {NUM}"), spearman(plain))
    plain.pooling = "cls"
    assert_figure(headline, "CLS", headline.figure(rf"CLS {NUM}"), spearman(plain))
    assert_figure(headline, "avg GloVe", headline.figure(rf"avg GloVe 6B 50d {NUM}"),
                  spearman(AverageWordEmbeddings.glove_6b_50d()))
    reference = load_reference(profile)
    assert_figure(headline, "reference", headline.figure(rf"reference {re.escape(reference.name)} {NUM}"),
                  spearman(reference))


def check_04(headline: Headline, nb) -> None:
    """STS evaluation: STSb test and Table 1's average (smoke: sts12 and STSb test, sampled) of the untrained
    network and of the NLI lesson's model, average GloVe and the reference — evaluate_suite on the same pairs."""
    from sbertlib import evaluation
    from sbertlib.model.word_average import AverageWordEmbeddings
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import load_encoder, load_reference
    profile = smoke()
    datasets = ["sts12", "stsb-test"]  # the smoke profile's, each capped at its evaluation pairs
    caps = {name: runs.eval_limit(profile) for name in datasets}

    def suite(encoder, names=datasets) -> dict:  # each data set's sample is its own: one can be asked alone
        return evaluation.evaluate_suite(encoder, names, max_pairs=caps, seed=0).scores
    base, nli = suite(load_encoder(profile, baseline=True)), suite(lesson_model(profile, profile.nli_objective))
    m = headline.find(rf"STSb test untrained {NUM} → after the NLI lesson {NUM}; Table 1 avg(?: †)? {NUM} → {NUM}")
    printed = [float(x) for x in m.groups()]
    computed = [base["stsb-test"], nli["stsb-test"], sum(base.values()) / 2, sum(nli.values()) / 2]
    for what, a, b, tol in zip(("untrained STSb test", "NLI STSb test", "untrained avg", "NLI avg"), printed, computed,
                               (TOL, TOL, TOL_MEAN, TOL_MEAN)):
        assert_figure(headline, what, a, b, tol)
    assert_figure(headline, "avg GloVe", headline.figure(rf"avg GloVe 6B-50d \(ours\) {NUM}"),
                  suite(AverageWordEmbeddings.glove_6b_50d(), ["stsb-test"])["stsb-test"])
    reference = load_reference(profile)
    assert_figure(headline, "reference", headline.figure(rf"reference {re.escape(reference.name)} {NUM}"),
                  suite(reference, ["stsb-test"])["stsb-test"])


def check_05(headline: Headline, nb) -> None:
    """Regression and two stages: STSb test (sampled) of the start, the NLI lesson's, the STSb-only and the
    two-stage models the notebook trained — evaluate_sts on the same pairs."""
    from sbertlib import data, evaluation
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import load_encoder
    profile = smoke()
    test = evaluation.sample_pairs(data.load_stsb("test"), runs.eval_limit(profile), seed=0)
    m = headline.find(rf"STSb test start {NUM} → NLI \((\w+)\) {NUM}, STSb only {NUM}, NLI → STSb {NUM}")
    assert m.group(2) == profile.nli_objective
    models = {"start": load_encoder(profile), "NLI": lesson_model(profile, profile.nli_objective),
              "STSb only": lesson_model(profile, "stsb"), "NLI → STSb": lesson_model(profile, "two-stage")}
    for (what, model), printed in zip(models.items(), (m.group(1), m.group(3), m.group(4), m.group(5))):
        assert_figure(headline, what, float(printed), evaluation.evaluate_sts(model, test, ("cosine",)).main)


HEADLINE_CHECKS = {"00_setup_and_tour": check_00, "01_broken_baselines": check_01, "04_sts_evaluation": check_04,
                   "05_regression_and_two_stage": check_05}
