import { portable, type Migration } from "../portable";
import * as core from "./001-core";
import * as submissions from "./002-submissions";
import * as rollups from "./003-rollups";
import * as outbox from "./004-outbox";
import * as appendFriendly from "./005-append-friendly";
import * as submissionStatus from "./006-submission-status";
import * as publicForms from "./007-public-forms";
import * as outbound from "./008-outbound";
import * as accounts from "./009-accounts";
import * as manage from "./010-manage";
import * as cluster from "./011-cluster";
import * as dropIn from "./012-drop-in";
import * as operations from "./013-operations";
import * as notifications from "./014-notifications";
import * as digests from "./015-digests";
import * as files from "./016-files";
import * as counterDeltas from "./017-counter-deltas";
import * as spamFilter from "./018-spam-filter";
import * as outboxDueByKind from "./019-outbox-due-by-kind";
import * as outboxDue from "./020-outbox-due";
import * as changeKinds from "./021-change-kinds";
import * as honeypotLessons from "./022-honeypot-lessons";
import * as confirmationEmails from "./023-confirmation-emails";
import * as formWarnings from "./024-form-warnings";
import * as ownerTimeZone from "./025-owner-time-zone";
import * as outboxKinds from "./026-outbox-kinds";
import * as accentColor from "./027-accent-color";
import * as teams from "./028-teams";
import * as secondFactors from "./029-second-factors";
import * as sessionDetails from "./030-session-details";
import * as passkeys from "./031-passkeys";
import * as inbox from "./032-inbox";
import * as oneResponse from "./034-one-response";
import * as attachments from "./035-attachments";
import * as search from "./036-search";
import * as inboxViews from "./039-inbox-views";
import * as locale from "./040-locale";
import * as partials from "./041-partials";
import * as revisions from "./042-revisions";

export type { Migration };

/**
 * Every migration, in order. Forward only: a shipped migration is never edited, only followed.
 *
 * From 24 on a migration is written once for both engines: a file exporting its `steps` (portable.ts),
 * listed here with `portable(version, name, steps)`; PostgreSQL runs their translation on upgrade and,
 * for a new database, after its baseline (postgres/schema.ts, frozen at 23). 1 to 23 are SQLite's
 * alone, their PostgreSQL twins in postgres/migrate.ts.
 */
export const migrations: Migration[] = [
  { version: 1, name: "core", up: core.up },
  { version: 2, name: "submissions", up: submissions.up },
  { version: 3, name: "rollups", up: rollups.up },
  { version: 4, name: "outbox", up: outbox.up },
  { version: 5, name: "append-friendly", up: appendFriendly.up },
  { version: 6, name: "submission-status", up: submissionStatus.up },
  { version: 7, name: "public-forms", up: publicForms.up },
  { version: 8, name: "outbound", up: outbound.up },
  { version: 9, name: "accounts", up: accounts.up },
  { version: 10, name: "manage", up: manage.up },
  { version: 11, name: "cluster", up: cluster.up },
  { version: 12, name: "drop-in", up: dropIn.up },
  { version: 13, name: "operations", up: operations.up },
  { version: 14, name: "notifications", up: notifications.up },
  { version: 15, name: "digests", up: digests.up },
  { version: 16, name: "files", up: files.up },
  { version: 17, name: "counter-deltas", up: counterDeltas.up },
  { version: 18, name: "spam-filter", up: spamFilter.up },
  { version: 19, name: "outbox-due-by-kind", up: outboxDueByKind.up },
  { version: 20, name: "outbox-due", up: outboxDue.up },
  { version: 21, name: "change-kinds", up: changeKinds.up },
  { version: 22, name: "honeypot-lessons", up: honeypotLessons.up },
  { version: 23, name: "confirmation-emails", up: confirmationEmails.up },
  portable(24, "form-warnings", formWarnings.steps),
  portable(25, "owner-time-zone", ownerTimeZone.steps),
  portable(26, "outbox-kinds", outboxKinds.steps),
  portable(27, "accent-color", accentColor.steps),
  portable(28, "teams", teams.steps),
  portable(29, "second-factors", secondFactors.steps),
  portable(30, "session-details", sessionDetails.steps),
  portable(31, "passkeys", passkeys.steps),
  portable(32, "inbox", inbox.steps),
  portable(34, "one-response", oneResponse.steps),
  portable(35, "attachments", attachments.steps),
  portable(36, "search", search.steps),
  portable(39, "inbox-views", inboxViews.steps),
  portable(40, "locale", locale.steps),
  portable(41, "partials", partials.steps),
  portable(42, "revisions", revisions.steps),
];
