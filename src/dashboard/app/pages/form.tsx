import { useEffect, useRef } from "preact/hooks";
import { forms, type FormDetails } from "../calls";
import { typeLabel } from "../form-types";
import { formatDateTime, formatNumber } from "../format";
import { href, route } from "../router";
import { PageTitle } from "../shell";
import { Show } from "../ui/bits";
import { useLoad } from "../ui/load";
import { AnalyticsTab } from "./analytics";
import { EmbedTab } from "./embed";
import { SettingsTab } from "./settings";
import { SubmissionsTab } from "./submissions";

const TABS = [
  { id: "analytics", label: "Analytics" },
  { id: "submissions", label: "Submissions" },
  { id: "settings", label: "Settings" },
  { id: "embed", label: "Embed" },
] as const;

export type FormTab = (typeof TABS)[number]["id"];

/**
 * One form: its name and type over the tabs for its analytics, submissions, settings and snippet.
 * Without a tab in the address: analytics, or the snippet for a form that has had no submission yet
 * (the next thing to do with it is to put it on a page).
 */
export function FormPage({ formId, tab: asked }: { formId: string; tab: FormTab | undefined }) {
  const [form, reload, replace] = useLoad(() => forms.get(formId), [formId]);
  // Another tab is another look: the counts and warnings over the tabs are read again (the page keeps
  // showing them meanwhile), so submissions that came while the owner was elsewhere are counted.
  const shownTab = useRef(asked);
  useEffect(() => {
    if (shownTab.current === asked) return;
    shownTab.current = asked;
    reload();
  }, [asked]);
  return (
    <>
      <p class="crumbs">
        <a href="#/forms">Forms</a>
        <span aria-hidden="true"> / </span>
      </p>
      <Show value={form} retry={reload} label="Loading the form…">
        {(f) => {
          const tab = asked ?? (f.submissionCount === 0 ? "embed" : "analytics");
          document.title = `${f.name} · ${TABS.find((t) => t.id === tab)!.label} · formsvc`;
          return (
            <>
              <PageTitle sub={<FormSummary form={f} />}>{f.name}</PageTitle>
              <RedirectWarnings form={f} />
              <nav class="tabs" aria-label="Form">
                {TABS.map((t) => (
                  <a key={t.id} href={href(["forms", formId, t.id])} aria-current={t.id === tab ? "page" : undefined}>
                    {t.label}
                  </a>
                ))}
              </nav>
              {tab === "analytics" && <AnalyticsTab form={f} query={route.value.query} />}
              {tab === "submissions" && <SubmissionsTab form={f} query={route.value.query} onChange={reload} />}
              {tab === "settings" && <SettingsTab form={f} onSaved={(saved: FormDetails) => replace(saved)} />}
              {tab === "embed" && <EmbedTab form={f} />}
            </>
          );
        }}
      </Show>
    </>
  );
}

function FormSummary({ form }: { form: FormDetails }) {
  return (
    <>
      <span class="badge">{typeLabel(form.formType)}</span> {formatNumber(form.submissionCount)}{" "}
      {form.submissionCount === 1 ? "submission" : "submissions"}
      {form.usersJoinedSettings?.enabled && <> · {formatNumber(form.usersJoinedSettings.count)} joined</>}
      {form.description && <span class="block">{form.description}</span>}
    </>
  );
}

/** Redirect targets the form's pages sent that were not allowed: the posts were kept, the visitors shown formsvc's thank-you page. */
function RedirectWarnings({ form }: { form: FormDetails }) {
  if (!form.warnings.length) return null;
  return (
    <div class="note note-warning">
      <p>
        A page sent {form.warnings.length === 1 ? "a redirect address" : "redirect addresses"} this form does not allow.
        The submissions were kept and the visitors saw formsvc&apos;s thank-you page instead. Add the address&apos;s
        origin to Allowed origins in Settings, or post from a page on that origin.
      </p>
      <ul>
        {form.warnings.map((w) => (
          <li key={`${w.code} ${w.target}`}>
            <code>{w.target}</code> <span class="muted small">last {formatDateTime(w.at)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
