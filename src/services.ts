import { dirname, join } from "node:path";
import { isPostgresUrl, type Config } from "./config";
import { foldDeltas } from "./db/postgres/deltas";
import type { Atomically, Sql } from "./db/sql";
import type { Store } from "./db/store";
import type { Clock } from "./lib/clock";
import { createCursorCodec } from "./lib/cursor";
import { createAnswerCache } from "./lib/answer-cache";
import { countryLookup } from "./lib/geo";
import type { Logger } from "./lib/log";
import { createAccountsRepo } from "./modules/accounts/repo";
import { createAccountsService } from "./modules/accounts/service";
import { createSecondFactorRepo } from "./modules/accounts/second-factor-repo";
import { createSecondFactorService } from "./modules/accounts/second-factor";
import { createPasskeysRepo } from "./modules/accounts/passkeys-repo";
import { createPasskeysService } from "./modules/accounts/passkeys";
import { loadSecretKey, secretBox } from "./lib/secret-box";
import { createOidc } from "./modules/accounts/oidc";
import { createAnalyticsRepo } from "./modules/analytics/repo";
import { createAnalyticsService } from "./modules/analytics/service";
import { createAuditRepo } from "./modules/audit/repo";
import { createAuditService } from "./modules/audit/service";
import { separateProcessBackup } from "./db/backup";
import { createBackups } from "./modules/backups/service";
import { createFormsRepo } from "./modules/forms/repo";
import { createFormsService } from "./modules/forms/service";
import { createKeysRepo } from "./modules/keys/repo";
import { createKeysService } from "./modules/keys/service";
import { isoTime, systemClock } from "./lib/clock";
import { openObjectStore } from "./lib/object-store";
import { assertPublicUrl } from "./lib/public-address";
import { createSigner } from "./lib/signing";
import { createConfirmationsRepo } from "./modules/confirmations/repo";
import { queueConfirmations, queueRecipientConfirmations } from "./modules/confirmations/queue";
import { createConfirmationsService } from "./modules/confirmations/service";
import { queueAutoresponses, type EditLinkOf } from "./modules/notifications/autoresponse";
import { createHttpSender } from "./modules/outbox/http-sender";
import { kindChannels } from "./modules/outbox/kinds";
import { createSmtpMailer } from "./modules/outbox/mailer";
import { queueNotifications } from "./modules/notifications/queue";
import { createDigests } from "./modules/notifications/digest";
import { createDigestRepo } from "./modules/notifications/digest-repo";
import { createMemberNotificationsRepo } from "./modules/notifications/member-repo";
import { createMemberNotifications } from "./modules/notifications/members";
import { createNotificationPreview } from "./modules/notifications/preview";
import { createNotificationAttachments } from "./modules/notifications/attachments";
import { createOutboxRepo } from "./modules/outbox/repo";
import { createPartialsService } from "./modules/dropin/partials";
import { createPartialsRepo } from "./modules/dropin/partials-repo";
import { createOutboxService } from "./modules/outbox/service";
import { webhookChannel } from "./modules/webhooks/channel";
import { queueUpdates, queueWebhooks } from "./modules/webhooks/queue";
import { createWebhooksRepo } from "./modules/webhooks/repo";
import { createWebhooksService } from "./modules/webhooks/service";
import { createOwnersRepo } from "./modules/owners/repo";
import { createOwnersService } from "./modules/owners/service";
import { createTeamsRepo } from "./modules/teams/repo";
import { createTeamsService } from "./modules/teams/service";
import { createInvitationsRepo } from "./modules/teams/invitations-repo";
import { createInvitationsService } from "./modules/teams/invitations";
import { createFilterRepo } from "./modules/spam/filter-repo";
import { createSpamRepo } from "./modules/spam/repo";
import { createSpamService } from "./modules/spam/service";
import { allowedOriginCheck } from "./modules/submissions/allowed-origin";
import { capWriter, closingCheck } from "./modules/submissions/closing";
import { fieldsCheck } from "./modules/submissions/fields-check";
import { createSubmissionLifecycle } from "./modules/submissions/lifecycle";
import { createSubmitPipeline, type SubmitStages } from "./modules/submissions/pipeline";
import { createSearchRepo } from "./modules/search/repo";
import { createSearchService } from "./modules/search/service";
import { createSubmissionsRepo, formCounters, unreadCounter, type CountedInCache } from "./modules/submissions/repo";
import { createTriage } from "./modules/submissions/triage";
import { editableUntil, editPath } from "./modules/submissions/edit-link";
import { createEdits } from "./modules/submissions/edits";
import { createRevisionsRepo } from "./modules/submissions/revisions-repo";
import { createTriageRepo } from "./modules/submissions/triage-repo";
import { createCommittedForms } from "./modules/submissions/committed-forms";
import { createSubmissionsService } from "./modules/submissions/service";
import { createSubmissionPdfs } from "./modules/submissions/pdf";
import { clamdScanner } from "./modules/files/clamd";
import { createFilesRepo } from "./modules/files/repo";
import { downloadPath } from "./modules/files/model";
import { createFilesService } from "./modules/files/service";

export interface Deps {
  store: Store;
  clock: Clock;
  config: Config;
  log: Logger;
}

// A receiver has this long to answer (headers included) before the attempt counts as failed.
const WEBHOOK_TIMEOUT_MS = 10_000;
// Finished outbox rows (and their attempts) are kept this long for `outbox list` and `webhooks deliveries`.
export const OUTBOX_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The writers of the submit pipeline over one database, each registered here on one line (its code
 * in its module); bench/seed.ts commits through the same. Checks and hooks, which need services,
 * are registered in `createServices`.
 */
export function submitStages(
  sql: Sql,
  clock: Clock = systemClock,
  counted?: CountedInCache,
  publicUrl = "",
  editLinkOf?: EditLinkOf,
): Omit<SubmitStages, "checks" | "hooks"> {
  // The batch's forms as committed: read once per transaction (lookup), asked by the counters and the queues.
  const forms = createCommittedForms(sql);
  const submissions = createSubmissionsRepo(sql);
  const outbox = createOutboxRepo(sql);
  return {
    lookup: forms.read,
    // the duplicate rule, which may file a submission as spam (so before its row); each submission with its
    // status and idempotency key; its words in the search index; the proof of work it used; its uploaded files become its; the redirect
    // targets it dropped, as its form's warnings
    rows: [
      createFilterRepo(sql).fileDuplicates,
      submissions.insertRows,
      createSearchRepo(sql).indexNew,
      createSpamRepo(sql).recordUsedChallenges,
      createFilesRepo(sql).attach,
      createFormsRepo(sql).noteWarnings,
    ],
    setStatuses: submissions.setStatuses,
    deleteRows: submissions.deleteRows,
    tallies: [createAnalyticsRepo(sql).rollups, formCounters(sql, forms, counted)], // daily and monthly rollups; the forms' counters and waitlist joiners (the hottest rows, locked last)
    limits: [capWriter(sql)], // maxSubmissions, exact: a batch that took a form past it is refused
    // What goes out for an inbox submission, as outbox rows: owner notification emails, autoresponses,
    // waitlist confirmation emails (double opt-in), webhook deliveries.
    queues: [
      queueNotifications(outbox, createMemberNotificationsRepo(sql), clock, publicUrl),
      queueAutoresponses(outbox, clock, editLinkOf),
      queueConfirmations(createConfirmationsRepo(sql), forms, outbox, clock),
      queueWebhooks(forms, outbox, clock),
    ],
    // a deleted submission's outbox rows (and their attempts), whatever their state; its spam lesson (the hashes of its words)
    purges: [outbox.deleteForSubmissions, createFilterRepo(sql).forgetLessons],
  };
}

/**
 * The submit pipeline over one database with these checks and hooks; bench/seed.ts and tests commit
 * through it without any. `counted`: the forms cache, told each commit's counters (SQLite only);
 * `publicUrl`: FORMSVC_PUBLIC_URL, which notifications link to.
 */
export const submitPipeline = (
  sql: Sql,
  clock: Clock = systemClock,
  {
    checks = [],
    hooks = [],
    counted,
    publicUrl,
    editLinkOf,
  }: Partial<Pick<SubmitStages, "checks" | "hooks">> & {
    counted?: CountedInCache;
    publicUrl?: string;
    editLinkOf?: EditLinkOf;
  } = {},
) => createSubmitPipeline(sql, { checks, ...submitStages(sql, clock, counted, publicUrl, editLinkOf), hooks });

/**
 * The composition root: every service, built once over one store. The CLI and the HTTP API share
 * them. Reads the database's secrets once (cursor and challenge keys), hence async.
 */
export async function createServices(deps: Deps) {
  const { store, clock } = deps;
  const { sql, changes } = store;
  // Writes that must commit together (a change and its audit line) run in one transaction.
  const atomically: Atomically = (fn) => sql.transaction(fn);
  const secret = await sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'cursor_secret'");
  if (!secret) throw new Error("the settings row cursor_secret is missing; the database was not migrated");
  const cursors = createCursorCodec(secret.value);
  const teamsRepo = createTeamsRepo(sql);
  const owners = createOwnersService(createOwnersRepo(sql), teamsRepo, atomically, clock);
  const audit = createAuditService(createAuditRepo(sql), clock);
  const formsRepo = createFormsRepo(sql);
  // A recipient newly listed on a form gets its confirmation email in the form's transaction, sent once that commits.
  const queueRecipients = queueRecipientConfirmations(createConfirmationsRepo(sql), createOutboxRepo(sql), clock);
  const recipientsAdded: typeof queueRecipients = async (form, emails) => {
    await queueRecipients(form, emails);
    sql.afterCommit(() => outbox.afterCommit({ queued: emails.length }));
  };
  // Turning one response per email on counts the answers the form holds, in the same transaction.
  const answersCounted = (id: string) => createSubmissionsRepo(sql).countAnswers(id);
  const forms = createFormsService(
    formsRepo,
    atomically,
    owners,
    cursors,
    clock,
    changes,
    audit,
    recipientsAdded,
    answersCounted,
  );
  const keys = createKeysService(
    createKeysRepo(sql),
    atomically,
    owners,
    clock,
    changes,
    async (id) => (await formsRepo.findFormById(id))?.teamId ?? null,
    async (id) => (await teamsRepo.findTeam(id)) !== null,
    audit,
  );
  const { config } = deps;
  const filesSecret = await sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'files_secret'");
  if (!filesSecret) throw new Error("the settings row files_secret is missing; the database was not migrated");
  // One key for what a browser brings back signed: file download links, thank-you pages' back links.
  const links = createSigner(filesSecret.value);
  const filesRepo = createFilesRepo(sql);
  const files = createFilesService({
    repo: filesRepo,
    store: openObjectStore(filesLocation(config), config),
    forms,
    clock,
    log: deps.log,
    signer: links,
    maxUploadBytes: config.maxUploadBytes,
    scanner: config.clamd ? clamdScanner(config.clamd) : null,
  });
  // Owner notifications and webhook payloads carry a signed link to each file, absolute with FORMSVC_PUBLIC_URL.
  const fileLink = files.linker(config.publicUrl);
  const outboxRepo = createOutboxRepo(sql);
  const digestRepo = createDigestRepo(sql);
  const webhooksRepo = createWebhooksRepo(sql);
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : null;
  const sender = createHttpSender({ timeoutMs: WEBHOOK_TIMEOUT_MS, allowPrivate: config.webhookAllowPrivate });
  // Every outbound message goes through this one outbox, each kind through its channel (outbox/kinds.ts).
  const outbox = createOutboxService({
    repo: outboxRepo,
    soleSender: sql.traits.soleWriter,
    channels: kindChannels({
      mailer,
      publicUrl: config.publicUrl,
      mailRetryBaseSeconds: config.mailRetryBaseSeconds,
      mailRetryHours: config.mailRetryHours,
      fileLink,
      listedSubmissions: digestRepo.listedSubmissions,
      notificationAttachments: createNotificationAttachments({
        findSubmission: (id) => createSubmissionsRepo(sql).findSubmission(id),
        findForm: formsRepo.findFormById,
        filesOf: (id) => filesRepo.listForSubmissions([id]),
        read: async (key) => (await files.store.get(key))?.stream ?? null,
      }),
      webhook: webhookChannel({ sender, repo: webhooksRepo, retryScale: config.webhookRetryScale, link: fileLink }),
    }),
    clock,
    log: deps.log,
    notReady: async () => [
      ...(mailer
        ? []
        : [
            "FORMSVC_SMTP_URL is not set: owner notifications, autoresponses, confirmation, password reset and invitation emails are queued and will be sent once it is",
          ]),
      ...(config.publicUrl || !(await formsRepo.anyDoubleOptIn())
        ? []
        : [
            "FORMSVC_PUBLIC_URL is not set: waitlist confirmation emails (double opt-in) are queued and will be sent once it is (their links start with it)",
          ]),
      ...(config.publicUrl
        ? []
        : [
            "FORMSVC_PUBLIC_URL is not set: password reset and invitation emails are queued and will be sent once it is (their links start with it)",
          ]),
    ],
  });
  // Rendered answers drawn from forms' submissions (pages, analytics), one budget for both: the
  // submissions service drops a form's after every commit that changes its submissions, and another
  // process's commit clears them all.
  const answers = createAnswerCache();
  changes.onChange(answers.clear, ["submissions", "forms"]);
  const analytics = createAnalyticsService(createAnalyticsRepo(sql), forms, clock, answers);
  const spamRepo = createSpamRepo(sql);
  const spam = createSpamService({
    repo: spamRepo,
    challengeSecret: await spamRepo.findChallengeSecret(),
    clock,
    config: deps.config,
    log: deps.log,
    forms,
    filterRepo: createFilterRepo(sql),
    changes,
    owners,
    atomically,
    audit,
  });
  const triageRepo = createTriageRepo(sql);
  const teams = createTeamsService({
    repo: teamsRepo,
    owners,
    forms,
    audit,
    atomically,
    clock,
    keys,
    // A form's files and what it taught its team's spam filter follow it to another team; its
    // submissions stay assigned only to members of that team.
    formMoving: async (form, teamId) => {
      await filesRepo.moveFormFiles(form.id, teamId);
      await triageRepo.unassignOutside(form.id, teamId);
      return await spam.filter.formMoving(form);
    },
    // A person who leaves a team is no longer the assignee of its submissions.
    memberLeaving: (teamId, ownerId) => triageRepo.unassignMember(teamId, ownerId),
  });
  const accountsRepo = createAccountsRepo(sql);
  const secondFactorRepo = createSecondFactorRepo(sql);
  const secretKey = loadSecretKey(deps.config.secretKey, secretKeyLocation(deps.config));
  const passkeys = createPasskeysService({
    repo: createPasskeysRepo(sql),
    accountsRepo,
    clock,
    publicUrl: deps.config.publicUrl,
  });
  const secondFactor = createSecondFactorService({
    repo: secondFactorRepo,
    accountsRepo,
    clock,
    box: async () => secretBox(await secretKey(secondFactorRepo.anySealed)),
    hasPasskey: passkeys.has,
  });
  const accounts = createAccountsService({
    repo: accountsRepo,
    owners,
    clock,
    sessionIdleDays: deps.config.sessionIdleDays,
    sessionMaxDays: deps.config.sessionMaxDays,
    audit,
    outbox: outboxRepo,
    sendSoon: () => outbox.afterCommit({ queued: 1 }),
    smtpConfigured: mailer !== null,
    rolesOf: async (ownerId) => new Map((await teamsRepo.rolesOf(ownerId)).map((m) => [m.team_id, m.role])),
    totpOn: secondFactorRepo.enrolled,
    recoveryCodesLeft: secondFactorRepo.recoveryCodesLeft,
    require2fa: deps.config.require2fa,
  });
  // OpenID Connect sign-in, when FORMSVC_OIDC_ISSUER (with its client) is set.
  if (config.oidcIssuer && config.oidcTeam && !config.oidcAllowedDomains.length)
    deps.log.warn(
      "FORMSVC_OIDC_TEAM without FORMSVC_OIDC_ALLOWED_DOMAINS: anyone the provider verifies joins that team",
      {
        team: config.oidcTeam,
      },
    );
  const oidc = config.oidcIssuer
    ? createOidc({
        settings: {
          issuer: config.oidcIssuer,
          clientId: config.oidcClientId,
          clientSecret: config.oidcClientSecret,
          name: config.oidcName,
          allowedDomains: config.oidcAllowedDomains,
          team: config.oidcTeam,
          role: config.oidcRole,
        },
        owners,
        accounts,
        teamExists: async (id) => (await teamsRepo.findTeam(id)) !== null,
        joinTeam: teamsRepo.joinTeam,
        challengeFor: secondFactor.challengeFor,
        signer: links,
        clock,
        log: deps.log,
      })
    : null;
  const invitations = createInvitationsService({
    repo: createInvitationsRepo(sql),
    teamFor: teams.teamFor,
    teamName: async (id) => (await teamsRepo.findTeam(id))?.name ?? id,
    insertMember: teamsRepo.insertMember,
    owners,
    accounts,
    // A passkey is a second factor too: a password taken there would be a way in around it.
    secondFactorOn: async (ownerId) => (await secondFactorRepo.enrolled(ownerId)) || (await passkeys.has(ownerId)),
    audit,
    outbox: outboxRepo,
    sendSoon: () => outbox.afterCommit({ queued: 1 }),
    atomically,
    clock,
  });

  const search = createSearchService({ repo: createSearchRepo(sql), sql, forms, cursors });
  // The submit path, stage by stage (modules/submissions/pipeline.ts): one object for submits, moves and deletions.
  // SQLite: a commit's counters go into the cached forms as it commits (nothing reads in between), so
  // the forms stay cached; PostgreSQL drops them after each commit, as other connections read meanwhile.
  const countsInCache = sql.traits.soleWriter;
  const pipeline = submitPipeline(sql, clock, {
    // Closing before the challenge (a closed form costs no verification); the field rules last, on
    // the data to be stored, so a honeypot catch is answered as the same fields from a person would be.
    // The spam filter last: it scores what is stored, and a refused submission costs it nothing.
    checks: [
      allowedOriginCheck,
      closingCheck(clock),
      spam.checks.challenge,
      spam.checks.honeypot,
      files.check,
      fieldsCheck,
      spam.checks.filter,
    ],
    // the outbox sends what a commit queued; an erasure's owners' models reload; a form given a warning is read
    // again; the search index takes new submissions in
    hooks: [outbox.afterCommit, spam.filter.afterCommit, forms.warned, search.afterCommit],
    ...(countsInCache ? { counted: forms.counted } : {}),
    publicUrl: config.publicUrl,
    // An autoresponse carries the edit link (editableDays), absolute: without FORMSVC_PUBLIC_URL, none.
    editLinkOf: (s) => {
      const until = config.publicUrl ? editableUntil(s.form, s.createdAt) : null;
      return until === null
        ? null
        : { url: config.publicUrl.replace(/\/$/, "") + editPath(links, s.form.id, s.id, until), until };
    },
  });
  const submissionsRepo = createSubmissionsRepo(sql);
  const revisionsRepo = createRevisionsRepo(sql);
  const submissions = createSubmissionsService({
    repo: submissionsRepo,
    forms,
    cursors,
    clock,
    changes,
    answers,
    countryOf: countryLookup(),
    pipeline,
    audit,
    teach: spam.filter.teach, // every spam / not-spam mark teaches the owner's filter
    formsCounted: countsInCache,
  });
  // A submission's PDF, its time in its reader's zone.
  const pdfs = createSubmissionPdfs({
    submissionFor: submissions.submissionFor,
    zoneOf: async (ownerId) => (await accountsRepo.findCredentialsById(ownerId))?.timeZone ?? null,
  });
  const webhooks = createWebhooksService({
    repo: webhooksRepo,
    outbox: outboxRepo,
    forms,
    clock,
    checkUrl: config.webhookAllowPrivate ? async () => {} : (url) => assertPublicUrl(url),
    sendOnce: outbox.sendOnce,
  });
  const confirmationsRepo = createConfirmationsRepo(sql);
  const confirmations = createConfirmationsService({ repo: confirmationsRepo, forms, clock });
  /** Closes the transports' connections (after the outbox has stopped). */
  const close = () => {
    mailer?.close();
    sender.close();
  };
  const memberNotificationsRepo = createMemberNotificationsRepo(sql);
  const digests = createDigests({
    repo: digestRepo,
    outbox: outboxRepo,
    members: memberNotificationsRepo,
    dailyForms: formsRepo.listDailyDigestForms,
    atomically,
    clock,
    publicUrl: config.publicUrl,
    sendSoon: (queued) => outbox.afterCommit({ queued }),
  });
  // The dashboard's preview renders the latest inbox submission with the sender's own renderNotification.
  const notifications = createNotificationPreview({
    formFor: forms.formFor,
    latestSubmission: async (formId) =>
      (await submissionsRepo.listSubmissionsByForm(formId, "inbox", null, 1))[0] ?? null,
    clock,
    link: fileLink,
  });
  // Each member's choice of a form's owner notification, which the queues above read.
  const memberNotifications = createMemberNotifications({ repo: memberNotificationsRepo, formFor: forms.formFor });
  // Save and resume: what visitors typed halfway, apart from submissions (dropin/partials.ts).
  const partialsRepo = createPartialsRepo(sql);
  const partials = createPartialsService({
    repo: partialsRepo,
    forms,
    outbox: outboxRepo,
    sendSoon: () => outbox.afterCommit({ queued: 1 }),
    atomically,
    clock,
  });
  const lifecycle = createSubmissionLifecycle({
    repo: submissionsRepo,
    forms,
    submissions,
    pipeline,
    audit,
    clock,
    shredder: store.shredder,
    confirmations: confirmationsRepo,
    outbox: outboxRepo,
    partials: partialsRepo,
    // A deleted submission's files go from the store once the deletion has committed.
    afterDelete: files.removeUnattached,
    // What else a person's export shows about their submissions, one entry per store.
    related: {
      // Their files: what each is, and where the owner downloads it.
      files: async (ids) =>
        (await files.listForSubmissions(ids)).map((f) => ({
          id: f.id,
          submissionId: f.submission_id,
          formId: f.form_id,
          field: f.field,
          name: f.name,
          type: f.type,
          size: f.size,
          sha256: f.sha256,
          storedAt: f.created_at,
          path: downloadPath(f.form_id!, f.submission_id!, f.id),
        })),
      // What their submissions held before each change they made (editableDays).
      revisions: async (ids) =>
        (await revisionsRepo.listForSubmissions(ids)).map((r) => ({
          submissionId: r.submissionId,
          revision: r.revision,
          data: JSON.parse(r.data) as unknown,
          createdAt: r.createdAt,
        })),
      notifications: async (ids) =>
        (await outboxRepo.listForSubmissions(ids)).map((n) => ({
          id: n.id,
          submissionId: n.submission_id,
          formId: n.form_id,
          status: n.status,
          queuedAt: n.queued_at,
          sentAt: n.sent_at,
        })),
    },
  });
  // The inbox's work on submissions: state, assignee, tags, notes, bulk actions.
  const triage = createTriage({
    repo: submissionsRepo,
    triage: triageRepo,
    forms,
    atomically,
    audit,
    clock,
    members: teamsRepo.members,
    countUnread: unreadCounter(sql),
    webhooks: (formId) => webhooksRepo.listWebhooks(formId),
    queueUpdates: queueUpdates(outboxRepo, clock),
    sendSoon: (queued) => outbox.afterCommit({ queued }),
    reindex: search.reindex,
    forget: submissions.forget,
    deleteAll: lifecycle.deleteSubmissions,
    moveAll: submissions.moveSubmissions,
  });
  // A submitter's changes to their answers through the signed link (editableDays), kept as revisions.
  const edits = createEdits({
    repo: submissionsRepo,
    revisions: revisionsRepo,
    lock: triageRepo.lockSubmissions,
    submissions,
    atomically,
    clock,
    signer: links,
    // As a post is checked, but for what a first post already passed: closing, the challenge, the spam filter's score.
    checks: [allowedOriginCheck, spam.checks.honeypot, files.check, fieldsCheck],
    attach: filesRepo.attach,
    reindex: search.reindex,
    notify: queueNotifications(outboxRepo, memberNotificationsRepo, clock, config.publicUrl),
    webhooks: (formId) => webhooksRepo.listWebhooks(formId),
    queueUpdates: queueUpdates(outboxRepo, clock),
    sendSoon: (queued) => outbox.afterCommit({ queued }),
    outbox: outboxRepo,
  });
  const backups = createBackups({
    fileSnapshots: sql.traits.fileSnapshots,
    dbPath: config.db,
    snapshot: separateProcessBackup(config.db),
    objects: openObjectStore(backupLocation(config), config),
    files: files.store,
    keep: config.backupKeep,
    schedule: config.backupSchedule,
    clock,
    log: deps.log,
    alert: async (message) => {
      const queued = await outboxRepo.queueOwnerAlert(
        "backup_alert",
        "formsvc: a scheduled backup failed",
        message,
        isoTime(clock.now()),
      );
      if (queued) outbox.afterCommit({ queued });
    },
  });
  return {
    owners,
    accounts,
    secondFactor,
    passkeys,
    oidc,
    invitations,
    backups,
    keys,
    forms,
    teams,
    submissions,
    search,
    pdfs,
    triage,
    edits,
    files,
    /** Signs what a browser brings back: file download links, thank-you pages' back links. */
    links,
    lifecycle,
    partials,
    analytics,
    outbox,
    webhooks,
    confirmations,
    digests,
    notifications,
    memberNotifications,
    spam,
    audit,
    /** Folds PostgreSQL's counter and rollup deltas into their rows (db/postgres/deltas.ts); nothing on SQLite. Resolves with the forms folded. */
    foldTallies: (): Promise<number> => (sql.traits.tallyDeltas ? foldDeltas(sql) : Promise.resolve(0)),
    /** The services' clock (pinned in tests): what the pages for people read a form's closing time against. */
    clock,
    close,
  };
}

/** Where uploaded files are kept: FORMSVC_FILES, else `files/` beside the SQLite database (on PostgreSQL ./data/files). */
export const filesLocation = (config: Pick<Config, "files" | "db">) =>
  config.files || (isPostgresUrl(config.db) ? "./data/files" : join(dirname(config.db), "files"));

/** The key TOTP secrets are sealed under, when FORMSVC_SECRET_KEY is unset: `formsvc.key` beside the SQLite database (on PostgreSQL ./data/formsvc.key). */
export const secretKeyLocation = (config: Pick<Config, "db">) =>
  isPostgresUrl(config.db) ? "./data/formsvc.key" : join(dirname(config.db), "formsvc.key");

/** Where backups go: FORMSVC_BACKUP_TO, else `backups/` beside the SQLite database. */
export const backupLocation = (config: Pick<Config, "backupTo" | "db">) =>
  config.backupTo || join(dirname(config.db), "backups");

export type Services = Awaited<ReturnType<typeof createServices>>;
