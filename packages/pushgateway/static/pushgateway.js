// The Pushgateway status page's script. The page (src/handlers/status-page.ts) is complete without it; this adds
// tabs, a live group filter, "N s ago" and TTL countdowns, deletion with a confirmation, and keeps expanded groups
// expanded across reloads (as upstream's functions.js does since 1.7.0).

(() => {
  const root = document.documentElement;
  root.classList.add("js");
  const OPEN_KEY = "pushgateway.open-groups";
  // The server's clock, so "ago" and TTL left do not depend on the browser's clock being right.
  const skewMs = Number(document.body.dataset.now || Date.now()) - Date.now();
  const now = () => Date.now() + skewMs;

  /** `12 s`, `3 min 4 s`, `2 h 5 min`, `3 d 4 h`: the same as the server's formatDuration. */
  const duration = (ms) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  };

  // Tabs: the one named by the location's hash, Metrics by default.
  const tabs = [...document.querySelectorAll("section.tab")];
  const showTab = () => {
    const wanted = location.hash === "#status" ? "status" : "metrics";
    for (const tab of tabs) tab.hidden = tab.id !== wanted;
    for (const link of document.querySelectorAll("nav a[data-tab]"))
      link.classList.toggle("active", link.dataset.tab === wanted);
  };
  window.addEventListener("hashchange", showTab);
  showTab();

  // Expanded groups stay expanded after a reload.
  const readOpen = () => {
    try {
      return new Set(JSON.parse(sessionStorage.getItem(OPEN_KEY) || "[]"));
    } catch {
      return new Set();
    }
  };
  const open = readOpen();
  for (const group of document.querySelectorAll("section.group")) {
    const details = group.querySelector("details");
    if (open.has(group.id)) details.open = true;
    details.addEventListener("toggle", () => {
      const ids = readOpen();
      if (details.open) ids.add(group.id);
      else ids.delete(group.id);
      try {
        sessionStorage.setItem(OPEN_KEY, JSON.stringify([...ids]));
      } catch {
        // Storage may be disabled; expansion then simply is not remembered.
      }
    });
  }

  // "N s ago" and the TTL left, kept current.
  const tick = () => {
    const t = now();
    for (const time of document.querySelectorAll("time[data-ms]")) {
      const ago = time.nextElementSibling;
      if (ago?.classList.contains("ago")) ago.textContent = `(${duration(t - Number(time.dataset.ms))} ago)`;
    }
    for (const ttl of document.querySelectorAll(".ttl[data-expires]")) {
      const left = Number(ttl.dataset.expires) - t;
      const out = ttl.querySelector(".ttl-left");
      if (out) out.textContent = left > 0 ? duration(left) : "0 s (expired)";
    }
  };
  setInterval(tick, 1000);

  // The live filter: the syntax of src/group-filter.ts, applied to each group's grouping labels.
  const TERM =
    /\s*,?\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|[^\s,]*)|("(?:[^"\\]|\\.)*"|[^\s,]+))/y;
  const unquote = (v) =>
    v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, "$1") : v;
  const parseFilter = (input) => {
    const terms = [];
    let rest = input.trim();
    while (rest !== "") {
      TERM.lastIndex = 0;
      const m = TERM.exec(rest);
      if (m === null || m[0].trim() === "") return { error: `cannot read the filter at "${rest}"` };
      rest = rest.slice(m[0].length).trim();
      const [, name, op, raw, word] = m;
      if (name !== undefined) {
        const value = unquote(raw || "");
        let re;
        if (op === "=~" || op === "!~") {
          try {
            re = new RegExp(`^(?:${value})$`, "u");
          } catch (e) {
            return { error: `invalid regular expression in ${name}${op}"${value}": ${e.message}` };
          }
        }
        terms.push({ name, op, value, re });
      } else {
        terms.push({ text: unquote(word).toLowerCase() });
      }
    }
    return { terms };
  };
  const matches = (labels, terms) =>
    terms.every((t) => {
      if (t.text !== undefined)
        return Object.entries(labels).some(([k, v]) => `${k}="${v}"`.toLowerCase().includes(t.text));
      const actual = labels[t.name] ?? "";
      if (t.op === "=") return actual === t.value;
      if (t.op === "!=") return actual !== t.value;
      if (t.op === "=~") return t.re.test(actual);
      return !t.re.test(actual);
    });

  const groupsBox = document.getElementById("groups");
  const countLine = document.getElementById("group-count");
  const filterInput = document.getElementById("filter");
  let errorLine = document.querySelector(".filter-error");
  const showError = (text) => {
    if (!text) {
      errorLine?.remove();
      errorLine = null;
      return;
    }
    if (!errorLine) {
      errorLine = document.createElement("p");
      errorLine.className = "filter-error";
      errorLine.setAttribute("role", "alert");
      countLine.before(errorLine);
    }
    errorLine.textContent = text;
  };
  const applyFilter = () => {
    const parsed = parseFilter(filterInput.value);
    showError(parsed.error);
    const terms = parsed.terms || [];
    const groups = [...document.querySelectorAll("section.group")];
    let shown = 0;
    for (const group of groups) {
      const visible = matches(JSON.parse(group.dataset.labels), terms);
      group.hidden = !visible;
      if (visible) shown++;
    }
    const noun = groups.length === 1 ? "group" : "groups";
    countLine.textContent =
      shown === groups.length ? `${groups.length} ${noun}` : `${shown} of ${groups.length} ${noun}`;
    let empty = groupsBox.querySelector(".empty");
    if (shown === 0) {
      if (!empty) {
        empty = document.createElement("p");
        empty.className = "empty";
        groupsBox.append(empty);
      }
      empty.textContent =
        groups.length === 0 ? "No metric groups have been pushed." : "No group matches the filter.";
    } else {
      empty?.remove();
    }
    const url = new URL(location.href);
    if (filterInput.value.trim() === "") url.searchParams.delete("filter");
    else url.searchParams.set("filter", filterInput.value);
    history.replaceState(null, "", url);
  };
  filterInput.addEventListener("input", applyFilter);
  filterInput.form.addEventListener("submit", (event) => {
    // A changed selector (match[]) is the server's to apply: the form is sent. The filter alone applies here.
    const matchInput = document.getElementById("match");
    const selected = new URL(location.href).searchParams.get("match[]") ?? "";
    if (matchInput && matchInput.value.trim() !== selected.trim()) return;
    event.preventDefault();
    applyFilter();
  });

  // Deleting: a confirmation dialog, then the HTTP API; the group leaves the page once the gateway accepted it.
  const dialog = document.getElementById("confirm");
  const confirmText = document.getElementById("confirm-text");
  const confirm = (text) =>
    new Promise((resolve) => {
      confirmText.textContent = text;
      dialog.returnValue = "";
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "delete"), { once: true });
      dialog.showModal();
      document.getElementById("confirm-delete").focus();
    });
  const request = async (url, method) => {
    const response = await fetch(url, { method });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  };
  const wipeButton = document.getElementById("wipe") ?? document.getElementById("delete-selected");
  const groupTotal = document.getElementById("group-total");
  const afterRemoval = () => {
    const left = document.querySelectorAll("section.group").length;
    if (groupTotal) groupTotal.textContent = String(left);
    if (wipeButton) wipeButton.disabled = left === 0;
    applyFilter();
  };
  const failed = (error) => {
    showError(`Deletion failed: ${error.message}`);
  };

  groupsBox.addEventListener("click", async (event) => {
    const button = event.target.closest("button.delete");
    if (!button) return;
    const group = button.closest("section.group");
    if (!(await confirm(`Delete the group ${button.dataset.labelsText}?`))) return;
    try {
      await request(button.dataset.url, "DELETE");
      const ids = readOpen();
      ids.delete(group.id);
      try {
        sessionStorage.setItem(OPEN_KEY, JSON.stringify([...ids]));
      } catch {}
      group.remove();
      afterRemoval();
    } catch (error) {
      failed(error);
    }
  });

  // Delete All (the admin wipe, PUT), or with ?match[]= Delete N Selected Groups (the admin delete by matcher).
  wipeButton?.addEventListener("click", async () => {
    const total = document.querySelectorAll("section.group").length;
    const selected = wipeButton.id === "delete-selected";
    const question = selected
      ? `Delete the ${total} groups selected by ${document.getElementById("selection")?.querySelectorAll("code").length === 1 ? "the selector" : "the selectors"}? Groups pushed meanwhile that match are deleted too.`
      : `Delete all ${total} groups?`;
    if (!(await confirm(question))) return;
    try {
      await request(wipeButton.dataset.url, selected ? "DELETE" : "PUT");
      for (const group of document.querySelectorAll("section.group")) group.remove();
      afterRemoval();
    } catch (error) {
      failed(error);
    }
  });

  tick();
})();
