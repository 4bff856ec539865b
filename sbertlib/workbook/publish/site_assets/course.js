/* sbert-workbook: fixes for the course site (loaded on every page, after the themes' scripts).
 *
 * Sidebar toggles. pydata-sphinx-theme 0.17 wires its sidebar dialogs to the FIRST element with class
 * .primary-toggle / .secondary-toggle — since 0.17 a button in its own (hidden) header — so the
 * sphinx-book-theme buttons that are visible in the article header get no listener: on a phone they
 * did nothing (pydata-sphinx-theme issue 2451). A click on any other toggle is forwarded to the wired
 * one, which opens the dialog (narrow screens) or, through the book theme's handler, collapses the
 * sidebar (wide screens).
 */
(function () {
  "use strict";
  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }
  ready(function () {
    ["primary", "secondary"].forEach(function (side) {
      var buttons = Array.prototype.slice.call(document.querySelectorAll("." + side + "-toggle"));
      if (buttons.length < 2) return;
      var wired = buttons[0];
      buttons.slice(1).forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          wired.click();
          button.blur();
        });
      });
    });
    document.documentElement.setAttribute("data-sbert-toggles", "ready");
  });
})();
