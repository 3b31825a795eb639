import { useState } from "preact/hooks";
import { submissions, type FormDetails, type SpamFilterStatus, type Submission } from "../calls";
import { countryName, formatDateTime, formatNumber } from "../format";
import { go, href } from "../router";
import { may, onlyWho } from "../team";
import { act, announce, Confirm, Dialog, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";
import { senderEmail } from "../../../lib/email";
import { fieldLabel } from "../../../lib/field-label";
import { capital, fieldsOf, SpamScore, SubmissionDetails, valueText } from "./submission";

const PAGE_SIZE = 25;

type Folder = "inbox" | "spam";

/** A form's inbox and spam folder, a page at a time with the API's cursors; a row opens the whole submission. */
export function SubmissionsTab({
  form,
  query,
  onChange,
}: {
  form: FormDetails;
  query: URLSearchParams;
  onChange: () => void;
}) {
  const folder: Folder = query.get("status") === "spam" ? "spam" : "inbox";
  const cursor = query.get("cursor") ?? undefined;
  // Cursors of the pages before this one, so "Newer" can go back; lost on reload, then "First page" remains.
  const [earlier, setEarlier] = useState<{ folder: Folder; cursors: (string | undefined)[] }>({ folder, cursors: [] });
  const stack = earlier.folder === folder ? earlier.cursors : [];
  const [page, reload] = useLoad(() => submissions.list(form.id, folder, cursor, PAGE_SIZE), [form.id, folder, cursor]);
  // Asked again with each page of submissions: a mark reloads the page, and teaches the filter.
  const [filter] = useLoad((): Promise<SpamFilterStatus> => submissions.spamFilter(form.teamId), [page]);
  const filing = filter.state === "ready" && filter.data.filing;
  const [open, setOpen] = useState<Submission | null>(null);
  const base = ["forms", form.id, "submissions"];
  const at = (c: string | undefined) => href(base, { status: folder === "spam" ? "spam" : undefined, cursor: c });
  const move = (e: MouseEvent, cursors: (string | undefined)[], to: string | undefined) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return; // a new tab keeps its own way
    e.preventDefault();
    setEarlier({ folder, cursors });
    go(at(to));
  };
  return (
    <section aria-labelledby="submissions-title">
      <h2 id="submissions-title" class="visually-hidden">
        Submissions
      </h2>
      <div class="toolbar">
        <div class="segmented" role="group" aria-label="Folder">
          <a class="segment" href={href(base)} aria-current={folder === "inbox" ? "true" : undefined}>
            Inbox
          </a>
          <a
            class="segment"
            href={href(base, { status: "spam" })}
            aria-current={folder === "spam" ? "true" : undefined}
          >
            Spam
          </a>
        </div>
        {folder === "inbox" && may(form.teamId, "submissions.edit") && (
          <a class="button" href={submissions.exportUrl(form.id, "csv")} download>
            Export CSV
          </a>
        )}
      </div>
      {filter.state === "ready" && <FilterPanel status={filter.data} />}
      <Show value={page} retry={reload} label="Loading submissions…">
        {(p) =>
          p.submissions.length === 0 && !cursor ? (
            <EmptyFolder form={form} folder={folder} />
          ) : (
            <>
              <table class="table submissions-table">
                <caption class="visually-hidden">{folder === "spam" ? "Spam" : "Inbox"}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Received</th>
                    <th scope="col">From</th>
                    <th scope="col">Message</th>
                    <th scope="col">Country</th>
                    <th scope="col">Device</th>
                    <th scope="col">Spam check</th>
                  </tr>
                </thead>
                <tbody>
                  {p.submissions.map((s) => (
                    <tr
                      key={s.id}
                      class="clickable"
                      onClick={(e) => (e.target as HTMLElement).tagName !== "BUTTON" && setOpen(s)}
                    >
                      <td data-label="Received">
                        <button type="button" class="link-button" onClick={() => setOpen(s)}>
                          {formatDateTime(s.createdAt)}
                        </button>
                      </td>
                      <td data-label="From">
                        <Sender submission={s} />
                      </td>
                      <td data-label="Message" class="summary-cell">
                        {summary(s, form.fields)}
                      </td>
                      <td data-label="Country">{countryName(s.data._meta.country)}</td>
                      <td data-label="Device">{capital(s.data._meta.device)}</td>
                      <td data-label="Spam check">
                        <SpamScore submission={s} filing={filing} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <nav class="pager" aria-label="Pages">
                {/* The stack changes and the address moves in one step (the link's href depends on the stack). */}
                <span key="newer">
                  {stack.length > 0 ? (
                    <a
                      class="button"
                      href={at(stack[stack.length - 1])}
                      onClick={(e) => move(e, stack.slice(0, -1), stack[stack.length - 1])}
                    >
                      ← Newer
                    </a>
                  ) : (
                    cursor && (
                      <a class="button" href={at(undefined)}>
                        ← First page
                      </a>
                    )
                  )}
                </span>
                <span key="count" class="muted small">
                  {p.submissions.length
                    ? `${formatNumber(stack.length * PAGE_SIZE + 1)}–${formatNumber(stack.length * PAGE_SIZE + p.submissions.length)}`
                    : ""}
                </span>
                <span key="older">
                  {p.nextCursor && (
                    <a
                      class="button"
                      href={at(p.nextCursor)}
                      onClick={(e) => move(e, [...stack, cursor], p.nextCursor!)}
                    >
                      Older →
                    </a>
                  )}
                </span>
              </nav>
            </>
          )
        }
      </Show>
      {open && (
        <SubmissionDialog
          submission={open}
          filing={filing}
          fields={form.fields}
          folder={folder}
          teamId={form.teamId}
          onClose={() => setOpen(null)}
          onDone={(message) => {
            setOpen(null);
            announce(message);
            reload();
            onChange();
          }}
        />
      )}
    </section>
  );
}

/** What the filter has learned from the owner's marks, and whether it files spam yet. */
function FilterPanel({ status: s }: { status: SpamFilterStatus }) {
  return (
    <p class="muted small" role="note">
      Spam filter: learned from {formatNumber(s.spam)} spam and {formatNumber(s.notSpam)} not-spam submission(s).{" "}
      {s.filing
        ? `It files spam${s.filingSince ? ` since ${formatDateTime(s.filingSince)}` : ""}.`
        : "It files spam once it has learned from 20 of each: mark what slips through with “Mark as spam”, and what it misses here with “Not spam”."}
    </p>
  );
}

function EmptyFolder({ form, folder }: { form: FormDetails; folder: Folder }) {
  if (folder === "spam")
    return (
      <div class="empty">
        <h3>No spam</h3>
        <p>Submissions caught by the honeypot or marked as spam land here. They count nowhere and send no email.</p>
      </div>
    );
  return (
    <div class="empty">
      <h3>No submissions yet</h3>
      <p>Put the form on your website; what people send appears here, newest first.</p>
      <a class="button button-primary" href={href(["forms", form.id, "embed"])}>
        Get the snippet
      </a>
    </div>
  );
}

const EMAIL_KEY = /email/i;
const NAME_KEY = /^(name|full_?name|your_?name)$/i;
const stringField = (s: Submission, key: RegExp) =>
  fieldsOf(s).find(([k, v]) => key.test(k) && typeof v === "string" && v !== "")?.[1] as string | undefined;

/** Who sent it, as far as the data says: a name and the extracted email (the server's rule, `_replyto` first). */
function Sender({ submission }: { submission: Submission }) {
  const name = stringField(submission, NAME_KEY);
  const email = senderEmail(submission.data);
  if (!name && !email) return <span class="muted">—</span>;
  return (
    <>
      {name && <span class="block">{name}</span>}
      {email && <span class={name ? "muted small block" : "block"}>{email}</span>}
    </>
  );
}

/** The rest of the data on one line: the message first when there is one. */
function summary(s: Submission, fields: FormDetails["fields"]): string {
  const entries = fieldsOf(s).filter(([k]) => !EMAIL_KEY.test(k) && !NAME_KEY.test(k) && k !== "_replyto");
  const message = entries.find(([k]) => /message|comment|feedback|text/i.test(k));
  const rest = message ? [message, ...entries.filter((e) => e !== message)] : entries;
  const line = rest
    .map(([k, v]) =>
      rest.length === 1 || k === message?.[0] ? valueText(v) : `${fieldLabel(k, fields)}: ${valueText(v)}`,
    )
    .join(" · ");
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/** The whole submission and its _meta, with what can be done to it. */
function SubmissionDialog({
  submission: s,
  filing,
  fields,
  folder,
  teamId,
  onClose,
  onDone,
}: {
  submission: Submission;
  filing: boolean;
  fields: FormDetails["fields"];
  folder: Folder;
  teamId: string;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState(false);
  if (deleting)
    return (
      <Confirm
        title="Delete this submission?"
        action="Delete for good"
        busyLabel="Deleting…"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await submissions.remove(s.formId, s.id);
          onDone("Submission deleted");
        }}
      >
        <p>
          It is removed with everything kept about it, and the form's counts and analytics drop it. This cannot be
          undone.
        </p>
      </Confirm>
    );
  return (
    <Dialog title={`Submission of ${formatDateTime(s.createdAt)}`} onClose={onClose} wide>
      <SubmissionDetails submission={s} filing={filing} fields={fields} />
      <p>
        <a href={href(["forms", s.formId, "submissions", s.id])}>Open on its own page</a>
      </p>
      {error !== null && <ErrorNote error={error} />}
      {may(teamId, "submissions.edit") ? (
        <div class="actions">
          <button type="button" class="button button-danger-quiet" onClick={() => setDeleting(true)}>
            Delete
          </button>
          <button
            type="button"
            class="button button-primary"
            disabled={busy}
            onClick={act(async () => {
              setBusy(true);
              setError(null);
              try {
                await submissions.move(s.formId, s.id, folder === "spam" ? "not-spam" : "spam");
                onDone(folder === "spam" ? "Moved to the inbox" : "Moved to spam");
              } catch (err) {
                setError(err);
                setBusy(false);
              }
            })}
          >
            {folder === "spam" ? "Not spam" : "Mark as spam"}
          </button>
        </div>
      ) : (
        <p class="muted small">{onlyWho(teamId, "submissions.edit", "can mark or delete submissions")}</p>
      )}
    </Dialog>
  );
}
