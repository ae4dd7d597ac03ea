// Attention Lab's JupyterLab plugins in plain JavaScript, with no build step and no imports,
// served as a module-federation container (JupyterLab calls init() and get()).
//
// 1. Readable outputs: JupyterLab wraps a long printed line anywhere, mid-word
//    (".jp-OutputArea-output pre { word-break: break-all }"), so a check's sentence reads
//    "misconcep / tion"; here lines wrap between words, and only a word longer than the line breaks.
//
// 2. The student clock. Everything it says comes from the course's server extension
//    (attention_grader.term.student_clock):
//   - each row of nbgrader's Assignment List gets its due date and how late a hand-in now is;
//   - Submit after the due date first asks, saying how late and what it costs;
//   - Fetch Feedback is hidden, "feedback not released yet" shown, until there is feedback;
//   - each hand-in says whether it was late, and "(view feedback)" opens the page, not its folder;
//   - Validate's "Success! Your notebook passes all the tests." is replaced by what it checked.
// Text goes in with textContent only: nothing here is parsed as HTML.
(function () {
  "use strict";
  var LISTS = ["released", "fetched", "submitted"];
  var MARK = "attention-clock";

  function settings(app) {
    return app.serviceManager.serverSettings;
  }

  function getJSON(app, path) {
    var s = settings(app);
    var headers = s.token ? { Authorization: "token " + s.token } : {};
    return fetch(s.baseUrl + path, { credentials: "same-origin", headers: headers }).then(
      function (response) {
        if (!response.ok) throw new Error(path + ": " + response.status);
        return response.json();
      }
    );
  }

  function clock(app, course) {
    return getJSON(app, "attention-lab/clock?course_id=" + encodeURIComponent(course));
  }

  function line(text, kind) {
    var div = document.createElement("div");
    div.className = MARK + " " + MARK + "-" + kind;
    div.textContent = text;
    div.style.cssText = "padding: 0 0 2px 15px; font-size: 90%; clear: both;" +
      (kind === "late" ? " color: var(--jp-warn-color0, #b25e00); font-weight: 600;" : "");
    return div;
  }

  function rowsOf(panel, list) {
    var box = panel.querySelector("#" + list + "_assignments_list");
    if (!box) return [];
    return Array.prototype.filter.call(box.children, function (row) {
      return row.classList.contains("list_item") && row.querySelector(".item_name");
    });
  }

  function nameOf(row) {
    var name = row.querySelector(":scope > .col-md-12 > .item_name");
    return name ? name.textContent.trim() : "";
  }

  function courseOf(panel) {
    var cells = panel.querySelectorAll(".item_course");
    for (var i = 0; i < cells.length; i++) {
      if (cells[i].textContent.trim()) return cells[i].textContent.trim();
    }
    return "";
  }

  function decorateRow(row, list, info) {
    Array.prototype.forEach.call(row.querySelectorAll("." + MARK), function (old) {
      old.remove();
    });
    var top = row.querySelector(":scope > .col-md-12");
    if (info && info.due) top.after(line(info.due, info.late ? "late" : "due"));
    if (list !== "submitted") return;
    var button = top.querySelector(".item_status button");
    var released = !!(info && info.feedback);
    if (button && button.textContent.indexOf("Fetch") === 0 && !released) {
      button.style.display = "none";
      var note = document.createElement("span");
      note.className = MARK + " " + MARK + "-feedback";
      note.textContent = "feedback not released yet";
      button.after(note);
    }
    var stamps = (info && info.submissions) || [];
    row.querySelectorAll(".nested_list_item .item_name").forEach(function (cell) {
      stamps.forEach(function (s) {
        if (cell.textContent.indexOf(s.timestamp) === 0) {
          var said = document.createElement("span");
          said.className = MARK + " " + MARK + "-handin";
          said.textContent = " (" + s.lateness + ")";
          cell.firstChild ? cell.insertBefore(said, cell.firstChild.nextSibling) : cell.append(said);
        }
      });
    });
  }

  function needsDecoration(panel) {
    return LISTS.some(function (list) {
      return rowsOf(panel, list).some(function (row) {
        return row.dataset.attentionClock !== row.textContent; // new, or redrawn by nbgrader
      });
    });
  }

  function decorate(app, panel, observer) {
    var course = courseOf(panel);
    if (!course || !needsDecoration(panel)) return;
    clock(app, course).then(function (data) {
      LISTS.forEach(function (list) {
        rowsOf(panel, list).forEach(function (row) {
          decorateRow(row, list, data.assignments[nameOf(row)]);
          row.dataset.attentionClock = row.textContent;
        });
      });
      observer.takeRecords();
    }).catch(function (err) {
      console.warn("attention-lab student clock:", err);
    });
  }

  function explainValidation(app, message, observer) {
    message.dataset.attentionClock = "asked";
    getJSON(app, "attention-lab/validated").then(function (data) {
      var said = message.querySelector("p");
      if (data.note && said) {
        said.textContent = data.note;
        message.dataset.attentionClock = "explained";
      }
      observer.takeRecords();
    });
  }

  function confirmLateSubmit(app, event) {
    var button = event.target.closest && event.target.closest("#fetched_assignments_list button");
    if (!button || button.textContent.trim() !== "Submit") return;
    if (button.dataset.attentionConfirmed === "yes") return;
    event.stopImmediatePropagation();
    event.preventDefault();
    var row = button.closest(".list_item");
    var panel = button.closest("#nbgrader-assignment-list") || document;
    var name = nameOf(row);
    clock(app, courseOf(panel)).then(function (data) {
      var info = data.assignments[name];
      if (info && info.late && !window.confirm(info.submit_warning)) return;
      button.dataset.attentionConfirmed = "yes";
      button.click();
      delete button.dataset.attentionConfirmed;
    }).catch(function (err) {
      console.warn("attention-lab student clock:", err);
      button.dataset.attentionConfirmed = "yes";
      button.click();
      delete button.dataset.attentionConfirmed;
    });
  }

  // nbgrader's "(view feedback)" goes to the feedback folder; open the page itself instead.
  function openFeedbackPage(app, event) {
    var link = event.target.closest && event.target.closest("#submitted_assignments_list a");
    if (!link || link.textContent.trim() !== "(view feedback)") return;
    var cell = link.closest(".item_name");
    var row = cell && cell.closest("#submitted_assignments_list > .list_item");
    var panel = link.closest("#nbgrader-assignment-list") || document;
    if (!row) return;
    event.stopImmediatePropagation();
    event.preventDefault();
    var name = nameOf(row);
    clock(app, courseOf(panel)).then(function (data) {
      var pages = (data.assignments[name] || {}).feedback_pages || {};
      var stamp = Object.keys(pages).find(function (s) {
        return cell.textContent.indexOf(s) === 0;
      });
      (stamp ? pages[stamp] : []).forEach(function (path) {
        app.commands.execute("docmanager:open", { path: path });
      });
    });
  }

  function activate(app) {
    var pending = null;
    var observer = new MutationObserver(function () {
      if (pending) return;
      pending = setTimeout(function () {
        pending = null;
        var panel = document.getElementById("nbgrader-assignment-list");
        if (panel) decorate(app, panel, observer);
        var message = document.querySelector(".validation-success#validation-message");
        if (message && !message.dataset.attentionClock) explainValidation(app, message, observer);
      }, 50);
    });
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener("click", function (event) {
      confirmLateSubmit(app, event);
      openFeedbackPage(app, event);
    }, true);
  }

  var READABLE =
    ".jp-OutputArea-output pre { word-break: normal; overflow-wrap: anywhere; }";

  var readableOutputs = {
    id: "@attention-lab/course-ui:readable-outputs",
    description: "Printed lines wrap between words, not mid-word",
    autoStart: true,
    activate: function () {
      var style = document.createElement("style");
      style.id = "attention-lab-readable-outputs";
      style.textContent = READABLE;
      document.head.append(style);
    }
  };

  var studentClock = {
    id: "@attention-lab/course-ui:student-clock",
    description: "Due dates, lateness and feedback state in nbgrader's Assignment List",
    autoStart: true,
    activate: activate
  };
  var scope = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  scope["@attention-lab/course-ui"] = {
    init: function () {
      return Promise.resolve();
    },
    get: function () {
      return Promise.resolve(function () {
        return { __esModule: true, default: [readableOutputs, studentClock] };
      });
    }
  };
})();
