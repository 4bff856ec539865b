"""The course around the library: everything the notebooks need that is not SBERT itself, in three places.

**This folder: what the notebooks use while they run**; the README's section "The package" says what each module
holds, and two more: ``cross_runs`` (train-or-load for notebook 12's cross-encoder) and ``costs`` (what a profile's
lesson costs, in steps and measured seconds). **``workbook.lessons``**: one module per notebook (``lessons/nb03.py``),
its exercises declared once (``EXERCISES``) and their checks; a notebook's questionnaire is text,
``questionnaires/03.md``. **``workbook.publish``**: what is made from the notebooks (README, "The package").

Imports go one way: publish reads the lessons and the running modules; the lessons read only the core; ``mine``
reads the lessons (references), ``quiz`` the questionnaires; nothing reads publish but the CLI. The core of
``sbertlib`` (data, model, losses, training, evaluation, search) never imports this package, nor a UI library.
"""
