import { randomBytes } from "node:crypto";
import type { Atomically } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import type { Actor } from "../../lib/principal";
import { TokenBuckets } from "../../lib/token-bucket";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { OutboxRepo } from "../outbox/repo";
import { whyClosed } from "../submissions/closing";
import { PARTIAL_DAYS, type PartialJson, type PartialListJson, type PartialRow } from "./partials-model";
import type { PartialsRepo } from "./partials-repo";

const DAY_MS = 86_400_000;
const HOUR_S = 3600;
/** Resume links emailed: an address gets at most this many an hour, a client address may ask this many. */
const MAILS_PER_ADDRESS = 3;
const MAILS_PER_CLIENT = 10;

// A resume token: the partial's id, a dot, 32 random bytes. Only the secret's hash is stored.
const TOKEN = /^(prt_[0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;
const hash = (secret: string) => Bun.SHA256.hash(secret, "hex");
const PAGE_CURSOR = /^prt_[0-9a-f]{32}$/;

/** What a visitor sends to save: the post's fields, its resume token, and an address to mail the link to. */
export interface SaveRequest {
  fields: Map<string, unknown>;
  token?: string;
  email?: string;
  /** The client's rate-limit address, for the emails' throttle. */
  client: string;
}

export interface PartialsDeps {
  repo: PartialsRepo;
  forms: Pick<FormsService, "formFor">;
  outbox: Pick<OutboxRepo, "insert">;
  sendSoon: () => void;
  atomically: Atomically;
  clock: Clock;
}

/** A field's value as a partial keeps it: text, or a list of texts; nothing else (files are not saved). */
function kept(value: unknown): string | string[] | undefined {
  const text = (v: unknown) => (["string", "number", "boolean"].includes(typeof v) ? String(v) : undefined);
  if (Array.isArray(value)) return value.map(text).filter((v): v is string => v !== undefined);
  return text(value);
}

const toJson = (p: PartialRow): PartialJson => ({
  id: p.id,
  formId: p.formId,
  status: "partial",
  data: JSON.parse(p.data) as Record<string, unknown>,
  email: p.email,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/**
 * Save and resume (`partialSubmissions`): what a visitor has typed on the hosted page, kept under a
 * resume token apart from submissions, so it is counted, notified, indexed and sent to webhooks by
 * nothing; the final post goes through the submit pipeline like any other and then removes it.
 */
export function createPartialsService({ repo, forms, outbox, sendSoon, atomically, clock }: PartialsDeps) {
  const now = () => clock.now();
  const byAddress = new TokenBuckets(MAILS_PER_ADDRESS, HOUR_S, now);
  const byClient = new TokenBuckets(MAILS_PER_CLIENT, HOUR_S, now);

  /** The partial a token proves, of this form; null when it is wrong or gone. */
  const proved = async (formId: string, token: string | undefined): Promise<PartialRow | null> => {
    const [, id, secret] = TOKEN.exec(token ?? "") ?? [];
    if (!id || !secret) return null;
    const found = await repo.find(id);
    return found && found.formId === formId && found.tokenHash === hash(secret) ? found : null;
  };

  const throttled = (bucket: TokenBuckets, name: string, what: string) => {
    const taken = bucket.take(name);
    if (!taken.allowed)
      throw new AppError(
        "RATE_LIMITED",
        `too many resume links were emailed ${what}; try again in ${taken.retryAfter} s (Retry-After)`,
        { "retry-after": String(taken.retryAfter) },
      );
  };

  return {
    /**
     * Saves what a visitor typed (the form's own fields, files left out) as a new partial, or as the
     * partial its token proves; a post with none of the form's fields only mails the link of the one it
     * names. With `email`, the resume link is queued to that address (throttled per address and per
     * client). 404 when the form does not save halfway, the form's refusal when it is closed, 400 EMPTY
     * for nothing to save.
     */
    async save(form: Form, request: SaveRequest): Promise<{ id: string; token: string; emailed: boolean }> {
      if (!form.partialSubmissions || form.fields === null)
        throw new AppError("NOT_FOUND", `form ${form.id} does not save answers halfway`);
      const closed = whyClosed(form, clock);
      if (closed) throw closed;
      const values: Record<string, string | string[]> = {};
      for (const rule of form.fields) {
        if (rule.type === "page" || rule.type === "file") continue;
        const value = kept(request.fields.get(rule.name));
        if (value !== undefined) values[rule.name] = value;
      }
      const typing = Object.keys(values).length > 0;
      // A new partial needs something typed: a page's blank fields alone are nothing to come back to.
      const anything = Object.values(values).some((v) => [v].flat().some((x) => x.trim() !== ""));
      let mailTo: string | null = null;
      if (request.email !== undefined && request.email.trim() !== "") {
        mailTo = normalizeEmail(request.email);
        if (!mailTo)
          throw new AppError(
            "VALIDATION_FAILED",
            "the address to email the link to is not a valid email address",
            undefined,
            [{ field: "_email", code: "TYPE_EMAIL", message: "Please enter a valid email address." }],
          );
      }
      const existing = await proved(form.id, request.token);
      if (!existing && !anything)
        throw request.token
          ? new AppError("NOT_FOUND", "this saved answer is gone: it was sent, or it was last saved 30 days ago")
          : new AppError("EMPTY", "there is nothing to save: no field of the form was filled in");
      if (mailTo) {
        throttled(byClient, request.client, "from your address");
        throttled(byAddress, mailTo, "to that address");
      }
      // The address it is mailed to, else one typed into an email field: what an erasure of that address finds.
      const typed = form.fields
        .filter((r) => r.type === "email")
        .map((r) => normalizeEmail(String([values[r.name]].flat()[0] ?? "")))
        .find((e) => e !== null);
      const email = mailTo ?? typed ?? null;
      const at = isoTime(now());
      const data = typing ? JSON.stringify(values) : null;
      let id = existing?.id;
      let token = request.token!;
      await atomically(async () => {
        if (!id || (await repo.update(id, data, email, at)) === 0) {
          const secret = randomBytes(32).toString("base64url");
          id = `prt_${Bun.randomUUIDv7().replaceAll("-", "")}`;
          token = `${id}.${secret}`;
          await repo.insert({
            id,
            formId: form.id,
            tokenHash: hash(secret),
            data: data ?? "{}",
            email,
            createdAt: at,
            updatedAt: at,
          });
        }
        // The token rides in the outbox row until its email is out (kinds.ts: secretPayload).
        if (mailTo)
          await outbox.insert({
            kind: "resume_link",
            formId: form.id,
            submissionId: null,
            recipient: mailTo,
            formName: form.name,
            data: "{}",
            payload: JSON.stringify({ token }),
            submittedAt: at,
            createdAt: at,
          });
      });
      if (mailTo) sendSoon();
      return { id: id!, token, emailed: mailTo !== null };
    },

    /** The values a resume token saved for this form, or null when it is wrong or gone. */
    async resume(formId: string, token: string | undefined): Promise<Record<string, unknown> | null> {
      const found = await proved(formId, token);
      return found && (JSON.parse(found.data) as Record<string, unknown>);
    },

    /** The partial a finished post carried goes: the submission now holds what it saved. */
    async finish(formId: string, token: string | undefined): Promise<void> {
      const found = await proved(formId, token);
      if (found) await repo.remove(found.id);
    },

    /** A page of a form's partials, newest first, for a caller who may read its submissions. */
    async list(actor: Actor, formId: string, query: { limit: number; cursor?: string }): Promise<PartialListJson> {
      if (query.cursor !== undefined && !PAGE_CURSOR.test(query.cursor))
        throw new AppError("INVALID_CURSOR", "cursor must be the nextCursor of a previous response");
      const form = await forms.formFor(actor, formId);
      const rows = await repo.listPage(form.id, query.cursor ?? null, query.limit + 1);
      const page = rows.slice(0, query.limit);
      return { submissions: page.map(toJson), nextCursor: rows.length > query.limit ? page.at(-1)!.id : null };
    },

    /** Deletes the partials last saved more than 30 days ago; returns how many. */
    expire: (): Promise<number> => repo.deleteSavedBefore(isoTime(now() - PARTIAL_DAYS * DAY_MS)),
  };
}

export type PartialsService = ReturnType<typeof createPartialsService>;
