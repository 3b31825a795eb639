import { useEffect, useState } from "preact/hooks";
import type { NotificationPreview as Preview } from "../../../client/index";
import { describeError } from "../api";
import { notifications } from "../calls";

// Asked this long after the last keystroke: one request per pause, not per character.
const WAIT_MS = 300;

type Template = { subject: string; text: string } | null;

/**
 * The owner notification as it would be sent with the template being edited (not yet saved),
 * rendered by the server's own renderer from the form's latest submission (or a sample). The HTML
 * part is shown in a frame with every sandbox flag off, so no script or form in it can run.
 */
export function NotificationPreview({ formId, template }: { formId: string; template: Template }) {
  const [shown, setShown] = useState<Preview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const asked = JSON.stringify(template);
  useEffect(() => {
    let stale = false;
    const timer = setTimeout(() => {
      notifications.preview(formId, template).then(
        (p) => {
          if (stale) return;
          setShown(p);
          setProblem(null);
        },
        (e: unknown) => !stale && setProblem(describeError(e)),
      );
    }, WAIT_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [formId, asked]);
  return (
    <section
      class="notification-preview"
      aria-labelledby="notification-preview-title"
      data-testid="notification-preview"
    >
      <h3 id="notification-preview-title" class="subhead">
        Preview of the notification
      </h3>
      {/* Polite, not an alert: it changes as the template is typed. */}
      <p class={problem ? "field-error" : "muted small"} aria-live="polite">
        {problem
          ? `The template cannot be sent as it is: ${problem}`
          : shown &&
            (shown.submissionId
              ? "Rendered from the latest submission, as it would be sent."
              : "Rendered from a sample submission: this form has none in its inbox yet.")}
      </p>
      {shown && (
        <>
          <dl class="kv">
            <div>
              <dt>Subject</dt>
              <dd data-testid="preview-subject">{shown.subject}</dd>
            </div>
            <div>
              <dt>Text</dt>
              <dd class="pre" data-testid="preview-text">
                {shown.text}
              </dd>
            </div>
          </dl>
          <iframe
            class="mail-preview"
            sandbox=""
            srcdoc={shown.html}
            title="Preview of the notification's HTML part"
            referrerpolicy="no-referrer"
          />
        </>
      )}
    </section>
  );
}
