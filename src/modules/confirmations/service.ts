import { retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import type { FormsService } from "../forms/service";
import type { ConfirmationsRepo } from "./repo";
import { hashConfirmationToken, looksLikeToken } from "./token";

/** What opening a link came to: confirmed now, confirmed before, or no such (live) link. */
export type ConfirmResult =
  | { outcome: "confirmed" | "already"; formName: string; redirectUrl: string | null; recipient?: boolean }
  | { outcome: "unknown" };

export function createConfirmationsService({
  repo,
  forms,
  clock,
}: {
  repo: ConfirmationsRepo;
  forms: FormsService;
  clock: Clock;
}) {
  /** A recipient's link: the address gets the form's notifications from now on; the link is used up. */
  async function confirmRecipient(formId: string, email: string): Promise<ConfirmResult> {
    let form;
    try {
      form = await forms.requireForm(formId);
    } catch {
      return { outcome: "unknown" };
    }
    const outcome = await retryWhileBusy(() => forms.confirmRecipient(formId, email), 5000);
    // An address removed from the list since: its link no longer leads anywhere.
    if (outcome === "unlisted") return { outcome: "unknown" };
    return { outcome, formName: form.name, redirectUrl: null, recipient: true };
  }

  return {
    /**
     * Opens a confirmation link: the first time within 7 days it confirms the address (and the
     * joiner counts, on a waitlist with double opt-in); after that it changes nothing. An unknown
     * token, or one that expired unconfirmed, is `unknown`.
     */
    async confirm(token: string): Promise<ConfirmResult> {
      if (!looksLikeToken(token)) return { outcome: "unknown" };
      const hash = hashConfirmationToken(token);
      const now = isoTime(clock.now());
      const recipient = await repo.findRecipientByTokenHash(hash, now);
      if (recipient) return confirmRecipient(recipient.form_id, recipient.email);
      const found = await repo.findByTokenHash(hash);
      if (!found || (found.confirmedAt === null && found.expiresAt <= now)) return { outcome: "unknown" };
      let form;
      try {
        form = await forms.requireForm(found.formId);
      } catch {
        return { outcome: "unknown" };
      }
      const confirmedNow =
        found.confirmedAt === null && (await retryWhileBusy(() => repo.confirm(found.formId, found.email, now), 5000));
      // The count changed: the cached form must not answer with the old one.
      if (confirmedNow) forms.forget([found.formId]);
      return {
        outcome: confirmedNow ? "confirmed" : "already",
        formName: form.name,
        redirectUrl: form.confirmRedirectUrl,
      };
    },

    /** Forgets confirmations that expired unconfirmed. */
    deleteExpired: () => repo.deleteExpired(isoTime(clock.now())),
  };
}

export type ConfirmationsService = ReturnType<typeof createConfirmationsService>;
