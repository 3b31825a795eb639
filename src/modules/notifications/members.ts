import type { Principal } from "../../lib/principal";
import type { Form } from "../forms/model";
import { notifiedByDefault, type MemberNotificationsRepo } from "./member-repo";

/** A member's choice of a form's owner notification, as the API shows it to them. */
export interface MemberNotification {
  /** Whether the owner notification (and the daily digest) comes to them. */
  notify: boolean;
  /** What their role gives them until they choose: owners and admins yes, editors and viewers no. */
  default: boolean;
}

/**
 * Each member's choice, per form, of whether its owner notification comes to them. A session's own
 * (an API key is no person); any member who may read the form chooses for themselves, a viewer too.
 */
export function createMemberNotifications(deps: {
  repo: MemberNotificationsRepo;
  formFor: (actor: Principal, formId: string) => Promise<Form>;
}) {
  /** The form as the caller reaches it, and their role in its team: 404 or 403 as Get Form. */
  const reach = async (caller: Principal, formId: string) => {
    const form = await deps.formFor({ ...caller, right: "forms.read" }, formId);
    return { form, byDefault: notifiedByDefault(caller.teams.get(form.teamId)!) };
  };
  return {
    /** The caller's choice for the form, else their role's default. */
    async choiceOf(caller: Principal, formId: string): Promise<MemberNotification> {
      const { form, byDefault } = await reach(caller, formId);
      return { notify: (await deps.repo.choiceOf(form.id, caller.ownerId)) ?? byDefault, default: byDefault };
    },

    /** Keeps the caller's choice for the form; from the next submission on, it decides. */
    async choose(caller: Principal, formId: string, notify: boolean): Promise<MemberNotification> {
      const { form, byDefault } = await reach(caller, formId);
      await deps.repo.choose(form.id, caller.ownerId, notify);
      return { notify, default: byDefault };
    },
  };
}

export type MemberNotifications = ReturnType<typeof createMemberNotifications>;
