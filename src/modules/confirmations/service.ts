import { retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import type { FormsService } from "../forms/service";
import type { ConfirmationsRepo } from "./repo";
import { LIMIT_WINDOW_MS } from "./queue";
import { hashConfirmationToken, looksLikeToken } from "./token";

/** What opening a link came to: confirmed now, confirmed before, or no such (live) link. */
export type ConfirmResult =
  | { outcome: "confirmed" | "already"; formName: string; redirectUrl: string | null; recipient?: boolean }
  | { outcome: "unknown" };

/** What a GET or HEAD of a link came to: a confirmation, or (`pending`) the page with the button. */
export type OpenResult = ConfirmResult | { outcome: "pending"; formName: string };

export function createConfirmationsService({
  repo,
  forms,
  clock,
}: {
  repo: ConfirmationsRepo;
  forms: FormsService;
  clock: Clock;
}) {
  /** The link's form, or null when it is gone. */
  const formOf = (formId: string) => forms.requireForm(formId).catch(() => null);

  /**
   * A recipient's link: the address gets the form's notifications from now on. The link lives on
   * for its 7 days: removed and listed again, the address confirms with it again.
   */
  async function confirmRecipient(formId: string, email: string): Promise<ConfirmResult> {
    const form = await formOf(formId);
    if (!form) return { outcome: "unknown" };
    const outcome = await retryWhileBusy(() => forms.confirmRecipient(formId, email), 5000);
    // An address removed from the list since: its link no longer leads anywhere.
    if (outcome === "unlisted") return { outcome: "unknown" };
    return { outcome, formName: form.name, redirectUrl: null, recipient: true };
  }

  /** What a link is, changing nothing: a recipient's, a joiner's, or none that lives. */
  async function find(token: string) {
    if (!looksLikeToken(token)) return null;
    const hash = hashConfirmationToken(token);
    const now = isoTime(clock.now());
    const recipient = await repo.findRecipientByTokenHash(hash, now);
    if (recipient) return { kind: "recipient" as const, formId: recipient.form_id, email: recipient.email, now };
    const found = await repo.findByTokenHash(hash);
    if (!found || (found.confirmedAt === null && found.expiresAt <= now)) return null;
    return { kind: "joiner" as const, ...found, now };
  }

  /**
   * Confirms a link (the page's button, or a joiner's GET): the first time within 7 days it
   * confirms the address (and the joiner counts, on a waitlist with double opt-in); after that it
   * changes nothing. An unknown token, or one that expired unconfirmed, is `unknown`.
   */
  async function confirm(found: Awaited<ReturnType<typeof find>>): Promise<ConfirmResult> {
    if (found === null) return { outcome: "unknown" };
    if (found.kind === "recipient") return confirmRecipient(found.formId, found.email);
    const form = await formOf(found.formId);
    if (!form) return { outcome: "unknown" };
    const confirmedNow =
      found.confirmedAt === null &&
      (await retryWhileBusy(() => repo.confirm(found.formId, found.email, found.now), 5000));
    // The count changed: the cached form must not answer with the old one.
    if (confirmedNow) forms.forget([found.formId]);
    return {
      outcome: confirmedNow ? "confirmed" : "already",
      formName: form.name,
      redirectUrl: form.confirmRedirectUrl,
    };
  }

  return {
    /**
     * What opening a link with GET (or HEAD: `look`) comes to. A joiner's link (double opt-in)
     * confirms on GET, as it always has; a recipient's changes nothing (mail scanners open links):
     * `pending` asks the page for the button that POSTs `confirm`. HEAD changes nothing either way.
     */
    async open(token: string, look = false): Promise<OpenResult> {
      const link = await find(token);
      if (link === null) return { outcome: "unknown" };
      if (look || link.kind === "recipient") {
        const form = await formOf(link.formId);
        return form ? { outcome: "pending", formName: form.name } : { outcome: "unknown" };
      }
      return confirm(link);
    },

    confirm: async (token: string) => confirm(await find(token)),

    /** Forgets confirmations that expired unconfirmed, and what the recipients' daily limits no longer count. */
    deleteExpired: () => {
      const at = clock.now();
      return repo.deleteExpired(isoTime(at), isoTime(at - LIMIT_WINDOW_MS));
    },
  };
}

export type ConfirmationsService = ReturnType<typeof createConfirmationsService>;
