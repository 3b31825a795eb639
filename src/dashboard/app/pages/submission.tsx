import { useState } from "preact/hooks";
import { forms, submissions, type FormDetails, type Submission, type SubmissionDetail } from "../calls";
import { fieldLabel } from "../../../lib/field-label";
import { downloadPath, filesOf, humanSize } from "../../../modules/files/refs";
import { countryName, formatDateTime } from "../format";
import { go, href } from "../router";
import { PageTitle } from "../shell";
import { may, onlyWho } from "../team";
import { act, announce, Confirm, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";
import { Triage } from "./triage";

/** A submission's own fields, without `_meta`. */
export const fieldsOf = (s: Submission) => Object.entries(s.data).filter(([k]) => k !== "_meta");
/** A value as a person reads it: text as it is, a file (or a list of them) by name, anything else as JSON. */
export const valueText = (v: unknown) =>
  typeof v === "string"
    ? v
    : (filesOf(v)
        ?.map((f) => f.name)
        .join(", ") ?? JSON.stringify(v));

/** A submission's files, by field, in the order of its fields. */
const submissionFiles = (s: Submission) =>
  fieldsOf(s).flatMap(([field, v]) => (filesOf(v) ?? []).map((file) => ({ field, file })));

// Image types a browser shows in an <img> (never run there: an SVG's scripts are off in an image).
const THUMBNAIL = /^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/;

/** A submission's uploaded files: each with a thumbnail when it is an image, its name as its download, its type and size. */
function SubmissionFiles({ submission: s }: { submission: Submission }) {
  const files = submissionFiles(s);
  if (files.length === 0) return null;
  return (
    <>
      <h3 class="subhead">Files</h3>
      <ul class="files" data-testid="submission-files">
        {files.map(({ field, file }) => {
          const url = downloadPath(s.formId, s.id, file.file);
          return (
            <li key={file.file} class="file">
              {THUMBNAIL.test(file.type) ? (
                <img class="thumb" src={url} alt={`Preview of ${file.name}`} loading="lazy" />
              ) : (
                <span class="thumb thumb-none" aria-hidden="true">
                  {file.type.split("/")[1]?.slice(0, 4).toUpperCase()}
                </span>
              )}
              <span>
                <a href={url} download={file.name}>
                  {file.name}
                </a>
                <br />
                <span class="muted">
                  {field} · {file.type} · {humanSize(file.size)}
                </span>
              </span>
            </li>
          );
        })}
      </ul>
    </>
  );
}
export const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const META_LABELS: [keyof Submission["data"]["_meta"], string][] = [
  ["country", "Country"],
  ["browser", "Browser"],
  ["browserVersion", "Browser version"],
  ["os", "Operating system"],
  ["osVersion", "OS version"],
  ["device", "Device"],
  ["language", "Language"],
  ["referrer", "Referrer"],
];

/** What each reason a submission was filed as spam means, in the owner's words. */
const REASONS: Record<string, string> = {
  filter: "the filter: it resembles what you marked as spam",
  honeypot: "the honeypot field was filled (a bot)",
  "blocked-word": "it holds a blocked word",
  "blocked-email-domain": "its email address is at a blocked domain",
  "disposable-email": "its email address is a throwaway one",
  "too-many-links": "it holds more links than allowed",
  duplicate: "the same fields from the same visitor, again",
};

/**
 * The filter's score as a percentage once the filter files spam (before, with what it has learned,
 * the score says nothing: shown as "learning"), then the reasons; a dash for submissions from before it.
 */
export function SpamScore({ submission, filing }: { submission: Submission; filing: boolean }) {
  if (submission.spam === null) return <span class="muted">–</span>;
  const { score, reasons } = submission.spam;
  const shown = filing ? `${Math.round(score * 100)}%` : "";
  return (
    <span title={reasons.length ? reasons.join(", ") : undefined} data-testid="spam-score">
      {shown}
      {shown && reasons.length ? " · " : ""}
      {reasons.join(", ")}
      {!shown && !reasons.length && <span class="muted">learning</span>}
    </span>
  );
}

/**
 * What a submission holds, as the list's dialog and its own page show it: its fields, the spam
 * check, then what is known of the sender. Later parts (uploaded files) go after the fields, each as
 * a section of its own.
 */
export function SubmissionDetails({
  submission: s,
  filing,
  fields,
}: {
  submission: Submission;
  filing: boolean;
  /** The form's fields, whose labels name the values (null while the form loads: names made readable). */
  fields: FormDetails["fields"];
}) {
  const meta = s.data._meta;
  return (
    <>
      <dl class="kv" data-testid="submission-fields">
        {fieldsOf(s).map(([k, v]) => (
          <div key={k}>
            <dt>{fieldLabel(k, fields)}</dt>
            <dd class="pre">{valueText(v)}</dd>
          </div>
        ))}
      </dl>
      <SubmissionFiles submission={s} />
      <h3 class="subhead">Spam check</h3>
      <dl class="kv kv-meta">
        <div>
          <dt>Score</dt>
          <dd>
            <SpamScore submission={s} filing={filing} />
            <span class="muted small block">
              {filing
                ? "0: like what you marked not spam; 1: like what you marked spam"
                : "shown once the filter has learned from 20 spam and 20 not-spam submissions and files spam"}
            </span>
          </dd>
        </div>
        <div>
          <dt>Reasons</dt>
          <dd>
            {s.spam === null ? (
              <span class="muted">none recorded (received before the filter)</span>
            ) : s.spam.reasons.length ? (
              s.spam.reasons.map((r) => REASONS[r] ?? r).join("; ")
            ) : (
              <span class="muted">none: it went to the inbox</span>
            )}
          </dd>
        </div>
      </dl>
      <h3 class="subhead">About the sender</h3>
      <dl class="kv kv-meta">
        {META_LABELS.map(([k, label]) => (
          <div key={k}>
            <dt>{label}</dt>
            <dd>
              {k === "country"
                ? `${countryName(meta.country)} (${meta.country})`
                : k === "device"
                  ? capital(meta.device)
                  : (meta[k] ?? <span class="muted">unknown</span>)}
            </dd>
          </div>
        ))}
        <div>
          <dt>Submission id</dt>
          <dd>
            <code>{s.id}</code>
          </dd>
        </div>
      </dl>
    </>
  );
}

/**
 * What the submission held before each change its submitter made through their edit link
 * (editableDays), newest first: each revision's fields that differ from the values after it.
 */
function Revisions({ submission: s, fields }: { submission: Submission; fields: FormDetails["fields"] }) {
  const [revisions, reload] = useLoad(() => submissions.revisions(s.formId, s.id), [s.formId, s.id, s.data]);
  // Most submissions were never changed: nothing shows until there is something to show (or a failure to say).
  if (revisions.state !== "failed" && (revisions.state !== "ready" || revisions.data.length === 0)) return null;
  return (
    <section class="card" data-testid="submission-revisions">
      <h3 class="subhead">Changed by the sender</h3>
      <Show value={revisions} retry={reload} label="Loading the earlier answers…">
        {(list) => (
          <ol class="notes">
            {list.map((r, i) => {
              const after = (i === 0 ? s.data : list[i - 1]!.data) as Record<string, unknown>;
              const changed = Object.entries(r.data).filter(
                ([k, v]) => k !== "_meta" && JSON.stringify(v) !== JSON.stringify(after[k]),
              );
              return (
                <li key={r.revision}>
                  <p class="muted small">Until {formatDateTime(r.createdAt)}, it said:</p>
                  <dl class="kv">
                    {changed.map(([k, v]) => (
                      <div key={k}>
                        <dt>{fieldLabel(k, fields)}</dt>
                        <dd class="pre">{valueText(v)}</dd>
                      </div>
                    ))}
                  </dl>
                </li>
              );
            })}
          </ol>
        )}
      </Show>
    </section>
  );
}

/**
 * One submission on a page of its own (`#/forms/{formId}/submissions/{submissionId}`, the address
 * the daily digest links to): its folder, fields and sender, moved between inbox and spam or deleted here.
 */
export function SubmissionPage({ formId, submissionId }: { formId: string; submissionId: string }) {
  const [form, reloadForm] = useLoad(() => forms.get(formId), [formId]);
  const [sub, reload, replace] = useLoad(() => submissions.get(formId, submissionId), [formId, submissionId]);
  // The form's team's filter: asked once the form says which team it is.
  const teamId = form.state === "ready" ? form.data.teamId : null;
  const [filter] = useLoad(async () => (teamId ? submissions.spamFilter(teamId) : null), [sub, teamId]);
  const filing = filter.state === "ready" && filter.data?.filing === true;
  const inbox = href(["forms", formId, "submissions"]);
  return (
    <>
      <p class="crumbs">
        <a href="#/forms">Forms</a>
        <span aria-hidden="true"> / </span>
        <a href={inbox}>{form.state === "ready" ? form.data.name : "Form"}</a>
        <span aria-hidden="true"> / </span>
        {sub.state === "ready" && sub.data.status === "spam" ? (
          <a href={href(["forms", formId, "submissions"], { status: "spam" })}>Spam</a>
        ) : (
          <a href={inbox}>Submissions</a>
        )}
      </p>
      {form.state === "failed" && <ErrorNote error={form.error} retry={reloadForm} />}
      <Show value={sub} retry={reload} label="Loading the submission…">
        {(s) => {
          document.title = `Submission of ${formatDateTime(s.createdAt)} · formsvc`;
          return (
            <SubmissionView
              submission={s}
              filing={filing}
              fields={form.state === "ready" ? form.data.fields : null}
              teamId={teamId}
              onMoved={replace}
              backTo={inbox}
            />
          );
        }}
      </Show>
    </>
  );
}

function SubmissionView({
  submission: s,
  filing,
  fields,
  teamId,
  onMoved,
  backTo,
}: {
  submission: SubmissionDetail;
  filing: boolean;
  fields: FormDetails["fields"];
  /** The form's team; null until the form is read (the actions wait for it). */
  teamId: string | null;
  onMoved: (s: SubmissionDetail) => void;
  backTo: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState(false);
  const spam = s.status === "spam";
  const move = async () => {
    setBusy(true);
    setError(null);
    try {
      const moved = await submissions.move(s.formId, s.id, spam ? "not-spam" : "spam");
      onMoved({ ...s, status: moved.status });
      announce(moved.status === "spam" ? "Moved to spam" : "Moved to the inbox");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <PageTitle
        sub={
          <span class={`badge ${spam ? "badge-pending" : "badge-succeeded"}`} data-testid="submission-status">
            {spam ? "Spam" : "Inbox"}
          </span>
        }
      >
        Submission of {formatDateTime(s.createdAt)}
      </PageTitle>
      <section class="card">
        <SubmissionDetails submission={s} filing={filing} fields={fields} />
        {error !== null && <ErrorNote error={error} />}
        <p>
          {/* A plain link: the session's cookie carries a GET, and the browser saves what Content-Disposition names. */}
          <a
            class="button"
            href={`/api/v1/forms/${encodeURIComponent(s.formId)}/submissions/${encodeURIComponent(s.id)}/pdf`}
            download
            data-testid="submission-pdf"
          >
            Download PDF
          </a>
        </p>
        {teamId !== null &&
          (may(teamId, "submissions.edit") ? (
            <div class="actions">
              <button type="button" class="button button-danger-quiet" onClick={() => setDeleting(true)}>
                Delete
              </button>
              <button type="button" class="button button-primary" disabled={busy} onClick={act(move)}>
                {spam ? "Not spam" : "Mark as spam"}
              </button>
            </div>
          ) : (
            <p class="muted small">{onlyWho(teamId, "submissions.edit", "can mark or delete submissions")}</p>
          ))}
      </section>
      <Revisions submission={s} fields={fields} />
      {teamId !== null && !spam && (
        <section class="card triage-card">
          <Triage submission={s} teamId={teamId} onChanged={onMoved} />
        </section>
      )}
      {deleting && (
        <Confirm
          title="Delete this submission?"
          action="Delete for good"
          busyLabel="Deleting…"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await submissions.remove(s.formId, s.id);
            announce("Submission deleted");
            go(backTo, true);
          }}
        >
          <p>
            It is removed with everything kept about it, and the form's counts and analytics drop it. This cannot be
            undone.
          </p>
        </Confirm>
      )}
    </>
  );
}
