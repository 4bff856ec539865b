"""Alt text for the workbook's figures, recorded where the figure is drawn (a figure reaches a notebook as a PNG: its
words are pixels). Loaded as an IPython extension into the kernels of ``make workbook``, this wraps IPython's PNG
formatter for matplotlib figures so that each figure's output carries ``{"image/png": {"alt": "..."}}`` in its
metadata (its titles and axis labels: :func:`figure_alt`), which :mod:`.site` writes as the ``alt`` of its ``<img>``.
Nothing here may break a notebook: every step that fails leaves the figure as it was.
"""
from __future__ import annotations

import sys

MAX_ALT = 400  # characters; a screen reader reads all of it
_MARK = "_sbert_figure_alt"


def _clean(text: str) -> str:
    return " ".join(str(text or "").replace("$", "").split())


def figure_alt(fig) -> str:
    """What the figure shows, in words: its suptitle, then each titled or labelled panel's title and
    axis labels ("" when the figure has no words at all)."""
    parts: list[str] = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and _clean(sup.get_text()):
        parts.append(_clean(sup.get_text()))
    panels = []
    for ax in fig.get_axes():
        if not ax.get_visible() or not ax.axison and not ax.get_title():
            continue
        title = " ".join(t for t in (_clean(ax.get_title(loc)) for loc in ("left", "center", "right")) if t)
        labels = [f"{axis}: {text}" for axis, text in (("x", _clean(ax.get_xlabel())), ("y", _clean(ax.get_ylabel())))
                  if text]
        if not title and not labels:
            continue
        panels.append(title + (f" ({'; '.join(labels)})" if labels else ""))
    if panels:
        parts.append(("Panels: " if len(panels) > 1 else "") + "; ".join(p.strip() for p in panels))
    alt = ". ".join(p.rstrip(".") for p in parts if p)
    return alt if len(alt) <= MAX_ALT else alt[:MAX_ALT - 1] + "…"


def _wrap_png_formatter(shell) -> None:
    """Make the PNG formatter for matplotlib figures return ``(png, {"alt": …})`` (once)."""
    if "matplotlib.figure" not in sys.modules:
        return
    try:
        from matplotlib.figure import Figure
        formatter = shell.display_formatter.formatters["image/png"]
        draw = formatter.lookup_by_type(Figure)
    except Exception:  # no figure formatter yet (inline backend not configured): try after the next cell
        return
    if getattr(draw, _MARK, False):
        return

    def png_with_alt(fig):
        data = draw(fig)
        if data is None or isinstance(data, tuple):
            return data
        try:
            alt = figure_alt(fig)
        except Exception:
            alt = ""
        return (data, {"alt": alt}) if alt else data

    setattr(png_with_alt, _MARK, True)
    formatter.for_type(Figure, png_with_alt)


def load_ipython_extension(shell) -> None:
    """``%load_ext sbertlib.workbook.publish.figalt``: from now on every figure's PNG output carries its alt text."""
    def hook(*_):
        try:
            _wrap_png_formatter(shell)
        except Exception:
            pass
    for event in ("pre_run_cell", "post_execute", "post_run_cell"):  # post_execute: before the inline
        shell.events.register(event, hook)                            # backend shows the cell's figures
    hook()


def kernel_config_dir(folder) -> str:
    """An IPython directory whose kernels load this extension: ``IPYTHONDIR`` for a build's kernels."""
    from pathlib import Path
    profile = Path(folder) / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text(
        "c.InteractiveShellApp.extensions = ['sbertlib.workbook.publish.figalt']\n", encoding="utf-8")
    return str(Path(folder).resolve())
