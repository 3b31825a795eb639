import { Elysia, t } from "elysia";
import altchaCssPath from "../../../node_modules/altcha/dist/external/altcha.css" with { type: "file" };
import { asset, CACHE_A_DAY, CACHE_FOREVER, CSS, JS } from "../../http/assets";
import type { Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { SpamService } from "../spam/service";
import { closedReason } from "../submissions/closing";
import {
  ALTCHA_CSS_PATH,
  closedFormPage,
  hostedFormPage,
  languageHeaders,
  noFormPage,
  PAGE_CSS_PATH,
  PAGE_JS_PATH,
  PERSON_PAGE_HEADERS,
} from "./form-page";
import { textsFor, type Texts } from "./locale";
import { accentCss, PAGE_CSS } from "./page-css";
import { PAGE_SCRIPT } from "./page-script";
import { publicForm, publicFormOrNone } from "./public-form";

/**
 * A person opening a page of a form to fill in (the hosted page, a resume link): the headers and
 * texts in their language, and the page that answers instead where there is no such form (404) or
 * it is closed; else the form.
 */
export async function formToFill(
  forms: FormsService,
  clock: Clock,
  formId: string,
  request: Request,
  set: { status?: number | string; headers: Record<string, unknown> },
): Promise<{ form: Form; texts: Texts } | { page: string }> {
  const form = await publicFormOrNone(forms, formId);
  const texts = textsFor(form, request);
  Object.assign(set.headers, PERSON_PAGE_HEADERS);
  languageHeaders(set.headers, texts, form?.locale);
  if (!form || form.fields === null) {
    set.status = 404;
    return { page: noFormPage(texts) };
  }
  const closed = closedReason(form, clock);
  // The time as stored, in UTC: the same in every language, and no visitor's time zone is known.
  const time = `${form.closesAt?.slice(0, 16).replace("T", " ")} UTC`;
  if (closed) return { page: closedFormPage(form, texts.t(`closed.${closed}`, { time }), texts) };
  return { form, texts };
}

export interface HostedPageDeps {
  forms: FormsService;
  spam: SpamService;
  clock: Clock;
}

const FormParams = t.Object({ formId: t.String() });
const hide = { detail: { hide: true } };

/**
 * GET /f/{formId}: the hosted page of a form with `fields` (a 404 page for any other id, a page that
 * says so for a closed form); GET /f/{formId}/challenge: its proof-of-work challenge, with no key
 * (the form id is the address, as for POST /f/), so the page's ALTCHA widget needs nothing secret;
 * and the stylesheets and script of the pages for people. Outside /api/v1, like /docs.
 */
export function hostedPageRoutes({ forms, spam, clock }: HostedPageDeps) {
  return (
    new Elysia({ name: "hosted-page-routes" })
      .get(
        PAGE_CSS_PATH,
        asset(() => PAGE_CSS, CSS, CACHE_A_DAY),
        hide,
      )
      .get(
        PAGE_JS_PATH,
        asset(() => PAGE_SCRIPT, JS, CACHE_A_DAY),
        hide,
      )
      // A form's colour: what the address says is all there is to it, so it is cached for good.
      .get(
        "/f/assets/accent/:file",
        ({ params, set }) => {
          const hex = /^([0-9a-f]{6})\.css$/.exec(params.file)?.[1];
          if (!hex) throw new AppError("NOT_FOUND", "no such stylesheet");
          set.headers["content-type"] = CSS;
          set.headers["cache-control"] = CACHE_FOREVER;
          return accentCss(`#${hex}`);
        },
        { params: t.Object({ file: t.String() }), ...hide },
      )
      .get(
        ALTCHA_CSS_PATH,
        asset(() => Bun.file(altchaCssPath), CSS, CACHE_A_DAY),
        hide,
      )
      .get(
        "/f/:formId",
        async ({ params, set, request }) => {
          const open = await formToFill(forms, clock, params.formId, request, set);
          return "page" in open ? open.page : hostedFormPage(open.form, {}, open.texts);
        },
        { params: FormParams, ...hide },
      )
      .get(
        "/f/:formId/challenge",
        async ({ params, set }) => {
          const form = await publicForm(forms, params.formId);
          // Each challenge is accepted once: a cached one would be refused as used.
          set.headers["cache-control"] = "no-store";
          return spam.pow.createChallenge(form.id);
        },
        { params: FormParams, ...hide },
      )
  );
}
