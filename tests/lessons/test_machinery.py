"""The exercise machinery every lesson's checks share (sbertlib.workbook.lessons): how a check calls the
student's function, and how a failed check shows itself."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sbertlib.workbook.lessons import ExerciseError, call
from lesson_helpers import IN_PLACE


def test_call_watches_arrays_tensors_lists_and_dicts_and_leaves_other_arguments_alone():
    def appends(items):
        items.append(1)
        return items
    with pytest.raises(ExerciseError, match=IN_PLACE):
        call(appends, [0])
    with pytest.raises(ExerciseError, match="changed its second argument"):
        call(lambda a, d: d.update(k=2), 1, {"k": 1})
    model = torch.nn.Linear(2, 2)
    call(lambda m: torch.nn.init.zeros_(m.weight), model)  # a model may be meant to change (a training step)
    nan = np.array([np.nan, 1.0])
    assert call(lambda v: v + 1, nan)[1] == 2.0  # NaN stays NaN: not taken for a change
