import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../api";
import type { Loaded } from "./load";

/** A failure in words, announced to screen readers, with a way to try again when there is one. */
export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  const requestId = (error as { requestId?: string } | null)?.requestId;
  return (
    <div class="note note-error" role="alert">
      <p>{describeError(error)}</p>
      {requestId && <p class="muted small">Request id {requestId}</p>}
      {retry && (
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Said on every page that sends email while the server has no SMTP server to send it through. */
export function NoSmtpNote({ what }: { what: string }) {
  return (
    <div class="note note-warning" role="note" data-testid="no-smtp">
      <p>
        <strong>No SMTP server is set:</strong> {what} are queued but not sent.
      </p>
      <p>
        Set <code>FORMSVC_SMTP_URL</code> (e.g. <code>smtp://user:pass@host:587</code>) and, if need be,{" "}
        <code>FORMSVC_MAIL_FROM</code> in the server's environment, then restart it: the queued emails go out then.
      </p>
    </div>
  );
}

/** A loading line for screen readers and eyes; shown only after a moment, so fast answers do not flicker. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setShown(true), 150);
    return () => clearTimeout(t);
  }, []);
  return (
    <p class="loading" role="status" aria-live="polite">
      {shown && (
        <>
          <span class="spinner" aria-hidden="true" />
          {label}
        </>
      )}
    </p>
  );
}

/** Renders `children(data)` once loaded; loading and errors (with a retry) otherwise. */
export function Show<T>({
  value,
  retry,
  label,
  children,
}: {
  value: Loaded<T>;
  retry?: () => void;
  label?: string;
  children: (data: T) => ComponentChildren;
}) {
  if (value.state === "loading") return <Loading label={label} />;
  if (value.state === "failed") return <ErrorNote error={value.error} retry={retry} />;
  return <>{children(value.data)}</>;
}

/** The last short message for the polite live region ("Saved", "Moved to spam"), read out by screen readers and shown as a toast. */
export const announcement = signal<{ text: string; at: number } | null>(null);
export const announce = (text: string) => (announcement.value = { text, at: Date.now() });

/**
 * An event handler that starts `work` and returns, as the DOM expects. `work` shows its own
 * failures; one that still escapes (a bug) is logged and announced rather than left unhandled.
 */
export function act<E>(work: (event: E) => Promise<unknown>): (event: E) => void {
  return (event) =>
    void work(event).catch((e: unknown) => {
      console.error(e);
      announce(`Something went wrong: ${describeError(e)}`);
    });
}

export function Announcer() {
  const a = announcement.value;
  useEffect(() => {
    if (!a) return;
    const t = setTimeout(() => announcement.value === a && (announcement.value = null), 4000);
    return () => clearTimeout(t);
  }, [a]);
  return (
    <div class="toast-region" role="status" aria-live="polite">
      {a && <p class="toast">{a.text}</p>}
    </div>
  );
}

/**
 * A modal dialog (the native <dialog>: focus stays inside, Escape closes, focus returns to what opened it).
 * Open while mounted; `onClose` when the user closes it.
 */
export function Dialog({
  title,
  onClose,
  children,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => e.target === ref.current && onClose()}
    >
      <div class="dialog-body">
        <header class="dialog-header">
          <h2 id="dialog-title">{title}</h2>
          <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}

/** A button that copies `text`, and says so. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState<"copied" | "failed" | null>(null);
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(null), 2500);
    return () => clearTimeout(t);
  }, [done]);
  return (
    <button
      type="button"
      class="button"
      onClick={act(async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone("copied");
          announce("Copied to the clipboard");
        } catch {
          setDone("failed");
        }
      })}
    >
      {done === "copied" ? "Copied" : done === "failed" ? "Select and copy by hand" : label}
    </button>
  );
}

/** A confirmation step for what cannot be undone. */
export function Confirm({
  title,
  children,
  action,
  busyLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ComponentChildren;
  action: string;
  busyLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      {error !== null && <ErrorNote error={error} />}
      <div class="actions">
        <button type="button" class="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          class="button button-danger"
          disabled={busy}
          onClick={act(async () => {
            setBusy(true);
            setError(null);
            try {
              await onConfirm();
            } catch (e) {
              setError(e);
              setBusy(false);
            }
          })}
        >
          {busy ? busyLabel : action}
        </button>
      </div>
    </Dialog>
  );
}
