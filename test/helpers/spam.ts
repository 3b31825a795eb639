import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { ChallengeJson, PayloadJson } from "../../src/modules/spam/model";
import type { RunningServer } from "../../src/server";
import { ownerPrincipal } from "../../src/lib/principal";
import type { SubmitBody } from "../../src/modules/submissions/model";
import type { Candidate } from "../../src/modules/submissions/pipeline";

/** A candidate submission for a real form of the server, as the submit service hands it to the checks. */
export async function candidate(
  server: RunningServer,
  formId: string,
  opts: { altcha?: unknown; captchaToken?: unknown; data?: Record<string, unknown>; ip?: string } = {},
): Promise<Candidate> {
  const data = { ...(opts.data ?? { message: "hello" }) };
  const body = {
    formId,
    data: { ...data },
    ...(opts.altcha !== undefined ? { altcha: opts.altcha } : {}),
    ...(opts.captchaToken !== undefined ? { captchaToken: opts.captchaToken } : {}),
  };
  const form = await server.services.forms.requireForm(formId);
  return {
    form,
    caller: ownerPrincipal(form.ownerId),
    body: body as SubmitBody,
    data,
    formPost: false,
    spam: null,
    stages: {},
    submitter: {
      userAgent: null,
      acceptLanguage: null,
      referer: null,
      origin: null,
      ip: opts.ip ?? "203.0.113.7",
      proxyCountry: null,
    },
  };
}

/** Solves a challenge with altcha-lib's own solver and encodes the payload as the altcha widget does: base64 of JSON. */
export async function solvedPayload(challenge: ChallengeJson): Promise<{ payload: string; value: PayloadJson }> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("the challenge was not solved");
  // The widget (altcha 3.x) sends exactly these two parts of the challenge it fetched.
  const value: PayloadJson = {
    challenge: { parameters: challenge.parameters, signature: challenge.signature },
    solution,
  };
  return { payload: btoa(JSON.stringify(value)), value };
}

/** A payload made from a decoded one, as a tamperer would. */
export const encode = (value: unknown) => btoa(JSON.stringify(value));
