import { Elysia, t } from "elysia";
import { PUBLIC_ROUTE, requestContext } from "../../http/context";
import { toErrorResponse } from "../../http/errors";
import { AppError } from "../../lib/errors";
import { locationUrl } from "../../lib/location-url";
import type { Logger } from "../../lib/log";
import type { Upload } from "../files/model";
import { filesOf } from "../files/refs";
import type { FilesService } from "../files/service";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import { pathOf, type EditLink } from "../submissions/edit-link";
import type { Edits } from "../submissions/edits";
import { submitRequest } from "../submissions/request";
import { hostedFormPage, languageHeaders, PERSON_PAGE_HEADERS } from "./form-page";
import { textsFor, type Texts } from "./locale";
import { wantsJson } from "./negotiate";
import { editLinkSentPage, errorPage } from "./pages";
import { publicForm } from "./public-form";
import { dropInPost, readDropInFields, type DropInFields } from "./read-post";
import { readDropInBody, sentenceFor, visitorOf, type createDropIn } from "./routes";

export interface EditRoutesDeps {
  forms: FormsService;
  files: FilesService;
  edits: Edits;
  /** The drop-in's answer to a refused post (JSON, the errorUrl, or a page): an edit's refusals read the same. */
  failure: ReturnType<typeof createDropIn>["failure"];
  maxBodyBytes: number;
  log: Logger;
}

const Params = t.Object({ formId: t.String(), submissionId: t.String() });
const Link = t.Object({ until: t.Optional(t.String()), sig: t.Optional(t.String()) });

/**
 * The form as its edit page shows it: a form without `fields` (a website's own HTML posts to it)
 * has none to build a page from, so each value sent becomes a text field of its name (a file, a
 * file field).
 */
const pageOf = (form: Form, values: Record<string, unknown>): Form =>
  form.fields !== null
    ? form
    : {
        ...form,
        fields: Object.entries(values).map(([name, v]) => ({
          name,
          type: filesOf(v) ? "file" : "text",
        })),
      };

/** The page's note above the fields while an answer is being changed. */
const changing = (form: Form, until: string, { t, time }: Texts) =>
  t(form.fields?.some((f) => f.type === "file") ? "edit.changingFiles" : "edit.changing", { time: time(until) });

/**
 * A submitter's edit link (editableDays): GET /f/{formId}/edit/{submissionId}?until=…&sig=… shows
 * the hosted page with their answers, posting back to the same link; the POST is read and answered
 * as a drop-in post is (JSON or a page, the same refusals), and changes the submission. A link that
 * does not open is 403 EDIT_LINK_INVALID or 410 EDIT_LINK_EXPIRED, a page or JSON.
 */
export function editRoutes({ forms, files, edits, failure, maxBodyBytes, log }: EditRoutesDeps) {
  const linkOf = (formId: string, submissionId: string, { until, sig }: EditLink) =>
    pathOf(formId, { submissionId, until: until ?? "", sig: sig ?? "" });

  /** A link that did not open, or a form without fields to show: a page (or JSON) saying so. */
  const refused = (
    request: Request,
    set: { status?: number | string; headers: Record<string, unknown> },
    error: unknown,
    form: Form | null,
    requestId: string,
  ) => {
    const res = toErrorResponse(error, "UNKNOWN", log, requestId || undefined);
    set.status = res.status;
    const texts = textsFor(form, request);
    // As the drop-in answers a refusal of no field: told to the visitor in their language.
    if (wantsJson(request.headers))
      return { ...res.body, errors: [{ code: res.body.code, message: sentenceFor(res.body.code, texts) }] };
    Object.assign(set.headers, PERSON_PAGE_HEADERS);
    languageHeaders(set.headers, texts, form?.locale);
    return errorPage(form, sentenceFor(res.body.code, texts), [], null, texts);
  };

  return new Elysia({ name: "edit-routes" })
    .use(requestContext)
    .post(
      "/f/:formId/edit-link",
      async ({ request, params: { formId }, set, requestId, bodyPace }) => {
        let form: Form | undefined;
        try {
          form = await publicForm(forms, formId);
          const { fields } = await readDropInFields(request, maxBodyBytes, bodyPace);
          const sent = fields.get("email");
          const email = Array.isArray(sent) ? sent.at(-1) : sent;
          if (typeof email !== "string") throw new AppError("INVALID_PARAMETER", "email must be an email address");
          await edits.sendLink(form, email);
          const texts = textsFor(form, request);
          if (wantsJson(request.headers)) return { ok: true, message: texts.t("editLink.sent") };
          Object.assign(set.headers, PERSON_PAGE_HEADERS);
          languageHeaders(set.headers, texts, form.locale);
          return editLinkSentPage(form, texts);
        } catch (error) {
          const answer = await failure({ request, set, requestId }, error, { form });
          return bodyPace.answer(request, set, answer) ?? answer;
        }
      },
      {
        parse: "none",
        params: t.Object({ formId: t.String() }),
        detail: { hide: true, [PUBLIC_ROUTE]: true } as Record<string, unknown>,
      },
    )
    .get(
      "/f/:formId/edit/:submissionId",
      async ({ request, params: { formId, submissionId }, query, set, requestId }) => {
        let form: Form | null = null;
        try {
          form = await publicForm(forms, formId);
          const { values, until } = await edits.open(form, submissionId, query);
          if (wantsJson(request.headers)) return { submissionId, values, editableUntil: until };
          const texts = textsFor(form, request);
          Object.assign(set.headers, PERSON_PAGE_HEADERS);
          languageHeaders(set.headers, texts, form.locale);
          const page = pageOf(form, values);
          return hostedFormPage(
            page,
            { values, notice: changing(page, until, texts), action: linkOf(form.id, submissionId, query) },
            texts,
          );
        } catch (error) {
          return refused(request, set, error, form, requestId);
        }
      },
      { params: Params, query: Link, detail: { hide: true } },
    )
    .post(
      "/f/:formId/edit/:submissionId",
      async ({ request, params: { formId, submissionId }, query, client, set, requestId, bodyPace, ownOrigin }) => {
        let form: Form | undefined;
        let values: Record<string, unknown> | undefined;
        let uploads: Upload[] = [];
        try {
          form = await publicForm(forms, formId);
          // The link first: a post through a link that does not open costs no body read.
          await edits.open(form, submissionId, query);
          let sent: DropInFields;
          ({ sent, uploads } = await readDropInBody(request, form, { files, maxBodyBytes, bodyPace, ip: client().ip }));
          const { headers } = request;
          const post = dropInPost(form, sent, headers.get("referer"));
          values = post.values;
          const changed = await edits.edit(
            form,
            visitorOf(form),
            submissionId,
            query,
            submitRequest({
              actor: visitorOf(form),
              body: post.body,
              headers,
              client: client(),
              formPost: post.formPost,
              senderFirst: true,
              subject: post.subject,
              uploads,
            }),
          );
          const thanks = `${ownOrigin() ?? ""}/f/${encodeURIComponent(form.id)}/thanks?${new URLSearchParams({
            submission: submissionId,
            until: query.until!,
            esig: query.sig!,
          })}`;
          if (wantsJson(headers))
            return { ok: true, success: true, submissionId, revision: changed.revision, next: thanks };
          set.status = 303;
          set.headers.location = locationUrl(thanks) ?? thanks;
          return "";
        } catch (error) {
          const code = error instanceof AppError ? error.code : null;
          let answer: unknown;
          if (code === "EDIT_LINK_INVALID" || code === "EDIT_LINK_EXPIRED")
            answer = refused(request, set, error, form ?? null, requestId);
          else if (form && values && !wantsJson(request.headers) && !form.errorUrl && error instanceof AppError) {
            // The page again, posting back to the link, with what was typed and each problem.
            const res = toErrorResponse(error, "UNKNOWN", log, requestId || undefined);
            const texts = textsFor(form, request);
            set.status = res.status;
            Object.assign(set.headers, PERSON_PAGE_HEADERS);
            languageHeaders(set.headers, texts, form.locale);
            answer = hostedFormPage(
              pageOf(form, values),
              {
                values,
                problems: res.body.errors,
                notice: sentenceFor(res.body.code, texts),
                action: linkOf(form.id, submissionId, query),
              },
              texts,
            );
          } else answer = await failure({ request, set, requestId }, error, { form });
          return bodyPace.answer(request, set, answer) ?? answer;
        } finally {
          await files.release(uploads);
        }
      },
      {
        parse: "none",
        params: Params,
        query: Link,
        detail: { hide: true, [PUBLIC_ROUTE]: true } as Record<string, unknown>,
      },
    );
}
