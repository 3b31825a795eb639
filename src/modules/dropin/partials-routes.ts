import { Elysia, t } from "elysia";
import { PUBLIC_ROUTE, requestContext } from "../../http/context";
import { corsHeaders } from "../../http/cors";
import { addressBucket } from "../../lib/address-bucket";
import type { Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { escapeHtml } from "../../lib/template";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import { hostedFormPage, languageHeaders, personPage, PERSON_PAGE_HEADERS } from "./form-page";
import { textsFor, type Texts } from "./locale";
import { wantsJson } from "./negotiate";
import type { PartialsService } from "./partials";
import { resumeBox } from "./partials-page";
import { PARTIAL_FIELD, readDropInFields } from "./read-post";
import { formToFill } from "./page-route";
import { publicForm } from "./public-form";
import { resumePath } from "./resume-message";
import type { createDropIn } from "./routes";

export interface PartialsRoutesDeps {
  forms: FormsService;
  partials: PartialsService;
  clock: Clock;
  maxBodyBytes: number;
  /** The drop-in endpoint's answer to a refused post (JSON, the form again with its values, or an error page). */
  failure: ReturnType<typeof createDropIn>["failure"];
}

const EMAIL_FIELD = "_email";
const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** The page that answers a save made without script: the link, and a way to have it emailed. */
function savedPage(form: Form, link: string, token: string, emailedTo: string | null, texts: Texts): string {
  const { t } = texts;
  const sent = emailedTo
    ? `<p class="notice" role="status">${escapeHtml(t("saved.emailed", { email: emailedTo }))}</p>\n`
    : "";
  return personPage(
    `${t("saved.short")} · ${form.name}`,
    `<section class="card"><p class="form-name">${escapeHtml(form.name)}</p><h1>${escapeHtml(t("saved.title"))}</h1>
${sent}${resumeBox(form.id, token, link, false, texts)}
<p><a href="${escapeHtml(link)}">${escapeHtml(t("saved.continue"))}</a></p></section>`,
    "",
    form.accentColor,
    texts.lang,
  );
}

/**
 * Save and resume on the hosted page (`partialSubmissions`): POST /f/{formId}/partial saves what is
 * typed (urlencoded or JSON, the drop-in's body limits, field count and per-visitor rate limit; a
 * `_email` also mails the resume link) and answers the link; GET /f/{formId}/resume?token= is the
 * hosted page filled in with it, whose final post (carrying `_partial`) removes it.
 */
export function partialsRoutes({ forms, partials, clock, maxBodyBytes, failure }: PartialsRoutesDeps) {
  return new Elysia({ name: "partials-routes" })
    .use(requestContext)
    .post(
      "/f/:formId/partial",
      async ({ request, params: { formId }, client, set, ownOrigin, requestId, bodyPace }) => {
        let form: Form | undefined;
        let values: Record<string, unknown> | undefined;
        let partial: string | undefined;
        try {
          form = await publicForm(forms, formId);
          const { fields } = await readDropInFields(request, maxBodyBytes, bodyPace);
          partial = text(fields.get(PARTIAL_FIELD));
          const email = text(fields.get(EMAIL_FIELD));
          // A refused save shows the form again with what was typed; a refused email of the link, its own page.
          const names = new Set((form.fields ?? []).map((r) => r.name));
          if ([...fields.keys()].some((n) => names.has(n))) values = Object.fromEntries(fields);
          const saved = await partials.save(form, {
            fields,
            ...(partial ? { token: partial } : {}),
            ...(email ? { email } : {}),
            client: addressBucket(client().ip),
          });
          const link = `${ownOrigin() ?? ""}${resumePath(form.id, saved.token)}`;
          const emailedTo = saved.emailed && email ? normalizeEmail(email) : null;
          Object.assign(set.headers, corsHeaders(request));
          if (wantsJson(request.headers))
            return { ok: true, partialId: saved.id, token: saved.token, resumeUrl: link, emailedTo };
          const texts = textsFor(form, request);
          Object.assign(set.headers, PERSON_PAGE_HEADERS);
          languageHeaders(set.headers, texts, form.locale);
          return savedPage(form, link, saved.token, emailedTo, texts);
        } catch (error) {
          const answer = await failure({ request, set, requestId }, error, {
            ...(form ? { form } : {}),
            ...(values ? { values } : {}),
            ...(partial ? { partial } : {}),
          });
          return bodyPace.answer(request, set, answer) ?? answer;
        }
      },
      { parse: "none", detail: { hide: true, [PUBLIC_ROUTE]: true } as Record<string, unknown> },
    )
    .get(
      "/f/:formId/resume",
      async ({ params, query: { token }, set, request }) => {
        const open = await formToFill(forms, clock, params.formId, request, set);
        if ("page" in open) return open.page;
        const { form, texts } = open;
        const values = await partials.resume(form.id, token);
        if (!values) {
          set.status = 404;
          return hostedFormPage(form, { notice: texts.t("resume.gone") }, texts);
        }
        return hostedFormPage(form, { values, partial: token!, notice: texts.t("resume.welcome") }, texts);
      },
      {
        params: t.Object({ formId: t.String() }),
        query: t.Object({ token: t.Optional(t.String()) }),
        detail: { hide: true },
      },
    );
}
