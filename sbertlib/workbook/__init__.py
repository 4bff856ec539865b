"""The course around the library: everything the notebooks need that is not SBERT itself, in three places.

**This folder: what the notebooks use while they run.**

==============================  ==============================================================
module                          holds
==============================  ==============================================================
``workbook.profiles``           the profiles (paper / laptop / offline / smoke) and how one is chosen
``workbook.runs``               train-or-load: what one notebook trains and a later one reuses
``workbook.recipes``            what made a run (its recipe, fingerprinted): a stale model is retrained
``workbook.cross_runs``         the same for the cross-encoder (notebook 12)
``workbook.mine``               the student's code between notebooks: ``keep`` a function that passed
                                its check, ``load`` it later (or the exercise's reference, said once)
``workbook.quiz``               questionnaires that answer back
``workbook.questionnaire``      the questions, read from ``questionnaires/03.md`` … (text a lecturer edits)
``workbook.plots``              the notebooks' shared figures (matplotlib, seaborn, UMAP)
``workbook.intro``              00–01's tables, figures and verdicts, out of their cells
``workbook.figures``            07–09's and 14's tables, figures and verdicts, out of their cells
``workbook.prose``              every sentence naming a profile's start, teacher, data or objective,
                                written from the profile's fields (03, 04, 05, 14)
``workbook.applications``       12's sizes, tables and report lines, out of its cells
``workbook.widgets``            the ipywidgets explorers (similarity, search, compare, speed)
``workbook.costs``              what a profile's lesson costs (steps, measured seconds)
``workbook.measurements``       every measured duration the texts quote, recorded once
``workbook.colab``              a notebook opened outside the checkout (badge, install cell, files)
``workbook.environment``        the environment check behind ``make envcheck``
==============================  ==============================================================

**``workbook.lessons``: each notebook's material, one module per notebook** (``lessons/nb03.py``): its
exercises declared once (``EXERCISES``: name, hidden nbgrader probe, reference, named slips) and their checks.
``lessons/__init__`` and ``lessons/checking`` hold the exercise machinery (``Exercise``, ``call``, ``named_slip``,
``ExerciseError``), ``lessons/kinds`` the objective and run kinds. A notebook's questionnaire is text:
``questionnaires/03.md``.

**``workbook.publish``: what is made from the notebooks.** ``notebooks`` (execution, student copies,
headline cells), ``build`` (``make workbook``), ``site`` and ``site_pages`` (the course website, syllabus,
instructor notes), ``nbgrader_export`` (``student --nbgrader``), ``figalt`` (alt text for the figures).

Imports go one way: publish reads the lessons and the running modules; the lessons read only the core;
``mine`` reads the lessons (references), ``quiz`` the questionnaires; nothing reads publish but the CLI. The core of ``sbertlib`` (data,
model, losses, training, evaluation, search) never imports this package, nor a UI library.
"""
