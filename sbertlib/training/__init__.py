"""Fine-tuning a SentenceEncoder: ``fit(model, loss, train_data) -> History`` (paper, §3.1).

=========================  ===========================================================
module                     holds
=========================  ===========================================================
``training.arguments``     ``TrainingArguments``: every setting of a run, one frozen
                           dataclass (``fit`` reads it, checkpoints fingerprint it, the
                           CLI makes its flags from it)
``training.loop``          ``fit`` and one ``train_step``: optimizer, warm-up schedule,
                           clipping, mixed precision, evaluation, best/final models
``training.examples``      records → checked ``(texts, label)`` examples → batches; the
                           seeded data order of every epoch
``training.state``         RNG states and atomic checkpoints that resume exactly
``training.history``       ``History``: one record per step, plot-ready lists
``training.distillation``  a small student from a trained teacher (not in the paper):
                           PCA word pieces, the projection, the teacher's examples
=========================  ===========================================================

The evaluator ``fit`` calls during training is the library's one STS evaluation
(:class:`sbertlib.evaluation.STSEvaluator`).
"""
from .arguments import TrainingArguments
from .examples import Example, as_example, batch_stream, collate, epoch_batches, prepare_examples
from .history import History
from .loop import BEST_DIR, FINAL_DIR, fit, linear_warmup, make_optimizer, save_model, train_step
from .state import checkpoint_path, load_checkpoint, rng_state, save_checkpoint, seed_everything, set_rng_state

__all__ = ["TrainingArguments", "Example", "as_example", "batch_stream", "collate", "epoch_batches", "prepare_examples", "History",
           "BEST_DIR", "FINAL_DIR", "fit", "linear_warmup", "make_optimizer", "save_model", "train_step",
           "checkpoint_path", "load_checkpoint", "rng_state", "save_checkpoint", "seed_everything",
           "set_rng_state"]
