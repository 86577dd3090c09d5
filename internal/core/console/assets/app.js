// Live log tail: the run page's <pre data-stream> follows the run's
// output over server-sent events and reloads the page when the run ends,
// so its state, attempts and exit code show.
(function () {
  var pre = document.getElementById("log");
  if (!pre || !window.EventSource) { return; }
  var es = new EventSource(pre.getAttribute("data-stream"));
  es.addEventListener("log", function (e) {
    pre.textContent += JSON.parse(e.data);
    pre.scrollTop = pre.scrollHeight;
  });
  es.addEventListener("end", function (e) {
    es.close();
    var st = document.getElementById("run-state");
    if (st && st.textContent !== JSON.parse(e.data)) { window.location.reload(); }
  });
})();
