"""The course around the library: everything the notebooks need that is not SBERT itself.

==============================  ==============================================================
module                          holds
==============================  ==============================================================
``workbook.profiles``           the profiles (paper / laptop / offline / smoke): every
                                per-profile setting in one dataclass, and how one is chosen
``workbook.runs``               train-or-load: what one notebook trains and a later one reuses
``workbook.cross_runs``         the same for the cross-encoder (notebook 12)
``workbook.mine``               the student's code between notebooks: ``keep`` a function that
                                passed its check, ``load`` it in a later notebook (or the
                                workbook's reference, said in one line)
``workbook.lessons``             the exercises' self-checks, one module per notebook
``workbook.quiz``               questionnaires that answer back (``quiz_bank``: the answers)
``workbook.plots``              the notebooks' shared figures (matplotlib, seaborn, UMAP)
``workbook.intro``              00–01's tables, figures and verdicts, out of their cells
``workbook.figures``            07–09's tables, figures and verdicts, out of their cells
``workbook.applications``       12's sizes, tables and report lines, out of its cells
``workbook.widgets``            the ipywidgets explorers (similarity, search, compare, speed)
``workbook.costs``              what a profile's lesson costs (steps, measured seconds)
``workbook.publish.notebooks``          executing notebooks, student copies, headline cells
``workbook.publish.nbgrader_export``    ``student --nbgrader``: an nbgrader course from the notebooks
``workbook.colab``              a notebook opened outside the checkout (badge, install cell)
``workbook.publish.build``              ``make workbook``: executed notebooks, the index
``workbook.publish.site``               the course website (Jupyter Book 1) from the executed notebooks
``workbook.publish.site_pages``         its course pages: syllabus, instructor notes, download, licence
``workbook.publish.figalt``             alt text for the figures, from their titles and axes
``workbook.environment``        the environment check behind ``make envcheck``
==============================  ==============================================================

The core of ``sbertlib`` (data, model, losses, training, evaluation, search) never imports this
package, nor a UI library.
"""
