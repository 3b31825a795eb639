import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { BulkRequest } from "../../../client/index";
import { describeError } from "../api";
import {
  submissions,
  type FormDetails,
  type ListedSubmission,
  type SearchHit,
  type SpamFilterStatus,
  type Submission,
  type SubmissionState,
  type TeamMember,
} from "../calls";
import { formatDateTime, formatNumber, plural } from "../format";
import { go, href, parseHash } from "../router";
import { me } from "../session";
import { may, onlyWho } from "../team";
import { act, announce, Confirm, Dialog, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";
import { STATES, StateBadge, stateLabel, Triage, useMembers } from "./triage";
import { senderEmail } from "../../../lib/email";
import { fieldLabel } from "../../../lib/field-label";
import { fieldsOf, SpamScore, SubmissionDetails, valueText } from "./submission";

const PAGE_SIZE = 25;

type Folder = "inbox" | "spam";

/** The inbox's views by state; the first, the work still to do, is where it opens. */
const VIEWS = [
  { id: "todo", label: "To do (new and open)", states: "new,open" },
  { id: "new", label: "New", states: "new" },
  { id: "open", label: "Open", states: "open" },
  { id: "done", label: "Done", states: "done" },
  { id: "archived", label: "Archived", states: "archived" },
  { id: "all", label: "All", states: undefined },
] as const;
type View = (typeof VIEWS)[number];

/** What the address keeps of the inbox: its folder, view, filters and search; a cursor is of those. */
function inboxQuery(query: URLSearchParams) {
  const folder: Folder = query.get("status") === "spam" ? "spam" : "inbox";
  return {
    folder,
    // The spam folder holds every state: what was caught is not work yet.
    view: folder === "spam" ? VIEWS[5] : (VIEWS.find((v) => v.id === query.get("state")) ?? VIEWS[0]),
    tag: query.get("tag") || undefined,
    /** `me`, `none` or a member's email. */
    assignee: query.get("assignee") || undefined,
    q: query.get("q") || undefined,
  };
}
type InboxQuery = ReturnType<typeof inboxQuery>;
/** A page of the list, or of search hits (with what matched). */
type InboxPage = {
  submissions: (ListedSubmission & Partial<Pick<SearchHit, "highlights">>)[];
  nextCursor: string | null;
};
/** What a change did to rows: a new state, gone from the folder, or something else (null). */
type Change = SubmissionState | "gone" | null;
const queryKey = (i: InboxQuery) => [i.folder, i.view.id, i.tag, i.assignee, i.q].join("\u0000");

/** Keys act on the inbox (see SHORTCUTS), never while the person types or a dialog is open; a checkbox is no typing. */
const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement &&
  (t.isContentEditable || !!t.closest("input:not([type=checkbox]), textarea, select, dialog"));

const SHORTCUTS: [string, string][] = [
  ["j / k", "the next or the previous submission"],
  ["Enter or o", "open it"],
  ["e", "mark it done (and go on to the next)"],
  ["#", "delete it (asks first)"],
  ["x", "select it, or not, for the actions on many"],
  ["/", "search"],
  ["?", "these shortcuts"],
];

type TabProps = { form: FormDetails; query: URLSearchParams; onChange: () => void };

/** A form's submissions: the inbox and spam folder, or the answers saved halfway (`?status=partial`). */
export function SubmissionsTab(props: TabProps) {
  return props.query.get("status") === "partial" ? <PartialsFolder {...props} /> : <InboxTab {...props} />;
}

/** The folders, as links: inbox (with its unread count), spam, and with save and resume on, the answers saved halfway. */
function FolderLinks({ form, at }: { form: FormDetails; at: Folder | "partial" }) {
  const base = ["forms", form.id, "submissions"];
  return (
    <div class="segmented" role="group" aria-label="Folder">
      <a class="segment" href={href(base)} aria-current={at === "inbox" ? "true" : undefined}>
        Inbox
        {form.unread > 0 && (
          <span class="count-badge">
            {formatNumber(form.unread)}
            <span class="visually-hidden"> unread</span>
          </span>
        )}
      </a>
      <a class="segment" href={href(base, { status: "spam" })} aria-current={at === "spam" ? "true" : undefined}>
        Spam
      </a>
      {(form.partialSubmissions || at === "partial") && (
        <a
          class="segment"
          href={href(base, { status: "partial" })}
          aria-current={at === "partial" ? "true" : undefined}
        >
          Partial
        </a>
      )}
    </div>
  );
}

/** The answers visitors saved halfway on the hosted page: read only, newest first; they count nowhere until sent. */
function PartialsFolder({ form, query }: TabProps) {
  const cursor = query.get("cursor") ?? undefined;
  const [page, reload] = useLoad(() => submissions.partials(form.id, cursor, PAGE_SIZE), [form.id, cursor]);
  const base = ["forms", form.id, "submissions"];
  return (
    <section aria-labelledby="partials-title">
      <h2 id="partials-title" class="visually-hidden">
        Saved halfway
      </h2>
      <div class="toolbar">
        <FolderLinks form={form} at="partial" />
      </div>
      <p class="hint">
        What visitors saved to finish later. Nothing here is counted, notified or sent to webhooks until they send it;
        each goes 30 days after its last save.
      </p>
      <Show value={page} retry={reload} label="Loading saved answers…">
        {(p) =>
          p.submissions.length === 0 ? (
            <p class="empty">No answers saved halfway{cursor ? " on this page" : ""}.</p>
          ) : (
            <>
              <table class="table submissions-table">
                <caption class="visually-hidden">Answers saved halfway, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Saved</th>
                    <th scope="col">Email</th>
                    <th scope="col">Answers so far</th>
                  </tr>
                </thead>
                <tbody>
                  {p.submissions.map((s) => (
                    <tr key={s.id}>
                      <td data-label="Saved">{formatDateTime(s.updatedAt)}</td>
                      <td data-label="Email">{s.email ?? "—"}</td>
                      <td data-label="Answers so far">
                        {Object.entries(s.data)
                          .filter(([, v]) => valueText(v) !== "")
                          .map(([k, v]) => `${fieldLabel(k, form.fields)}: ${valueText(v)}`)
                          .join(" · ")}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {p.nextCursor && (
                <p>
                  <a class="button button-small" href={href(base, { status: "partial", cursor: p.nextCursor })}>
                    Older →
                  </a>
                </p>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
}

/**
 * A form's inbox and spam folder, a page at a time with the API's cursors: filtered by state, tag
 * and assignee, searched, worked with the keyboard (SHORTCUTS) and many at a time. A row opens the
 * whole submission.
 */
function InboxTab({ form, query, onChange }: { form: FormDetails; query: URLSearchParams; onChange: () => void }) {
  const asked = inboxQuery(query);
  const { folder, view, tag, assignee, q } = asked;
  const key = queryKey(asked);
  const cursor = query.get("cursor") ?? undefined;
  // Cursors of the pages before this one, so "Newer" can go back; lost on reload, then "First page" remains.
  const [earlier, setEarlier] = useState<{ key: string; cursors: (string | undefined)[] }>({ key, cursors: [] });
  const stack = earlier.key === key ? earlier.cursors : [];
  const assigneeEmail = assignee === "me" ? me.value?.email : assignee;
  // A search looks through every state of the folder (what was done is what one looks for later),
  // within the tag and assignee asked; without one, the view's states in the list's own order.
  const [page, reload, replace] = useLoad(
    (): Promise<InboxPage> =>
      q
        ? submissions.search({
            q,
            formId: form.id,
            spam: folder === "spam",
            tag,
            assignee: assigneeEmail,
            cursor,
            limit: PAGE_SIZE,
          })
        : submissions.list(form.id, folder, cursor, PAGE_SIZE, { state: view.states, tag, assignee: assigneeEmail }),
    [form.id, key, cursor],
  );
  // Asked again with each page of submissions: a mark reloads the page, and teaches the filter.
  const [filter] = useLoad((): Promise<SpamFilterStatus> => submissions.spamFilter(form.teamId), [page]);
  const filing = filter.state === "ready" && filter.data.filing;
  const members = useMembers(form.teamId);
  const editor = may(form.teamId, "submissions.edit");
  const rows = page.state === "ready" ? page.data.submissions : [];
  const [open, setOpen] = useState<ListedSubmission | null>(null);
  const [at, setAt] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [deleting, setDeleting] = useState<ListedSubmission[] | null>(null);
  const [help, setHelp] = useState(false);
  const lastToggled = useRef<number | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const base = ["forms", form.id, "submissions"];
  // From the address as it is now, not as this render saw it: two changes in quick succession (a tag
  // cleared, then an assignee picked before the page drew the first) both hold.
  const address = (change: Partial<Record<"status" | "state" | "tag" | "assignee" | "q" | "cursor", string>>) => {
    const now = inboxQuery(parseHash(location.hash).query);
    return href(base, {
      status: now.folder === "spam" ? "spam" : undefined,
      state: now.view.id === "todo" || now.folder === "spam" ? undefined : now.view.id,
      tag: now.tag,
      assignee: now.assignee,
      q: now.q,
      cursor: undefined,
      ...change,
    });
  };
  const pageAt = (c: string | undefined) => address({ cursor: c });
  const move = (e: MouseEvent, cursors: (string | undefined)[], to: string | undefined) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return; // a new tab keeps its own way
    e.preventDefault();
    setEarlier({ key, cursors });
    go(pageAt(to));
  };
  // Another list: the cursor goes to its top, and nothing stays selected that is not on it.
  useEffect(() => {
    setAt(0);
    setSelected(new Set());
  }, [key, cursor]);
  useEffect(() => {
    if (at >= rows.length && rows.length > 0) setAt(rows.length - 1);
    setSelected((was) => {
      const kept = new Set(rows.filter((r) => was.has(r.id)).map((r) => r.id));
      return kept.size === was.size ? was : kept;
    });
  }, [rows]);

  /** Focus to row `i`'s opener, so the cursor row is where the keyboard is, visibly. */
  const focusRow = (i: number) =>
    document.querySelector<HTMLElement>(`.submissions-table tbody tr[data-index="${i}"] .link-button`)?.focus();
  const goTo = (i: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, i));
    setAt(next);
    focusRow(next);
  };
  /**
   * After a change to these rows (`to`: their new state, or gone: deleted or moved to the other
   * folder), shown at once: they leave a view that no longer holds them; then the page and the
   * form's counts are read again.
   */
  const changed = (ids: string[], to: Change) => {
    if (page.state === "ready") {
      const leaves = (r: ListedSubmission) =>
        ids.includes(r.id) &&
        (to === "gone" || (to !== null && view.states !== undefined && !view.states.includes(to)));
      replace({
        ...page.data,
        submissions: page.data.submissions
          .filter((r) => !leaves(r))
          .map((r) => (ids.includes(r.id) && to !== null && to !== "gone" ? { ...r, state: to } : r)),
      });
    }
    reload();
    onChange();
  };
  const markDone = async (row: ListedSubmission, i: number) => {
    try {
      await submissions.update(form.id, row.id, { state: "done" });
    } catch (e) {
      announce(`Not marked done: ${describeError(e)}`);
      return;
    }
    announce(`Marked done: ${senderText(row) || formatDateTime(row.createdAt)}`);
    const stays = view.states === undefined || view.states.includes("done");
    changed([row.id], "done");
    // In a view it leaves, the next row takes its place; in one it stays in, the cursor moves on.
    requestAnimationFrame(() => goTo(stays ? i + 1 : i));
  };
  const toggle = (id: string, on?: boolean) =>
    setSelected((was) => {
      const next = new Set(was);
      if (on ?? !next.has(id)) next.add(id);
      else next.delete(id);
      return next;
    });

  const keys = useRef<(e: KeyboardEvent) => void>(() => {});
  keys.current = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (document.querySelector("dialog[open]")) return;
    const row = rows[at];
    const handled = () => e.preventDefault();
    // The first j or k takes the keyboard into the list, where the cursor is.
    const inList = document.activeElement?.closest(".submissions-table tbody") != null;
    switch (e.key) {
      case "j":
        handled();
        return goTo(inList ? at + 1 : at);
      case "k":
        handled();
        return goTo(inList ? at - 1 : at);
      case "/":
        handled();
        return search.current?.focus();
      case "?":
        handled();
        return setHelp(true);
      case "o":
      case "Enter":
        // Enter on a focused button or link does what it says already.
        if (!row || (e.key === "Enter" && e.target instanceof HTMLElement && e.target.closest("a, button"))) return;
        handled();
        return setOpen(row);
      case "x":
        if (!row) return;
        handled();
        return toggle(row.id);
      case "e":
        if (!row || !editor || folder === "spam") return;
        handled();
        return void markDone(row, at);
      case "#":
        if (!row || !editor) return;
        handled();
        return setDeleting([row]);
    }
  };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => keys.current(e);
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);

  const picked = rows.filter((r) => selected.has(r.id));
  const filtered = view.id !== "all" || tag !== undefined || assignee !== undefined || q !== undefined;
  return (
    <section aria-labelledby="submissions-title">
      <h2 id="submissions-title" class="visually-hidden">
        Submissions
      </h2>
      <div class="toolbar">
        <FolderLinks form={form} at={folder} />
        <div class="toolbar-end">
          <button type="button" class="button button-small" onClick={() => setHelp(true)}>
            Shortcuts <kbd>?</kbd>
          </button>
          {folder === "inbox" && editor && (
            <a class="button button-small" href={submissions.exportUrl(form.id, "csv")} download>
              Export CSV
            </a>
          )}
        </div>
      </div>
      <InboxFilters asked={asked} members={members} searchRef={search} onChange={(change) => go(address(change))} />
      {filter.state === "ready" && <FilterPanel status={filter.data} />}
      <Show value={page} retry={reload} label="Loading submissions…">
        {(p) =>
          p.submissions.length === 0 && !cursor ? (
            filtered && form.submissionCount > 0 ? (
              <EmptyView
                asked={asked}
                clear={address({ state: "all", tag: undefined, assignee: undefined, q: undefined })}
              />
            ) : (
              <EmptyFolder form={form} folder={folder} />
            )
          ) : (
            <>
              <table class="table submissions-table">
                <caption class="visually-hidden">
                  {folder === "spam" ? "Spam" : `Inbox, ${view.label}`}, newest first. Keys: j and k move, e marks done,
                  x selects, question mark lists them all.
                </caption>
                <thead>
                  <tr>
                    <th scope="col" class="cell-check">
                      <input
                        type="checkbox"
                        aria-label="Select every submission on this page"
                        checked={p.submissions.length > 0 && picked.length === p.submissions.length}
                        onChange={(e) =>
                          setSelected(e.currentTarget.checked ? new Set(p.submissions.map((r) => r.id)) : new Set())
                        }
                      />
                    </th>
                    <th scope="col">Received</th>
                    <th scope="col">From</th>
                    <th scope="col">Message</th>
                    <th scope="col">State</th>
                    <th scope="col">Spam check</th>
                  </tr>
                </thead>
                <tbody>
                  {p.submissions.map((s, i) => (
                    <tr
                      key={s.id}
                      data-index={i}
                      class={`clickable${s.state === "new" ? " unread" : ""}${i === at ? " cursor" : ""}`}
                      onClick={(e) => !(e.target as HTMLElement).closest("button, input, a") && setOpen(s)}
                    >
                      <td class="cell-check">
                        <input
                          type="checkbox"
                          aria-label={`Select the submission of ${formatDateTime(s.createdAt)}`}
                          checked={selected.has(s.id)}
                          onFocus={() => setAt(i)}
                          onClick={(e) => {
                            const from = lastToggled.current;
                            const on = e.currentTarget.checked;
                            lastToggled.current = i;
                            if (!e.shiftKey || from === null) return toggle(s.id, on);
                            // Shift-click: the whole range since the last one, as it was set.
                            const [lo, hi] = from < i ? [from, i] : [i, from];
                            setSelected((was) => {
                              const next = new Set(was);
                              for (const r of p.submissions.slice(lo, hi + 1)) on ? next.add(r.id) : next.delete(r.id);
                              return next;
                            });
                          }}
                        />
                      </td>
                      <td data-label="Received">
                        <button type="button" class="link-button" onClick={() => setOpen(s)} onFocus={() => setAt(i)}>
                          {s.state === "new" && <span class="visually-hidden">Unread, </span>}
                          {formatDateTime(s.createdAt)}
                        </button>
                      </td>
                      <td data-label="From">
                        <Sender submission={s} />
                      </td>
                      <td data-label="Message" class="summary-cell">
                        <span class="clamp">
                          {s.highlights?.length ? (
                            <Highlights hits={s.highlights} fields={form.fields} />
                          ) : (
                            summary(s, form.fields)
                          )}
                        </span>
                      </td>
                      <td data-label="State" class="cell-work">
                        <StateBadge state={s.state} />
                        {s.assignee && (
                          <span class="muted small block assignee" title="Assignee">
                            <span class="visually-hidden">assigned to </span>
                            {s.assignee}
                          </span>
                        )}
                        {s.tags.length > 0 && <TagList tags={s.tags} />}
                        {s.noteCount > 0 && (
                          <span class="muted small block note-count">{plural(s.noteCount, "note")}</span>
                        )}
                      </td>
                      <td data-label="Spam check">
                        <SpamScore submission={s} filing={filing} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {picked.length > 0 && (
                <BulkBar
                  form={form}
                  folder={folder}
                  picked={picked}
                  members={members}
                  onDelete={() => setDeleting(picked)}
                  onClear={() => setSelected(new Set())}
                  onDone={(ids, to) => {
                    setSelected(new Set());
                    changed(ids, to);
                  }}
                />
              )}
              <nav class="pager" aria-label="Pages">
                {/* The stack changes and the address moves in one step (the link's href depends on the stack). */}
                <span key="newer">
                  {stack.length > 0 ? (
                    <a
                      class="button"
                      href={pageAt(stack[stack.length - 1])}
                      onClick={(e) => move(e, stack.slice(0, -1), stack[stack.length - 1])}
                    >
                      ← Newer
                    </a>
                  ) : (
                    cursor && (
                      <a class="button" href={pageAt(undefined)}>
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
                      href={pageAt(p.nextCursor)}
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
          onClose={() => {
            setOpen(null);
            // What was changed in it shows in the list, and in the form's counts.
            reload();
            onChange();
          }}
          onDone={(message) => {
            setOpen(null);
            announce(message);
            reload();
            onChange();
          }}
        />
      )}
      {deleting && (
        <Confirm
          title={deleting.length === 1 ? "Delete this submission?" : `Delete ${deleting.length} submissions?`}
          action="Delete for good"
          busyLabel="Deleting…"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            const ids = deleting.map((r) => r.id);
            if (ids.length === 1) await submissions.remove(form.id, ids[0]!);
            else await submissions.bulk(form.id, { ids, action: "delete" });
            setDeleting(null);
            setSelected(new Set());
            announce(ids.length === 1 ? "Submission deleted" : `${plural(ids.length, "submission")} deleted`);
            changed(ids, "gone");
            requestAnimationFrame(() => goTo(at));
          }}
        >
          {deleting.length === 1 && (
            <p>
              The submission of {formatDateTime(deleting[0]!.createdAt)}
              {senderText(deleting[0]!) ? ` from ${senderText(deleting[0]!)}` : ""}.
            </p>
          )}
          <p>
            {deleting.length === 1 ? "It is" : "They are"} removed with everything kept about{" "}
            {deleting.length === 1 ? "it" : "them"}, and the form's counts and analytics drop{" "}
            {deleting.length === 1 ? "it" : "them"}. This cannot be undone.
          </p>
        </Confirm>
      )}
      {help && (
        <Dialog title="Keyboard shortcuts" onClose={() => setHelp(false)}>
          <dl class="kv shortcuts">
            {SHORTCUTS.map(([k, what]) => (
              <div key={k}>
                <dt>
                  <kbd>{k}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
          <p class="muted small">They work on the list, not while you type in a box.</p>
        </Dialog>
      )}
    </section>
  );
}

/** The inbox's search box and its filters by state, assignee and tag; each is kept in the address. */
function InboxFilters({
  asked,
  members,
  searchRef,
  onChange,
}: {
  asked: InboxQuery;
  members: TeamMember[];
  searchRef: RefObject<HTMLInputElement | null>;
  onChange: (change: Partial<Record<"state" | "tag" | "assignee" | "q", string | undefined>>) => void;
}) {
  const [q, setQ] = useState(asked.q ?? "");
  const [tag, setTag] = useState(asked.tag ?? "");
  useEffect(() => setQ(asked.q ?? ""), [asked.q]);
  useEffect(() => setTag(asked.tag ?? ""), [asked.tag]);
  return (
    <div class="inbox-filters">
      <form
        role="search"
        class="inbox-search"
        onSubmit={(e) => {
          e.preventDefault();
          onChange({ q: q.trim() || undefined });
        }}
      >
        <label class="visually-hidden" for="inbox-search">
          Search submissions
        </label>
        <input
          id="inbox-search"
          ref={searchRef}
          type="search"
          placeholder="Search  ( / )"
          value={q}
          onInput={(e) => {
            setQ(e.currentTarget.value);
            // Emptied (its clear button, or by hand): the list again.
            if (!e.currentTarget.value && asked.q) onChange({ q: undefined });
          }}
          onKeyDown={(e) => e.key === "Escape" && e.currentTarget.blur()}
        />
      </form>
      {asked.folder === "inbox" && (
        <label class="field-inline">
          <span>State</span>
          <select
            value={asked.view.id}
            disabled={asked.q !== undefined}
            title={asked.q !== undefined ? "A search looks through every state" : undefined}
            onChange={(e) => onChange({ state: e.currentTarget.value === "todo" ? undefined : e.currentTarget.value })}
          >
            {VIEWS.map((v) => (
              <option key={v.id} value={v.id}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <label class="field-inline">
        <span>Assignee</span>
        <select
          value={asked.assignee ?? ""}
          onChange={(e) => onChange({ assignee: e.currentTarget.value || undefined })}
        >
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Nobody</option>
          {members
            .filter((m) => m.email !== me.value?.email)
            .map((m) => (
              <option key={m.ownerId} value={m.email}>
                {m.email}
              </option>
            ))}
        </select>
      </label>
      <form
        class="field-inline"
        onSubmit={(e) => {
          e.preventDefault();
          onChange({ tag: tag.trim() || undefined });
        }}
      >
        <label class="field-inline">
          <span>Tag</span>
          <input
            class="input-small"
            value={tag}
            maxLength={40}
            placeholder="any"
            onInput={(e) => setTag(e.currentTarget.value)}
            onChange={(e) => onChange({ tag: e.currentTarget.value.trim() || undefined })}
          />
        </label>
      </form>
    </div>
  );
}

/** What can be done to the selected submissions at once: each one request, all or nothing. */
function BulkBar({
  form,
  folder,
  picked,
  members,
  onDelete,
  onClear,
  onDone,
}: {
  form: FormDetails;
  folder: Folder;
  picked: ListedSubmission[];
  members: TeamMember[];
  onDelete: () => void;
  onClear: () => void;
  onDone: (ids: string[], to: Change) => void;
}) {
  const [tag, setTag] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ids = picked.map((r) => r.id);
  const run = async (body: Omit<BulkRequest, "ids">, said: string, to: Change = null) => {
    setBusy(true);
    setError(null);
    try {
      const done = await submissions.bulk(form.id, { ...body, ids });
      announce(`${said}: ${plural(done.changed, "submission")} changed`);
      onDone(ids, to);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (!may(form.teamId, "submissions.edit"))
    return <p class="muted small">{onlyWho(form.teamId, "submissions.edit", "can change submissions")}</p>;
  return (
    <div class="bulk-bar" role="region" aria-label="Actions on the selected submissions">
      <strong aria-live="polite">{plural(picked.length, "selected", "selected")}</strong>
      {folder === "inbox" && (
        <>
          <select
            aria-label="Set the state of the selected"
            value=""
            disabled={busy}
            onChange={act(async (e) => {
              const state = (e.currentTarget as HTMLSelectElement).value as SubmissionState;
              if (state)
                await run({ action: "set", set: { state } }, `Marked ${stateLabel(state).toLowerCase()}`, state);
            })}
          >
            <option value="">Set state…</option>
            {STATES.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
          <select
            aria-label="Assign the selected"
            value=""
            disabled={busy}
            onChange={act(async (e) => {
              const to = (e.currentTarget as HTMLSelectElement).value;
              if (!to) return;
              const assignee = to === "none" ? null : to;
              await run({ action: "set", set: { assignee } }, assignee ? `Assigned to ${assignee}` : "Unassigned");
            })}
          >
            <option value="">Assign…</option>
            <option value="none">Nobody</option>
            {members.map((m) => (
              <option key={m.ownerId} value={m.email}>
                {m.email}
              </option>
            ))}
          </select>
          <form
            class="field-inline"
            onSubmit={act(async (e: Event) => {
              e.preventDefault();
              const t = tag.trim();
              if (!t) return;
              await run({ action: "set", set: { addTags: [t] } }, `Tagged ${t}`);
              setTag("");
            })}
          >
            <input
              class="input-small"
              aria-label="Tag for the selected"
              placeholder="Tag"
              maxLength={40}
              value={tag}
              onInput={(e) => setTag(e.currentTarget.value)}
            />
            <button type="submit" class="button button-small" disabled={busy || !tag.trim()}>
              Add tag
            </button>
          </form>
        </>
      )}
      <button
        type="button"
        class="button button-small"
        disabled={busy}
        onClick={act(() =>
          folder === "spam"
            ? run({ action: "not-spam" }, "Moved to the inbox", "gone")
            : run({ action: "spam" }, "Moved to spam", "gone"),
        )}
      >
        {folder === "spam" ? "Not spam" : "Mark as spam"}
      </button>
      <button type="button" class="button button-small button-danger-quiet" disabled={busy} onClick={onDelete}>
        Delete…
      </button>
      <button type="button" class="button button-small" onClick={onClear}>
        Clear selection
      </button>
      {error !== null && <ErrorNote error={error} />}
    </div>
  );
}

/** What a search matched, field by field, the matched words marked. */
function Highlights({ hits, fields }: { hits: SearchHit["highlights"]; fields: FormDetails["fields"] }) {
  return (
    <>
      {hits.map((h, i) => {
        const parts: (string | preact.JSX.Element)[] = [];
        let from = 0;
        for (const [start, end] of h.matches) {
          parts.push(h.text.slice(from, start), <mark key={start}>{h.text.slice(start, end)}</mark>);
          from = end;
        }
        parts.push(h.text.slice(from));
        return (
          <span key={h.field}>
            {i > 0 && " · "}
            <span class="muted">{fieldLabel(h.field, fields)}:</span> {parts}
          </span>
        );
      })}
    </>
  );
}

function TagList({ tags }: { tags: string[] }) {
  return (
    <ul class="tags">
      {tags.map((t) => (
        <li key={t} class="tag">
          {t}
        </li>
      ))}
    </ul>
  );
}

/** A filtered view with nothing in it: the work queue done, or nothing that matches. */
function EmptyView({ asked, clear }: { asked: InboxQuery; clear: string }) {
  const queue = asked.view.id === "todo" && !asked.tag && !asked.assignee && !asked.q;
  return (
    <div class="empty" data-testid="inbox-empty">
      <h3>{queue ? "All done" : "Nothing here"}</h3>
      <p>
        {queue
          ? "No new or open submissions: everything has been worked through."
          : "No submission matches the search and filters."}
      </p>
      <a class="button" href={clear}>
        Show all submissions
      </a>
    </div>
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

/** Who sent it in a few words (a name, else the email), for announcements; "" when the data does not say. */
const senderText = (s: Submission) => stringField(s, NAME_KEY) ?? senderEmail(s.data) ?? "";

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
  submission: ListedSubmission;
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
      {folder === "inbox" && <Triage submission={s} teamId={teamId} />}
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
