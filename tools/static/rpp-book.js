/* The RPP Book: script additions loaded by tools/book_html.py.

   The sidebar buttons of the page header open the navigation (and the page's contents) on phones
   and tablets, and fold the navigation away on wide screens.

   Why this is needed (sphinx-book-theme 1.3.0 on pydata-sphinx-theme 0.17.1; pydata-sphinx-theme
   issue #2451): every page has two navigation buttons (class "primary-toggle"). The first, in
   pydata-sphinx-theme's top header (sections/header.html), is hidden by sphinx-book-theme's CSS
   (".bd-header button.sidebar-toggle {display: none}"); the one a reader sees is the second, in
   the article header (sphinx-book-theme's toggle-primary-sidebar.html). Both themes' scripts take
   their button with document.querySelector(".primary-toggle"), i.e. the first, hidden one:
   pydata-sphinx-theme's setupMobileSidebarKeyboardHandlers (opens the drawer, a <dialog>, below
   992 px) and sphinx-book-theme's fixSidebarToggle (folds the sidebar at 992 px and more). A click
   on the visible button therefore does nothing. The same holds for the page-contents buttons
   (class "secondary-toggle").

   The fix: a click on any other such button is handed to the button the themes did bind, so the
   themes' own code runs (drawer on narrow screens, folding on wide ones). When a later theme binds
   the visible button itself (it is then the first in the page), nothing is forwarded.
   browser_tests/ clicks the visible button at 390 and 768 px and checks that the drawer opens. */
(function () {
  "use strict";

  function forwardClicks(selector) {
    var buttons = Array.prototype.slice.call(document.querySelectorAll(selector));
    var bound = buttons[0]; // the element the themes' document.querySelector(selector) returns
    buttons.slice(1).forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        event.stopPropagation();
        button.blur(); // drop the button's tooltip, as the themes do for their button
        bound.click();
      });
    });
  }

  function setup() {
    forwardClicks(".primary-toggle");
    forwardClicks(".secondary-toggle");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();
