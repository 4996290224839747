// The person's input on the web panel: the toolbar, clicks on rows, the keys of the terminal panel, and
// dragging a row by its grip. Everything it does goes through the panel's own functions (app.js).

export function bindInput(panel) {
  const {
    $, list, state, byId, visible, act, moveBy, move, undo, stepFocus, focusRow, markFocus, openMenu, closeMenu,
    setFilter, toggleHidden, canChange, openNext, clientChoices,
  } = panel;

  $("search").value = state.filter.search;
  $("search").addEventListener("input", (e) => setFilter({ search: e.target.value }));
  $("awaiting").addEventListener("click", () => { state.view = "main"; setFilter({ awaiting: !state.filter.awaiting }); });
  $("active").addEventListener("click", () => setFilter({ active: !state.filter.active }));
  $("hidden-view").addEventListener("click", toggleHidden);
  $("undo").addEventListener("click", undo);
  $("next").addEventListener("click", openNext);
  for (const b of document.querySelectorAll("[data-provider]")) {
    b.addEventListener("click", () => setFilter({ provider: b.dataset.provider }));
  }
  $("client-choice").addEventListener("change", (e) => setFilter({ provider: e.target.value }));

  list.addEventListener("click", (e) => {
    const li = e.target.closest("li.row");
    if (!li) return;
    const row = byId(li.dataset.id);
    const b = e.target.closest("button");
    if (b) {
      state.focused = li.dataset.id;
      markFocus();
      if (b.classList.contains("act-menu")) openMenu(row, b);
      else if (b.classList.contains("act-pin")) act("pin", row);
      else if (b.classList.contains("act-hide")) act("hide", row);
      else if (b.classList.contains("act-restore")) act("restore", row);
      return;
    }
    if (state.focused === li.dataset.id && state.view === "main") act("open", row);
    else focusRow(li.dataset.id);
  });
  list.addEventListener("contextmenu", (e) => {
    const li = e.target.closest("li.row");
    if (!li) return;
    e.preventDefault();
    focusRow(li.dataset.id);
    openMenu(byId(li.dataset.id), li);
  });
  document.addEventListener("click", (e) => { if (!e.target.closest("#menu") && !e.target.closest(".act-menu")) closeMenu(); });

  document.addEventListener("keydown", (e) => {
    const inSearch = e.target === $("search");
    const menuOpen = !$("menu").hidden;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
      e.preventDefault();
      if (state.view === "hidden") toggleHidden();
      $("search").focus();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z" && !inSearch) { e.preventDefault(); undo(); return; }
    if (menuOpen) {
      const items = [...$("menu").children];
      const i = items.indexOf(document.activeElement);
      if (e.key === "Escape") { e.preventDefault(); closeMenu(); }
      else if (e.key === "ArrowDown") { e.preventDefault(); items[(i + 1) % items.length].focus(); }
      else if (e.key === "ArrowUp") { e.preventDefault(); items[(i - 1 + items.length) % items.length].focus(); }
      return;
    }
    if (inSearch) {
      if (e.key === "ArrowDown" || e.key === "Enter") { e.preventDefault(); $("search").blur(); stepFocus(1); }
      else if (e.key === "Escape") {  // clears the search, as in the terminal panel, and leaves the field
        e.preventDefault(); $("search").value = ""; setFilter({ search: "" }); $("search").blur();
      }
      return;
    }
    // A drop-down takes its own keys (its letters choose an option).
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey) return;
    const row = state.focused ? byId(state.focused) : null;
    if (e.altKey && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
      e.preventDefault();
      if (row && state.view === "main") moveBy(row, e.key === "ArrowUp" ? -1 : 1);
      return;
    }
    if (e.altKey) return;
    switch (e.key) {
      case "/": e.preventDefault(); if (state.view === "hidden") toggleHidden(); $("search").focus(); break;
      case "ArrowDown": e.preventDefault(); stepFocus(1); break;
      case "ArrowUp": e.preventDefault(); stepFocus(-1); break;
      case "Escape": state.focused = null; markFocus(); document.activeElement.blur(); break;
      case "Enter": if (row) { e.preventDefault(); act(state.view === "hidden" ? "restore" : "open", row); } break;
      case "p": if (row && state.view === "main") act("pin", row); break;
      case "Delete": case "Backspace":
        if (row) { e.preventDefault(); act(state.view === "hidden" ? "restore" : "hide", row); } break;
      case "m": if (row) { const li = list.querySelector("li.focused"); if (li) openMenu(row, li); } break;
      case "a": state.view = "main"; setFilter({ awaiting: !state.filter.awaiting }); break;
      case "v": if (state.view === "main") setFilter({ active: !state.filter.active }); break;
      case "c": if (state.view === "main") {
        const choices = clientChoices();  // all, then each client the bar shows
        const order = choices.length ? choices : ["all"];
        setFilter({ provider: order[(order.indexOf(state.filter.provider) + 1) % order.length] });
      } break;
      case "h": toggleHidden(); break;
      case "n": openNext(); break;
      default: break;
    }
  });

  // -- dragging a row (mouse, pen or finger on its grip) ----------------------------------------------------
  list.addEventListener("pointerdown", (e) => {
    const grip = e.target.closest(".grip");
    if (!grip || !canChange() || state.view !== "main") return;
    const li = grip.closest("li.row");
    e.preventDefault();
    grip.setPointerCapture(e.pointerId);
    state.drag = { id: li.dataset.id, target: null, where: null };
    li.classList.add("dragging");
    focusRow(li.dataset.id);
  });
  list.addEventListener("pointermove", (e) => {
    const drag = state.drag;
    if (!drag) return;
    for (const li of list.querySelectorAll(".drop-before, .drop-after")) li.classList.remove("drop-before", "drop-after");
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const li = under && under.closest("li.row");
    const moving = byId(drag.id);
    const target = li && byId(li.dataset.id);
    if (!li || !target || target.id === drag.id || target.pinned !== moving.pinned) { drag.target = null; return; }
    const rect = li.getBoundingClientRect();
    drag.target = target.id;
    drag.where = e.clientY < rect.top + rect.height / 2 ? "before" : "after";
    li.classList.add(drag.where === "before" ? "drop-before" : "drop-after");
  });
  function endDrag() {
    const drag = state.drag;
    state.drag = null;
    for (const li of list.querySelectorAll(".dragging, .drop-before, .drop-after")) {
      li.classList.remove("dragging", "drop-before", "drop-after");
    }
    if (drag && drag.target) move(drag.id, drag.target, drag.where);
  }
  list.addEventListener("pointerup", endDrag);
  list.addEventListener("pointercancel", () => { state.drag = null; endDrag(); });
}
