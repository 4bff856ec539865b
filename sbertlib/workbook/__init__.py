"""The course around the library: everything the notebooks need that is not SBERT itself.

=========================  ==============================================================
module                     holds
=========================  ==============================================================
``workbook.profiles``      the profiles (paper / laptop / offline / smoke): every
                           per-profile setting in one dataclass, and how one is chosen
``workbook.runs``          train-or-load: what one notebook trains and a later one reuses
``workbook.plots``         the notebooks' figures (matplotlib, seaborn, UMAP)
``workbook.widgets``       the ipywidgets explorers (similarity, search, compare, speed)
``workbook.notebooks``     executing notebooks, student copies, headline cells
``workbook.build``         ``make workbook``: executed notebooks, the index
``workbook.site``          the course website (Jupyter Book 1) from the executed notebooks
``workbook.environment``   the environment check behind ``make envcheck``
``workbook.checks``        the exercises' self-checks, one module per notebook
=========================  ==============================================================

The core of ``sbertlib`` (data, model, losses, training, evaluation, search) never imports this
package, nor a UI library.
"""
