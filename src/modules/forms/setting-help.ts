/**
 * Each form setting's help, written once: Get Form's and the request bodies' descriptions in the
 * OpenAPI document, `forms create|update --help`, and the dashboard's help line all read it, keyed as
 * Get Form names the setting (settings.ts checks that every writable setting has one). Plain data
 * without imports, so the dashboard's bundle takes it as it is. Say what the setting does, for a
 * person: no API field or CLI flag names, which each caller adds in its own words.
 */
export const SETTING_HELP = {
  name: "The form's name, as lists and emails show it.",
  description: "A note on the form, shown to no one but you.",
  formType: "What the form is for; a waitlist counts its distinct joiners.",
  "emailSettings.enabled": "The master switch for every email this form sends.",
  "emailSettings.developerNotificationsEnabled":
    "An email to you for each submission, with Reply-To set to the sender.",
  "emailSettings.attachPdf": "Attach the submission as a PDF to the email about it.",
  "emailSettings.attachFilesUpTo":
    "Attach the submission's uploaded files to the email about it, whole, in the form's order, as long as they fit in this many bytes together (at most 25 MiB); the others are linked. 0 attaches none.",
  "usersJoinedSettings.enabled": "Waitlists: count distinct joiners, for the public counter of who joined.",
  allowedOrigins:
    "The sites (https://www.example.com: scheme, host and port) whose pages may post with a publishable key, and that posts may be redirected to; with none, any site.",
  "spamSettings.honeypotField":
    "A field people never see and leave empty: a submission that fills it is stored as spam. Without one, no honeypot.",
  "spamSettings.challenge":
    "What each submission must carry: nothing, a proof of work, or a Turnstile, hCaptcha or reCAPTCHA token. A form without JavaScript cannot answer a challenge.",
  "spamSettings.blockedWords":
    "Words or phrases, matched as whole words in any case: a submission holding one is filed as spam.",
  "spamSettings.blockedEmailDomains":
    "Email domains: a submission carrying an address at one of them (or a subdomain) is filed as spam.",
  "spamSettings.blockDisposableEmail": "File as spam a submission carrying an address at a throwaway-mail domain.",
  "spamSettings.maxLinks":
    "A submission with more links than this across its fields is filed as spam; without it, no cap.",
  "spamSettings.duplicateWindowSeconds":
    "The same fields from the same visitor within this many seconds are filed as spam; without it, repeats are taken.",
  "spamSettings.threshold":
    "Once the learning filter has learned from 20 spam and 20 not-spam submissions, a score at or above this (0.5 to 1) files a submission as spam. Higher files less.",
  "spamSettings.recaptchaMinScore":
    "With the reCAPTCHA challenge: a v3 answer scoring below this (0 to 1) is refused. v2 answers carry no score.",
  "autoresponse.enabled":
    "An automatic reply to the address in each submission, at most once an hour per address and form; it needs email on, a subject and a text.",
  "autoresponse.subject":
    "The automatic reply's subject, a Mustache template: {{name}} and the like are the submission's fields.",
  "autoresponse.text":
    "The automatic reply's text, a Mustache template: {{name}} and the like are the submission's fields (escaped in its HTML part).",
  doubleOptIn:
    "Waitlists: each new joiner is emailed a confirmation link and counts only once they opened it (the server needs FORMSVC_PUBLIC_URL).",
  confirmRedirectUrl: "Where an opened confirmation link sends the joiner; without it, formsvc's own page.",
  retentionDays: "Submissions older than this many days are deleted (checked every hour); without it, kept forever.",
  publicEndpoint:
    "A plain HTML form may post to /f/ and this form's id without a key: the form id is the address. New forms take it; forms made before it existed do not.",
  fields:
    "The fields a submission may carry, each checked on every submit path; the hosted page at /f/ is built from them. Without a list, any fields, unchecked.",
  allowExtraFields: "With a fields list: store fields it does not name too; else a submission with one is refused.",
  files:
    "File uploads in multipart/form-data posts: how many, how large, and which types, each judged by its bytes, never its name. Without it, a file in a post is refused.",
  paused: "A paused form refuses every submission.",
  closesAt: "From this time on the form refuses every submission; without it, never.",
  maxSubmissions: "Once the inbox holds this many submissions the form refuses more; without it, no limit.",
  oneResponsePerEmail:
    "Take one submission per email address: another from an address that has answered is refused, which tells whoever tries whether that address has answered. Spam-filed answers do not count, and deleting one frees its address.",
  partialSubmissions:
    "The hosted page saves what the visitor has typed at each step (files excepted) under a resume link they can have emailed; a saved answer is listed apart (?status=partial), counted, notified and sent to webhooks only once sent, and deleted after 30 days.",
  editableDays:
    "For this many days after sending, the thank-you page and the autoresponse carry a link with which the submitter may change their answers (each change kept as a revision, notified and sent to webhooks as submission.updated); without it, no edits.",
  successUrl:
    "Where a browser goes after a drop-in submit when the page names no _next; without it, formsvc's thank-you page.",
  errorUrl:
    "Where a browser goes (with ?error=CODE) when a drop-in submit is refused; without it, formsvc's error page.",
  accentColor:
    "The colour of the form's hosted page, thank-you page and error page (links, buttons, focus rings), as #rrggbb; null is formsvc's blue.",
  locale:
    "The language of the form's hosted page, thank-you and error pages, and of the field errors its visitors get (errors[].message; codes stay as they are): auto (the visitor's Accept-Language, else English) or one of en, de, fr, es, pt, it, nl, pl, ja. The owner's labels show as written.",
  recipients:
    "Who gets the owner notification besides the team's members who want it (each chooses; until then owners and admins do), up to 10 addresses; each but yours gets a confirmation link first and nothing until it is opened.",
  notificationTemplate:
    "The owner notification's subject and text in Mustache: {{form.name}}, {{submission.id}}, {{field}}, {{#fields}}{{name}}: {{value}}{{/fields}}; its HTML part is the text, escaped. A page's _subject wins over the subject. Without it, formsvc's email.",
  fromName: "The sender's display name on the owner notification.",
  notifyMode:
    "each: an owner notification per submission; daily: one email at 08:00 UTC listing the previous UTC day's submissions (none on a quiet day).",
} as const;
