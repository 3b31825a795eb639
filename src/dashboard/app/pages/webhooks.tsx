import { useState } from "preact/hooks";
import type { WebhookFormat } from "../../../client/index";
import { webhooks, type Delivery, type FormDetails, type CreatedWebhook, type Webhook } from "../calls";
import { formatDateTime } from "../format";
import { act, announce, Confirm, CopyButton, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

/** The form's webhooks: add one (its signing secret shown once), remove one, see recent deliveries and send one again. */
export function WebhooksSection({ form }: { form: FormDetails }) {
  const [list, reload] = useLoad(() => webhooks.list(form.id), [form.id]);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <section class="card" aria-labelledby="webhooks-title">
      <h3 id="webhooks-title">Webhooks</h3>
      <p class="muted small">
        Each submission in the inbox is sent to these addresses (retried for a day when they fail).
      </p>
      <Show value={list} retry={reload} label="Loading webhooks…">
        {(hooks) =>
          hooks.length === 0 ? (
            <p class="muted">No webhooks yet.</p>
          ) : (
            <ul class="list">
              {hooks.map((h) => (
                <li key={h.id} class="list-item">
                  <div class="list-row">
                    <div>
                      <code class="break">{h.url}</code>
                      <span class="muted small block">
                        {h.format} · {h.enabled ? "on" : `off${h.disabledReason ? `: ${h.disabledReason}` : ""}`} ·
                        added {formatDateTime(h.createdAt)}
                      </span>
                    </div>
                    <button type="button" class="button button-danger-quiet" onClick={() => setRemoving(h)}>
                      Remove
                    </button>
                  </div>
                  <Deliveries hook={h} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      {created?.secret && (
        <div class="note note-success" role="status">
          <p>
            Webhook added. Its signing secret, shown this once (keep it with the receiver, to check the{" "}
            <code>webhook-signature</code> header):
          </p>
          <p class="secret-row">
            <code class="secret">{created.secret}</code> <CopyButton text={created.secret} />
          </p>
        </div>
      )}
      <form
        class="inline-form"
        aria-label="Add a webhook"
        onSubmit={act(async (e) => {
          e.preventDefault();
          const el = e.currentTarget;
          const data = new FormData(el);
          setBusy(true);
          setError(null);
          try {
            setCreated(
              await webhooks.add(form.id, {
                url: String(data.get("url")).trim(),
                format: String(data.get("format")) as WebhookFormat,
              }),
            );
            el.reset();
            announce("Webhook added");
            reload();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        })}
      >
        <label class="field grow">
          <span>Address</span>
          <input name="url" type="url" required placeholder="https://example.com/hooks/formsvc" />
        </label>
        <label class="field">
          <span>Format</span>
          <select name="format">
            <option value="standard">Standard Webhooks (signed JSON)</option>
            <option value="slack">Slack</option>
            <option value="discord">Discord</option>
          </select>
        </label>
        <button type="submit" class="button" disabled={busy}>
          {busy ? "Adding…" : "Add webhook"}
        </button>
      </form>
      {error !== null && <ErrorNote error={error} />}
      {removing && (
        <Confirm
          title="Remove this webhook?"
          action="Remove"
          busyLabel="Removing…"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await webhooks.remove(removing.id);
            setRemoving(null);
            announce("Webhook removed");
            reload();
          }}
        >
          <p>
            Nothing more is sent to <code class="break">{removing.url}</code>.
          </p>
        </Confirm>
      )}
    </section>
  );
}

function Deliveries({ hook }: { hook: Webhook }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="details" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Recent deliveries</summary>
      {open && <DeliveryList hook={hook} />}
    </details>
  );
}

function DeliveryList({ hook }: { hook: Webhook }) {
  const [list, reload] = useLoad(() => webhooks.deliveries(hook.id), [hook.id]);
  const [error, setError] = useState<unknown>(null);
  return (
    <Show value={list} retry={reload} label="Loading deliveries…">
      {(items: Delivery[]) => (
        <>
          {items.length === 0 ? (
            <p class="muted small">Nothing sent yet.</p>
          ) : (
            <table class="table table-compact">
              <thead>
                <tr>
                  <th scope="col">Queued</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                  <th scope="col">Last answer</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.slice(0, 20).map((d) => (
                  <tr key={d.id}>
                    <td data-label="Queued">{formatDateTime(d.createdAt)}</td>
                    <td data-label="Status">
                      <span class={`badge badge-${d.status}`}>{d.status}</span>
                    </td>
                    <td data-label="Attempts" class="num">
                      {d.attempts}
                    </td>
                    <td data-label="Last answer">{d.lastStatus ? `HTTP ${d.lastStatus}` : (d.lastError ?? "—")}</td>
                    <td>
                      <button
                        type="button"
                        class="button button-small"
                        onClick={act(async () => {
                          setError(null);
                          try {
                            await webhooks.replay(d.id);
                            announce("Delivery queued again");
                            reload();
                          } catch (err) {
                            setError(err);
                          }
                        })}
                      >
                        Send again
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {error !== null && <ErrorNote error={error} />}
        </>
      )}
    </Show>
  );
}
