import { Elysia, t } from "elysia";
import type { BodyPace } from "../../http/body-pace";
import { PUBLIC_ROUTE, requestContext } from "../../http/context";
import { corsHeaders } from "../../http/cors";
import { toErrorResponse } from "../../http/errors";
import type { ErrorCode, FieldError } from "../../lib/errors";
import { locationUrl } from "../../lib/location-url";
import type { Logger } from "../../lib/log";
import { addressBucket } from "../../lib/address-bucket";
import { httpOrigin, postOrigin } from "../../lib/origin";
import type { Principal } from "../../lib/principal";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { SubmissionsService } from "../submissions/service";
import { hostedFormPage, languageHeaders, PERSON_PAGE_HEADERS } from "./form-page";
import { publicForm } from "./public-form";
import { wantsJson } from "./negotiate";
import { CATALOGUES, textsFor, type TextKey, type Texts } from "./locale";
import { editLinkOfferPage, errorPage, thanksPage } from "./pages";
import { senderEmail } from "../../lib/email";
import { dropInFieldName, dropInPost, PARTIAL_FIELD, readDropInFields, type DropInFields } from "./read-post";
import type { PartialsService } from "./partials";
import type { Upload } from "../files/model";
import type { FilesService } from "../files/service";
import type { Signer } from "../../lib/signing";
import { isMultipart } from "../submissions/read-body";
import { submitRequest } from "../submissions/request";
import { pathOf } from "../submissions/edit-link";
import type { Edits } from "../submissions/edits";

export interface DropInDeps {
  forms: FormsService;
  submissions: SubmissionsService;
  files: FilesService;
  /** A finished post removes the saved answer it continued. */
  partials: Pick<PartialsService, "finish">;
  /** Signs a thank-you page's back link, so only a post's own answer can name one. */
  links: Signer;
  /** The edit link a thank-you page offers (editableDays). */
  edits: Pick<Edits, "linkOfNew" | "offer">;
  maxBodyBytes: number;
  log: Logger;
}

/** What a visitor reads when a post is refused: one sentence per kind of refusal (locales/*.json, `refused.CODE`). */
/**
 * A drop-in post's body, its form known: multipart read as it streams (the form's files setting
 * enforced as the files come, the client's uploads at once counted), else its fields.
 */
export async function readDropInBody(
  request: Request,
  form: Form,
  deps: { files: FilesService; maxBodyBytes: number; bodyPace: BodyPace; ip: string },
): Promise<{ sent: DropInFields; uploads: Upload[] }> {
  const { files, maxBodyBytes, bodyPace } = deps;
  if (!isMultipart(request)) return { sent: await readDropInFields(request, maxBodyBytes, bodyPace), uploads: [] };
  const received = await bodyPace.uploading(addressBucket(deps.ip), () =>
    files.receive(request, {
      body: bodyPace.chunks(request),
      teamId: form.teamId,
      maxTextBytes: maxBodyBytes,
      policy: () => form.files,
      name: dropInFieldName,
    }),
  );
  return { sent: { fields: received.fields, isJson: false }, uploads: received.uploads };
}

/** A refusal told to a person in one sentence, in their language (`refused.CODE` of the catalogues). */
export const sentenceFor = (code: ErrorCode, { t }: Texts) =>
  t(`refused.${code}` in CATALOGUES.en ? (`refused.${code}` as TextKey) : "refused.other");

/** The form owner's submission, as a publishable key bound to this one form would send it: every check of a public submit applies. */
export const visitorOf = (form: Form): Principal => ({
  keyId: `f/${form.id}`,
  ownerId: form.ownerId,
  kind: "publishable",
  forms: [form.id],
  teams: new Map([[form.teamId, "viewer"]]),
  team: form.teamId,
});

/**
 * The page a post came from, when the form trusts it: its `Referer` when the browser sent one on the
 * post's own origin, else that origin; only when the origin is one of the form's allowed origins, or
 * (none set) any. The post's origin is read as the allowed-origin check reads it: `Origin`, else the
 * `Referer`'s (`Origin: null` is none).
 */
function backTarget(form: Form, referer: string | null, origin: string | null): string | null {
  const own = postOrigin(origin, referer);
  if (own === null || (form.allowedOrigins.length > 0 && !form.allowedOrigins.includes(own))) return null;
  return (referer !== null && httpOrigin(referer) === own ? locationUrl(referer) : null) ?? locationUrl(`${own}/`);
}

// What a thank-you page's back link is signed with besides its form and target: no file link signs this.
const BACK_LINK = "thanks-back";

interface Answering {
  request: Request;
  set: { status?: number | string; headers: Record<string, unknown> };
  requestId: string;
}

/**
 * The drop-in endpoint (POST /f/{formId}) and its thank-you page, outside /api/v1 like /docs: a
 * website moves to formsvc by changing the host in its form's `action`. Answers are JSON or a page
 * for a person by Formspree's rule (negotiate.ts). `failure` answers a refused post, also the ones
 * the front refuses before routing (429).
 */
export function createDropIn({ forms, submissions, files, partials, links, edits, maxBodyBytes, log }: DropInDeps) {
  const html = (set: Answering["set"], status: number, page: string, texts: Texts, form: Form | null | undefined) => {
    set.status = status;
    Object.assign(set.headers, PERSON_PAGE_HEADERS);
    languageHeaders(set.headers, texts, form?.locale);
    return page;
  };

  /** A refused post: JSON with `errors[]`, a 303 to the form's errorUrl, the hosted form again with its values, or an error page. */
  async function failure(
    { request, set, requestId }: Answering,
    error: unknown,
    known?: { form?: Form; values?: Record<string, unknown>; partial?: string },
  ): Promise<unknown> {
    const res = toErrorResponse(error, "UNKNOWN", log, requestId || undefined);
    if (res.headers) Object.assign(set.headers, res.headers);
    if (res.body.code !== "ORIGIN_NOT_ALLOWED") Object.assign(set.headers, corsHeaders(request));
    // One response per email, with edits: the answer offers to email the address its edit link instead.
    const offer = res.body.code === "ALREADY_SUBMITTED" && known?.form?.editableDays != null ? known.form : null;
    if (wantsJson(request.headers)) {
      // A refusal of no field is told to the visitor as the page would tell it, in their language.
      const errors: FieldError[] = res.body.errors ?? [
        { code: res.body.code, message: sentenceFor(res.body.code, textsFor(known?.form, request)) },
      ];
      set.status = res.status;
      return {
        ...res.body,
        errors,
        ...(offer ? { editLinkRequest: `/f/${encodeURIComponent(offer.id)}/edit-link` } : {}),
      };
    }
    if (offer && !offer.errorUrl) {
      const texts = textsFor(offer, request);
      return html(
        set,
        res.status,
        editLinkOfferPage(offer, sentenceFor("ALREADY_SUBMITTED", texts), senderEmail(known?.values ?? {}), texts),
        texts,
        offer,
      );
    }
    const id = /\/f\/([^/?#]+)/.exec(request.url)?.[1];
    const form =
      known?.form ?? (id && res.body.code !== "FORM_NOT_FOUND" ? await publicForm(forms, id).catch(() => null) : null);
    if (form?.errorUrl) {
      const target = new URL(form.errorUrl);
      target.searchParams.set("error", res.body.code);
      set.status = 303;
      set.headers.location = locationUrl(target.href) ?? form.errorUrl;
      return "";
    }
    const texts = textsFor(form, request);
    const sentence = sentenceFor(res.body.code, texts);
    if (form?.fields && known?.values)
      return html(
        set,
        res.status,
        hostedFormPage(
          form,
          {
            values: known.values,
            problems: res.body.errors,
            notice: sentence,
            ...(known.partial ? { partial: known.partial } : {}),
          },
          texts,
        ),
        texts,
        form,
      );
    // Each problem's message names its field by its label already (the field rules write them so).
    const problems = (res.body.errors ?? []).map((e) => e.message);
    const { headers } = request;
    const back = form ? backTarget(form, headers.get("referer"), headers.get("origin")) : null;
    return html(set, res.status, errorPage(form, sentence, problems, back, texts), texts, form);
  }

  const routes = new Elysia({ name: "dropin-routes" })
    .use(requestContext)
    .post(
      "/f/:formId",
      async ({ request, params: { formId }, client, set, ownOrigin, requestId, bodyPace }) => {
        let form: Form | undefined;
        let values: Record<string, unknown> | undefined;
        let partial: string | undefined;
        let uploads: Upload[] = [];
        try {
          // The form first: a post to no form costs no body read (and its 404 comes before a 413).
          form = await publicForm(forms, formId);
          let sent: DropInFields;
          ({ sent, uploads } = await readDropInBody(request, form, { files, maxBodyBytes, bodyPace, ip: client().ip }));
          const { headers } = request;
          const referer = headers.get("referer");
          const post = dropInPost(form, sent, referer);
          values = post.values;
          const carried = sent.fields.get(PARTIAL_FIELD);
          partial = form.partialSubmissions && typeof carried === "string" && carried !== "" ? carried : undefined;
          const result = await submissions.submit(
            submitRequest({
              actor: visitorOf(form),
              body: post.body,
              headers,
              client: client(),
              formPost: post.formPost,
              // A drop-in page's `_replyto` is its sender (Formspree's rule); on the API it is a field like any other.
              senderFirst: true,
              subject: post.subject,
              uploads,
            }),
          );
          // Stored: the saved answer it finished goes (a failure here leaves it to the 30-day sweep).
          if (partial)
            await partials
              .finish(form.id, partial)
              .catch((e: unknown) => log.warn("a finished partial was not removed", { formId, error: String(e) }));
          Object.assign(set.headers, corsHeaders(request));
          // Our own thank-you page, its back link and edit link signed: made only when the visitor goes there.
          const posted = form;
          const edit = await edits.linkOfNew(form, result.submissionId);
          const thanks = () => {
            const back = backTarget(posted, referer, headers.get("origin"));
            const query = new URLSearchParams();
            if (back) (query.set("back", back), query.set("sig", links.sign(BACK_LINK, posted.id, back)));
            if (edit)
              (query.set("submission", edit.submissionId), query.set("until", edit.until), query.set("esig", edit.sig));
            const signed = query.size ? `?${query}` : "";
            return `${ownOrigin() ?? ""}/f/${encodeURIComponent(posted.id)}/thanks${signed}`;
          };
          // A target the pipeline dropped sends the visitor to our own page: their message was taken.
          const dropped = post.body.redirectUrl !== undefined && result.redirect === undefined;
          const next = dropped ? thanks() : (result.redirect ?? form.successUrl ?? thanks());
          if (wantsJson(headers))
            return {
              ok: true,
              success: true,
              submissionId: result.submissionId,
              next,
              ...(edit ? { editUrl: `${ownOrigin() ?? ""}${pathOf(form.id, edit)}`, editableUntil: edit.until } : {}),
            };
          set.status = 303;
          set.headers.location = locationUrl(next) ?? next;
          return "";
        } catch (error) {
          const answer = await failure({ request, set, requestId }, error, { form, values, partial });
          return bodyPace.answer(request, set, answer) ?? answer;
        } finally {
          // Not stored (refused, or answered from an earlier idempotent post): nothing stays behind.
          await files.release(uploads);
        }
      },
      {
        // The body is read here: the size cap, the types and the flat JSON object are ours.
        parse: "none",
        // Public for the front: a preflight from another origin is answered (with Formspree's headers).
        detail: { hide: true, [PUBLIC_ROUTE]: true } as Record<string, unknown>,
      },
    )
    .get(
      "/f/:formId/thanks",
      async ({ params: { formId }, query: { back, sig, submission, until, esig }, set, requestId, request }) => {
        try {
          const form = await publicForm(forms, formId);
          // A link on our page to wherever a query (or the page request's Referer) says would be anyone's:
          // only the one the post's answer signed for this form is shown, while its origin is still allowed.
          const shown =
            back !== undefined &&
            sig !== undefined &&
            links.verifies(sig, BACK_LINK, form.id, back) &&
            (form.allowedOrigins.length === 0 || form.allowedOrigins.includes(httpOrigin(back) ?? ""));
          const texts = textsFor(form, request);
          const edit = edits.offer(form, { submissionId: submission, until, sig: esig });
          return html(set, 200, thanksPage(form, shown ? back : null, texts, edit), texts, form);
        } catch (error) {
          const res = toErrorResponse(error, "UNKNOWN", log, requestId || undefined);
          const texts = textsFor(null, request);
          return html(
            set,
            res.status,
            errorPage(null, sentenceFor(res.body.code, texts), [], null, texts),
            texts,
            null,
          );
        }
      },
      {
        query: t.Object({
          back: t.Optional(t.String()),
          sig: t.Optional(t.String()),
          // The edit link (editableDays), signed on its own.
          submission: t.Optional(t.String()),
          until: t.Optional(t.String()),
          esig: t.Optional(t.String()),
        }),
        detail: { hide: true },
      },
    );
  return { routes, failure };
}
