// Viewer's zone: the server shows times in the zone of the ql_tz cookie,
// which this sets from the browser; the first page rendered without it is
// loaded once more. The zone the page is shown in is kept in ql_tz_prev,
// which the server keeps to should it not know the browser's zone (it
// then says so on every page, and this does not set that zone again). A
// page whose address asks for a zone (?tz=) is shown in that one, which
// is not the viewer's: it changes neither cookie.
(function () {
  var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  var shown = document.body.getAttribute("data-tz");
  if (!zone || shown === zone || document.body.getAttribute("data-tz-refused") === zone) { return; }
  if (window.URLSearchParams && new URLSearchParams(window.location.search).has("tz")) { return; }
  if (shown) { document.cookie = "ql_tz_prev=" + shown + "; path=/; max-age=31536000; SameSite=Strict"; }
  document.cookie = "ql_tz=" + zone + "; path=/; max-age=31536000; SameSite=Strict";
  if (window.sessionStorage && sessionStorage.getItem("ql_tz") !== zone) {
    sessionStorage.setItem("ql_tz", zone);
    window.location.reload();
  }
})();

// Live log tail: the run page's <pre data-stream> follows the run's
// output over server-sent events, keeps the facts (its state line among
// them), the attempts and the events tables true as the Run goes from
// queued to running and retries, and reloads the page when the run ends, so its final state and
// exit code show, or says why it stopped. An ended attempt's output is on
// the page already, in a <pre> with no stream to follow.
(function () {
  var pre = document.getElementById("log");
  if (!pre || !pre.hasAttribute("data-stream") || !window.EventSource) { return; }
  var es = new EventSource(pre.getAttribute("data-stream"));
  // The sentence saying no output came yet, which the first byte of
  // output replaces.
  var empty = document.getElementById("log-empty");
  es.addEventListener("log", function (e) {
    pre.textContent += JSON.parse(e.data);
    pre.scrollTop = pre.scrollHeight;
    if (empty && pre.textContent !== "") { empty.hidden = true; }
  });
  // The Run's facts above its tables and the rows of the attempts and
  // the events tables, rendered by the server as the page renders them,
  // each time they change: the facts say the Run's state (a page shown
  // while it was queued says it runs once it does), why a queued Run
  // waits (a worker that connects or frees a slot takes the notice
  // away), when it started and when it retries; a waiting attempt that
  // starts says it runs, when it started and offers its log so far, a
  // retry's new attempt shows, and so do the events that come (a
  // worker's grant, the start, a retry's wait), without a reload. Each fact or row is compared as this browser
  // writes it out, a <details> opened or not, and only one that reads
  // differently is put in place of the old one (a message or a stored
  // payload opened stays open); what the stream starts with is most
  // often what is shown.
  function sameRow(row, fresh) {
    var shown = row.cloneNode(true), opened = shown.querySelectorAll("details[open]");
    for (var i = 0; i < opened.length; i++) { opened[i].removeAttribute("open"); }
    return shown.outerHTML === fresh.outerHTML;
  }
  function liveRows(event, id) {
    es.addEventListener(event, function (e) {
      var body = document.getElementById(id), rows = document.createElement("template");
      if (!body) { return; }
      rows.innerHTML = JSON.parse(e.data);
      var fresh = Array.prototype.slice.call(rows.content.children), old = body.children;
      for (var i = 0; i < fresh.length; i++) {
        if (i >= old.length) { body.appendChild(fresh[i]); }
        else if (!sameRow(old[i], fresh[i])) { body.replaceChild(fresh[i], old[i]); }
      }
      while (old.length > fresh.length) { body.removeChild(old[old.length - 1]); }
    });
  }
  // The note QingLong ends a stopped command's log with, in the page's
  // language, once the attempt has ended: shown apart from the command's
  // output, as the page shows it once reloaded.
  es.addEventListener("stop", function (e) {
    var note = document.createElement("span");
    note.id = "log-stop";
    note.textContent = JSON.parse(e.data);
    pre.appendChild(note);
    pre.scrollTop = pre.scrollHeight;
    if (empty) { empty.hidden = true; }
  });
  liveRows("facts", "run-facts");
  liveRows("attempts", "attempts");
  liveRows("events", "events");
  // A read the server could not finish in time: the stream ends saying
  // so, and what to do; following again without a reload would only
  // meet the same wait.
  es.addEventListener("stopped", function (e) {
    es.close();
    var p = document.getElementById("log-stopped");
    if (!p) { return; }
    p.textContent = JSON.parse(e.data);
    p.hidden = false;
  });
  es.addEventListener("end", function (e) {
    es.close();
    var st = document.getElementById("run-state");
    if (st && st.getAttribute("data-state") !== JSON.parse(e.data)) { window.location.reload(); }
  });
})();

// Select all on this page: the triggers list's batch form offers the box
// only where this script runs; without it each trigger's box is ticked by
// hand, and the form works the same.
(function () {
  var all = document.getElementById("batch-all");
  if (!all) { return; }
  var boxes = document.querySelectorAll("input.batch-pick");
  all.parentNode.hidden = false;
  all.addEventListener("change", function () {
    for (var i = 0; i < boxes.length; i++) { boxes[i].checked = all.checked; }
  });
})();

// Copy token: a token just created is shown this once; the button copies
// it whole where the browser lets a page write the clipboard (a secure
// page: TLS, or the loopback a plain server listens on). Without it the
// button stays hidden and the token is selected whole by a click. A copy
// the browser refuses (no permission, the page not in focus) says so, and
// to copy the selected token by hand, rather than leave the user believing
// it copied.
(function () {
  var button = document.getElementById("tok-copy"), token = document.getElementById("new-token");
  if (!button || !token || !navigator.clipboard || !window.isSecureContext) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(token.textContent).then(function () {
      button.textContent = button.getAttribute("data-copied");
    }, function () {
      button.textContent = button.getAttribute("data-failed");
    });
  });
})();

// A new token's secret is shown once. A page Back brings out of the
// browser's back/forward cache still holds it, so that page is loaded
// again: the server then says the secret was shown, without it.
window.addEventListener("pageshow", function (e) {
  if (e.persisted && document.getElementById("new-token")) { window.location.reload(); }
});

// Env editor of the task forms: each row shows the value box or the
// secret choice its "set from" asks for, and Add a variable puts another
// empty row in the page rather than sending the form (without a script it
// sends the form, which comes back with an empty row more). A row's
// Remove box sends its row's index, so an added row gets the next one.
(function () {
  var body = document.getElementById("env-rows"), add = document.getElementById("env-add");
  if (!body || !add) { return; }
  function shape(row) {
    var kind = row.querySelector("select.env-kind"), secret = kind && kind.value === "secret";
    row.querySelector("td.env-value").hidden = secret;
    row.querySelector("td.env-secret").hidden = !secret;
  }
  function wire(row) {
    var kind = row.querySelector("select.env-kind");
    if (kind) { kind.addEventListener("change", function () { shape(row); }); }
    shape(row);
  }
  var rows = body.querySelectorAll("tr.env-row");
  for (var i = 0; i < rows.length; i++) { wire(rows[i]); }
  add.addEventListener("click", function (e) {
    var last = body.querySelector("tr.env-row:last-child");
    if (!last) { return; }
    e.preventDefault();
    var row = last.cloneNode(true), fields = row.querySelectorAll("input, textarea, select");
    for (var j = 0; j < fields.length; j++) {
      var f = fields[j];
      if (f.type === "checkbox") { f.checked = false; f.value = String(body.querySelectorAll("tr.env-row").length); }
      else if (f.tagName === "SELECT") { f.selectedIndex = 0; }
      else { f.value = ""; }
    }
    body.appendChild(row);
    wire(row);
    row.querySelector("input[name=env_name]").focus();
  });
})();
