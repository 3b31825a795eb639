/**
 * The stylesheet of the pages for people (hosted form, thank-you, errors): readable on a phone,
 * light or dark as the visitor's system is, a visible focus ring, errors marked by more than colour.
 */
export const PAGE_CSS = `:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --card: #fff; --text: #1d2430; --muted: #566072; --line: #b7bfcc;
  --accent: #2856d8; --accent-text: #fff; --error: #b3261e; --error-bg: #fdecea; --notice-bg: #eef3ff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #11151c; --card: #1b212b; --text: #e8ecf2; --muted: #a7b0bf; --line: #4a5566;
    --accent: #8fb0ff; --accent-text: #0d1320; --error: #ffb4ab; --error-bg: #3b1a17; --notice-bg: #1f2a44;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 36rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0 0.5rem; }
.card { background: var(--card); border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 4px #0003; border-top: 4px solid var(--accent); margin-top: 1rem; }
.card > :last-child { margin-bottom: 0; }
.card + form { margin-top: 1rem; }
.done { display: inline-grid; place-items: center; width: 1.9rem; height: 1.9rem; border-radius: 50%; background: var(--accent); color: var(--accent-text); font-size: 1.1rem; vertical-align: 0.1rem; margin-right: 0.25rem; }
.form-name { margin: 0; padding-left: 0.6rem; border-left: 4px solid var(--accent); color: var(--muted); font-weight: 600; }
h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
p { margin: 0 0 1rem; }
a { color: var(--accent); }
.description { color: var(--muted); white-space: pre-line; }
form { background: var(--card); border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 4px #0003; }
.hint { color: var(--muted); font-size: 0.9rem; }
.field { margin: 0 0 1.1rem; border: 0; padding: 0; min-width: 0; }
.field > label, legend { display: block; font-weight: 600; margin: 0 0 0.3rem; padding: 0; }
.required { color: var(--error); }
input, select, textarea {
  display: block; width: 100%; font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.7rem; min-height: 2.75rem;
}
textarea { resize: vertical; }
select[multiple] { min-height: 6rem; }
input[type="checkbox"], input[type="radio"] { display: inline-block; width: 1.25rem; height: 1.25rem; min-height: 0; margin: 0 0.5rem 0 0; vertical-align: -0.2rem; accent-color: var(--accent); }
.checkbox label { font-weight: 400; display: block; }
.field > label.choice { display: block; padding: 0.35rem 0; font-weight: 400; margin: 0; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.invalid input, .invalid select, .invalid textarea { border-color: var(--error); border-width: 2px; }
.error { color: var(--error); font-weight: 600; margin: 0 0 0.3rem; }
.error::before { content: "⚠ "; }
.summary { border: 2px solid var(--error); background: var(--error-bg); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
.summary ul { margin: 0; padding-left: 1.2rem; }
.summary a { color: var(--error); font-weight: 600; }
.notice { background: var(--notice-bg); border-radius: 10px; padding: 0.9rem 1rem; }
button {
  font: inherit; font-weight: 600; color: var(--accent-text); background: var(--accent); border: 0;
  border-radius: 8px; padding: 0.75rem 1.5rem; min-height: 2.75rem; cursor: pointer; width: 100%;
}
@media (min-width: 32rem) { button { width: auto; } }
altcha-widget { display: block; margin: 0 0 1rem; }
.hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
[hidden] { display: none !important; }
.step { border: 0; margin: 0; padding: 0; }
.step + .step { border-top: 1px solid var(--line); padding-top: 1rem; }
form.live .step { border-top: 0; padding-top: 0; }
form.live .when { display: none; }
.when { color: var(--muted); font-size: 0.9rem; margin: -0.2rem 0 0.3rem; }
.step:focus { outline: none; }
.progress { margin: 0 0 1rem; }
.progress-text { color: var(--muted); font-size: 0.9rem; margin: 0 0 0.3rem; }
progress { display: block; width: 100%; height: 0.5rem; accent-color: var(--accent); }
.step-nav { display: flex; gap: 0.75rem; }
.step-nav button { flex: 1; width: auto; }
button.secondary { background: transparent; color: var(--accent); border: 2px solid var(--accent); }
.resume button, button[data-save] { margin-top: 0.75rem; }
.resume a { overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** A colour's relative luminance (WCAG), from `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * The stylesheet that gives a form's pages its owner's colour (`#rrggbb`, lower case): text on it is
 * white or near-black, whichever reads better; in dark mode it is lightened, as the default is, so
 * links stay readable on the dark background.
 */
export function accentCss(hex: string): string {
  const onAccent = luminance(hex) > 0.18 ? "#0d1320" : "#fff";
  return `:root { --accent: ${hex}; --accent-text: ${onAccent}; }
@media (prefers-color-scheme: dark) {
  :root { --accent: color-mix(in srgb, ${hex} 55%, #fff); --accent-text: #0d1320; }
}
`;
}
