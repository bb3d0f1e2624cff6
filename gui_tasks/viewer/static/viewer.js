// gui-eval viewer: filters, sorts and pages the sample index (window.GUI_EVAL_INDEX, data/index.js).
// Run-supplied text is only ever put into the page with textContent, never parsed as HTML.
(function () {
  "use strict";
  var D = window.GUI_EVAL_INDEX;
  if (!D) { return; }
  var PAGE = 50, C = {};
  D.cols.forEach(function (c, i) { C[c] = i; });
  var diffOf = null, pairOf = null;
  if (D.diff) {  // sample number -> outcome change and its pair [a, b, change, response changed, score changed]
    diffOf = {}; pairOf = {};
    D.diff.forEach(function (p) { diffOf[p[0]] = p[2]; diffOf[p[1]] = p[2]; pairOf[p[0]] = p; pairOf[p[1]] = p; });
  }
  function diffMatch(i, want) {  // outcome change by name; "response" / "score": that part of the pair changed
    if (!pairOf || !pairOf[i]) { return false; }
    if (want === "response") { return pairOf[i][3] === 1; }
    if (want === "score") { return pairOf[i][4] === 1; }
    return diffOf[i] === want;
  }
  var lower = D.rows.map(function (r) { return String(r[C.text]).toLowerCase(); });
  var state = { page: 0, shown: [] };
  function $(id) { return document.getElementById(id); }
  function fill(id, values) {
    var sel = $(id);
    if (!sel) { return; }
    values.forEach(function (v, i) {
      var o = document.createElement("option");
      o.value = String(i);
      o.textContent = v === "" ? "(none)" : v;
      sel.appendChild(o);
    });
  }
  fill("f-side", D.sides); fill("f-task", D.task); fill("f-lang", D.lang); fill("f-group", D.group);
  fill("f-outcome", D.outcomes); fill("f-kind", D.kind);
  function val(id) { var el = $(id); return el ? el.value : ""; }
  function apply() {
    var f = { side: val("f-side"), task: val("f-task"), lang: val("f-lang"), group: val("f-group"),
              outcome: val("f-outcome"), kind: val("f-kind") };
    var diff = val("f-diff"), text = val("f-text").toLowerCase(), keys = Object.keys(f).filter(function (k) { return f[k] !== ""; });
    var out = [];
    for (var i = 0; i < D.rows.length; i++) {
      var r = D.rows[i], ok = true;
      for (var k = 0; k < keys.length; k++) {
        if (String(r[C[keys[k]]]) !== f[keys[k]]) { ok = false; break; }
      }
      if (ok && diff && !diffMatch(i, diff)) { ok = false; }
      if (ok && text && lower[i].indexOf(text) < 0) { ok = false; }
      if (ok) { out.push(i); }
    }
    if (val("f-sort") === "outcome") {
      out.sort(function (a, b) { return (D.rows[a][C.outcome] - D.rows[b][C.outcome]) || (a - b); });
    }
    state.shown = out; state.page = 0; render();
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }
  function render() {
    var body = document.querySelector("#list tbody"), n = state.shown.length;
    var pages = Math.max(1, Math.ceil(n / PAGE));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    var frag = document.createDocumentFragment();
    state.shown.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (i) {
      var r = D.rows[i], tr = document.createElement("tr");
      var a = document.createElement("a");
      a.href = "s/" + Number(i) + ".html";
      a.textContent = String(i);
      var td = document.createElement("td"); td.appendChild(a); tr.appendChild(td);
      cell(tr, String(r[C.side] + 1));
      cell(tr, D.task[r[C.task]]);
      cell(tr, String(r[C.doc_id]));
      cell(tr, D.lang[r[C.lang]]);
      cell(tr, D.group[r[C.group]]);
      cell(tr, D.outcomes[r[C.outcome]] + (diffOf && diffOf[i] ? " (" + diffOf[i] + ")" : ""), "outcome " + D.outcomes[r[C.outcome]]);
      cell(tr, D.kind[r[C.kind]]);
      cell(tr, String(r[C.text]).slice(0, 120), "text");
      frag.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(frag);
    $("count").textContent = n + " of " + D.rows.length + " samples";
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.body.setAttribute("data-ready", "1");
  }
  ["f-side", "f-task", "f-lang", "f-group", "f-outcome", "f-kind", "f-diff", "f-sort"].forEach(function (id) {
    var el = $(id);
    if (el) { el.addEventListener("change", apply); }
  });
  $("f-text").addEventListener("input", apply);
  $("filters").addEventListener("submit", function (ev) { ev.preventDefault(); });
  $("prev").addEventListener("click", function () { state.page -= 1; render(); });
  $("next").addEventListener("click", function () { state.page += 1; render(); });
  apply();
}());
