// warpscope's HTML report: sorting and filtering of its tables. The page reads whole without it.
(function () {
  "use strict";
  function cellKey(row, col) {
    var cell = row.cells[col];
    if (!cell) return null;
    var v = cell.getAttribute("data-value");
    if (v !== null && v !== "") return { num: parseFloat(v) };
    var t = cell.textContent.trim();
    if (t === "" || t === "-") return null;
    return { text: t };
  }
  function compare(a, b) {
    if (a === null && b === null) return 0;
    if (a === null) return 1; // empty cells last either way
    if (b === null) return -1;
    if (a.num !== undefined && b.num !== undefined) return a.num - b.num;
    var x = a.text !== undefined ? a.text : String(a.num);
    var y = b.text !== undefined ? b.text : String(b.num);
    return x.localeCompare(y, undefined, { numeric: true });
  }
  function setUp(table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var sorted = rows.slice().sort(function (a, b) {
          var ka = cellKey(a, col), kb = cellKey(b, col);
          if (ka === null || kb === null) return compare(ka, kb);
          var c = compare(ka, kb);
          return dir === "ascending" ? c : -c;
        });
        sorted.forEach(function (r) { body.appendChild(r); });
      });
    });
    var controls = document.querySelector('.controls[data-for="' + table.id + '"]');
    if (!controls) return;
    controls.hidden = false;
    var filter = controls.querySelector("input.filter");
    var status = controls.querySelector("select.status");
    var source = controls.querySelector("select.provenance");
    var count = controls.querySelector(".count");
    var texts = rows.map(function (r) {
      return Array.prototype.filter.call(r.cells, function (c) { return !c.classList.contains("details"); })
        .map(function (c) { return c.textContent; }).join(" ").toLowerCase();
    });
    function apply() {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var st = status ? status.value : "";
      var src = source ? source.value : "";
      var shown = 0;
      rows.forEach(function (r, i) {
        var ok = words.every(function (w) { return texts[i].indexOf(w) >= 0; }) &&
          (st === "" || r.getAttribute("data-status") === st) &&
          (src === "" || (" " + (r.getAttribute("data-provenance") || "") + " ").indexOf(" " + src + " ") >= 0);
        r.hidden = !ok;
        if (ok) shown++;
      });
      count.textContent = shown + " of " + rows.length + " rows shown";
    }
    [filter, status, source].forEach(function (el) {
      if (el) { el.addEventListener("input", apply); el.addEventListener("change", apply); }
    });
    apply();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.records"), setUp);
})();
