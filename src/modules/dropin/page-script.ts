/**
 * The hosted page's script, for a form with steps (`page` fields) or conditions (`showIf`); a page
 * without it works whole (every step, every field shown, the server dropping what does not apply).
 * With it: a field whose condition does not hold is hidden and disabled (so neither checked nor
 * sent), as fields-check.ts decides on the server, live as the visitor types; and one step shows at a
 * time with a progress bar, Back and Next, each step checked by the browser's own constraint
 * validation before the next; with save and resume on, each Next also saves what is typed and shows
 * the resume link. Plain ES2017 with no framework, served from formsvc (no inline script); its words
 * come from the page (`data-texts`, in the form's language), so one script serves all.
 */
export const PAGE_SCRIPT = `"use strict";
(() => {
  const form = document.querySelector("form[data-logic]");
  if (!form) return;
  form.classList.add("live");
  const texts = JSON.parse(form.dataset.texts);
  const controls = (root) => [...root.querySelectorAll("input, select, textarea")];
  const wraps = new Map([...form.querySelectorAll("[data-field]")].map((w) => [w.dataset.field, w]));
  const conditional = [...form.querySelectorAll("[data-show-if]")].map((w) => [w, JSON.parse(w.dataset.showIf)]);

  // A field's values as the server reads them: none while it is hidden, a ticked box "true" (only a
  // conditional field's wrapper is marked: any other always shows).
  const values = (name) => {
    const wrap = wraps.get(name);
    if (wrap && wrap.hidden) return [];
    const out = [];
    for (const el of form.elements) {
      if (el.name !== name || el.disabled) continue;
      if (el.type === "checkbox" || el.type === "radio") {
        if (el.checked) out.push(el.value);
      } else if (el.multiple) for (const o of el.selectedOptions) out.push(o.value);
      else if (el.value.trim() !== "") out.push(el.value);
    }
    return out;
  };
  const holds = (c, v) => (c.notEmpty ? v.length > 0 : c.equals !== undefined ? v.includes(c.equals) : v.some((x) => c.in.includes(x)));
  // In the fields' order: a controlling field comes first, so a chain settles in one pass.
  const update = () => {
    for (const [wrap, c] of conditional) {
      const shown = holds(c, values(c.field));
      wrap.hidden = !shown;
      for (const el of wrap.matches("input") ? [wrap] : controls(wrap)) {
        el.disabled = !shown;
        if ("required" in el.dataset) el.required = shown;
      }
    }
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();

  // The page checks what applies itself: the browser would refuse to send over a field on a hidden step.
  form.noValidate = true;
  const steps = [...form.querySelectorAll(".step")];
  const send = form.querySelector("button[type=submit]");
  const firstInvalid = (root) => controls(root).find((el) => el.willValidate && !el.checkValidity());
  // Save and resume: each Next saves what is typed so far (files aside) and shows the link back.
  const saver = form.querySelector("[data-save]");
  const box = document.getElementById("resume");
  const save = () => {
    if (!saver || !box) return;
    const body = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string") body.append(k, v);
    fetch(saver.formAction, { method: "POST", body, headers: { accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((j) => {
        if (!j) return;
        for (const el of document.querySelectorAll("input[name=_partial]")) el.value = j.token;
        const a = box.querySelector("a");
        a.href = a.textContent = j.resumeUrl;
        box.hidden = false;
      })
      .catch(() => {});
  };
  let at = 0;
  let go = () => {};
  if (steps.length > 1) {
    const live = (s) => controls(s).some((el) => !el.disabled && el.type !== "hidden");
    const make = (tag, cls, text) => Object.assign(document.createElement(tag), { className: cls, textContent: text || "" });
    const top = make("div", "progress");
    const said = make("p", "progress-text");
    said.setAttribute("aria-live", "polite");
    const bar = make("progress", "");
    bar.setAttribute("aria-hidden", "true"); // the words above it say the same
    top.append(said, bar);
    form.prepend(top);
    const nav = make("div", "step-nav");
    const back = make("button", "secondary", texts.back);
    const next = make("button", "", texts.next);
    back.type = next.type = "button";
    send.before(nav);
    nav.append(back, next, send);
    const show = (i, focus) => {
      at = i;
      steps.forEach((s, j) => (s.hidden = j !== i));
      const list = steps.filter(live);
      const k = Math.max(0, list.indexOf(steps[i]));
      bar.max = list.length;
      bar.value = k + 1;
      said.textContent = texts.progress.replace("{step}", k + 1).replace("{total}", list.length);
      back.hidden = k === 0;
      next.hidden = k === list.length - 1;
      send.hidden = !next.hidden;
      if (focus) {
        steps[i].focus();
        top.scrollIntoView({ block: "start" });
      }
    };
    go = (d) => {
      let i = at + d;
      while (i >= 0 && i < steps.length && !live(steps[i])) i += d;
      if (i >= 0 && i < steps.length) show(i, true);
    };
    const checked = () => {
      const bad = firstInvalid(steps[at]);
      if (bad) bad.reportValidity();
      return !bad;
    };
    back.addEventListener("click", () => go(-1));
    next.addEventListener("click", () => {
      if (!checked()) return;
      save();
      go(1);
    });
    form.addEventListener("input", () => show(at, false));
    form.addEventListener("change", () => show(at, false));
    for (const s of steps) s.tabIndex = -1;
    // A refused post comes back with its problems marked: start on the first step holding one.
    const marked = form.querySelector("[aria-invalid=true]");
    show(Math.max(0, marked ? steps.indexOf(marked.closest(".step")) : 0), false);
    if (!live(steps[at])) go(1);
  }
  form.addEventListener("submit", (e) => {
    // "Save and continue later" posts what there is, unchecked.
    if (saver && e.submitter === saver) return;
    if (send.hidden) {
      // Enter in a field before the last step: the next step, not the post.
      e.preventDefault();
      if (firstInvalid(steps[at])) firstInvalid(steps[at]).reportValidity();
      else {
        save();
        go(1);
      }
      return;
    }
    const bad = firstInvalid(form);
    if (!bad) return;
    e.preventDefault();
    const step = bad.closest(".step");
    if (step && step !== steps[at]) {
      go(steps.indexOf(step) - at);
    }
    bad.reportValidity();
  });
})();
`;
