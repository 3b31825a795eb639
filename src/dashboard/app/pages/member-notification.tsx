import { useState } from "preact/hooks";
import { notifications, type FormDetails } from "../calls";
import { me } from "../session";
import { act, announce, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

/**
 * The logged-in member's own choice for this form: whether its owner notification comes to them.
 * Saved as it is switched, apart from the form's settings: any member may make it, a viewer too,
 * and it changes nothing for the others or for the form's recipients.
 */
export function MemberNotificationCard({ form }: { form: FormDetails }) {
  const [mine, retry, replace] = useLoad(() => notifications.mine(form.id), [form.id]);
  // The choice being saved, shown meanwhile; a refusal puts the saved one back.
  const [saving, setSaving] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <section class="card" aria-labelledby="member-notify-title" data-testid="member-notification">
      <h3 id="member-notify-title" class="card-title">
        Your notifications
      </h3>
      <Show value={mine} retry={retry} label="Loading your choice…">
        {(n) => (
          <div class="switch">
            <label class="check">
              <input
                type="checkbox"
                name="notifyMe"
                checked={saving ?? n.notify}
                disabled={saving !== null}
                aria-describedby="member-notify-help"
                onChange={act(async (e: Event) => {
                  const notify = (e.currentTarget as HTMLInputElement).checked;
                  setSaving(notify);
                  setError(null);
                  try {
                    replace(await notifications.setMine(form.id, notify));
                    announce(notify ? "You will get an email for each new submission" : "No more emails to you");
                  } catch (err) {
                    setError(err);
                  } finally {
                    setSaving(null);
                  }
                })}
              />
              <span>Email me new submissions</span>
            </label>
            <span id="member-notify-help" class="muted small block">
              Only to you, at {me.value?.email}: the other members choose for themselves, and the form's recipients stay
              as they are. For your role it is {n.default ? "on" : "off"} until you choose.
              {!form.emailSettings.enabled && " The form's email notifications are off (Email, above): none is sent."}
            </span>
          </div>
        )}
      </Show>
      {error !== null && <ErrorNote error={error} />}
    </section>
  );
}
