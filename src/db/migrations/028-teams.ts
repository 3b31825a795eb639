import type { Step } from "../portable";

/** An owner's personal team: its id is the owner's with `tm_` for `own_`, so a migration and the code derive it alike. */
const PERSONAL = (ownerColumn: string) => `'tm_' || substr(${ownerColumn}, 5)`;

const ROLES = "('owner', 'admin', 'editor', 'viewer')";

/**
 * SQLite cannot point a foreign key elsewhere in place: a table whose rows move from an owner to a
 * team is made anew, its rows copied over under their team. PostgreSQL renames the column, and
 * swaps the constraint.
 */
function rekeyed(table: string, definition: string, columns: string, index?: { was: string; now: string }): Step {
  const indexes = index ? [index.now] : [];
  const copied = columns.replace("team_id", PERSONAL("owner_id"));
  return {
    sqlite: [
      `CREATE TABLE ${table}_new ${definition}`,
      `INSERT INTO ${table}_new (${columns}) SELECT ${copied} FROM ${table}`,
      `DROP TABLE ${table}`,
      `ALTER TABLE ${table}_new RENAME TO ${table}`,
      ...indexes,
    ],
    postgres: [
      `ALTER TABLE ${table} DROP CONSTRAINT ${table}_owner_id_fkey`,
      `ALTER TABLE ${table} RENAME COLUMN owner_id TO team_id`,
      `UPDATE ${table} SET team_id = ${PERSONAL("team_id")}`,
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams(id) ON DELETE CASCADE`,
      ...(index ? [`DROP INDEX ${index.was}`, index.now] : []),
    ],
  };
}

/**
 * Teams: a team owns forms, keys and the spam model, and people are its members, each with a role.
 * Every owner gets a personal team holding everything that was theirs, with them as its owner, so
 * each key keeps reaching what it reached. `owner_id` stays on forms and keys as who made them; the
 * audit trail gains the team and the actor's role. Invitations (a link's SHA-256, as reset links),
 * and each member's choice of a form's owner notification (no row: their role's default).
 */
export const steps: Step[] = [
  `CREATE TABLE teams (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    personal_of TEXT UNIQUE REFERENCES owners(id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL
  ) STRICT`,
  `CREATE TABLE team_members (
    team_id    TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    owner_id   TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ${ROLES}),
    created_at TEXT NOT NULL,
    PRIMARY KEY (team_id, owner_id)
  ) STRICT, WITHOUT ROWID`,
  "CREATE INDEX team_members_by_owner ON team_members (owner_id)",
  `CREATE TABLE invitations (
    id          TEXT PRIMARY KEY,
    team_id     TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ${ROLES}),
    token_hash  TEXT NOT NULL UNIQUE,
    invited_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    accepted_at TEXT
  ) STRICT`,
  "CREATE INDEX invitations_by_team ON invitations (team_id, created_at)",
  `CREATE TABLE member_notifications (
    form_id  TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    notify   INTEGER NOT NULL,
    PRIMARY KEY (form_id, owner_id)
  ) STRICT, WITHOUT ROWID`,
  `INSERT INTO teams (id, name, personal_of, created_at) SELECT ${PERSONAL("id")}, email, id, created_at FROM owners`,
  `INSERT INTO team_members (team_id, owner_id, role, created_at) SELECT ${PERSONAL("id")}, id, 'owner', created_at FROM owners`,
  // An owner whose form's notifications went to confirmed recipients that leave them out heard nothing;
  // as that team's owner they would hear by default from now on, so they are kept out by a choice.
  {
    sqlite: [
      `INSERT INTO member_notifications (form_id, owner_id, notify)
       SELECT f.id, f.owner_id, 0 FROM forms f JOIN owners o ON o.id = f.owner_id
       WHERE EXISTS (SELECT 1 FROM json_each(f.recipients) r WHERE json_extract(r.value, '$.confirmed') = 1)
         AND NOT EXISTS (SELECT 1 FROM json_each(f.recipients) r WHERE json_extract(r.value, '$.email') = o.email)`,
    ],
    postgres: [
      `INSERT INTO member_notifications (form_id, owner_id, notify)
       SELECT f.id, f.owner_id, 0 FROM forms f JOIN owners o ON o.id = f.owner_id
       WHERE EXISTS (SELECT 1 FROM json_array_elements(CAST(f.recipients AS json)) r WHERE r ->> 'confirmed' = 'true')
         AND NOT EXISTS (SELECT 1 FROM json_array_elements(CAST(f.recipients AS json)) r WHERE r ->> 'email' = o.email)`,
    ],
  },

  "ALTER TABLE forms ADD COLUMN team_id TEXT REFERENCES teams(id)",
  `UPDATE forms SET team_id = ${PERSONAL("owner_id")}`,
  "DROP INDEX forms_by_owner",
  "CREATE INDEX forms_by_team ON forms (team_id, created_at DESC, id DESC)",

  "ALTER TABLE api_keys ADD COLUMN team_id TEXT REFERENCES teams(id) ON DELETE CASCADE",
  "ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'editor', 'viewer'))",
  `UPDATE api_keys SET team_id = ${PERSONAL("owner_id")}`,
  "CREATE INDEX api_keys_by_team ON api_keys (team_id, created_at)",

  "ALTER TABLE audit_events ADD COLUMN team_id TEXT",
  "ALTER TABLE audit_events ADD COLUMN actor_role TEXT",
  `UPDATE audit_events SET team_id = ${PERSONAL("owner_id")}`,
  "CREATE INDEX audit_events_by_team ON audit_events (team_id, id)",

  "ALTER TABLE files RENAME COLUMN owner_id TO team_id",
  `UPDATE files SET team_id = ${PERSONAL("team_id")}`,

  rekeyed(
    "spam_filters",
    `(
    team_id      TEXT PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
    spam         INTEGER NOT NULL DEFAULT 0,
    ham          INTEGER NOT NULL DEFAULT 0,
    version      INTEGER NOT NULL DEFAULT 0,
    filing_since TEXT
  ) STRICT`,
    "team_id, spam, ham, version, filing_since",
  ),
  rekeyed(
    "spam_tokens",
    `(
    team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    token   INTEGER NOT NULL,
    spam    INTEGER NOT NULL,
    ham     INTEGER NOT NULL,
    PRIMARY KEY (team_id, token)
  ) STRICT, WITHOUT ROWID`,
    "team_id, token, spam, ham",
  ),
  rekeyed(
    "spam_lessons",
    `(
    submission_id TEXT PRIMARY KEY,
    team_id       TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    label         TEXT NOT NULL CHECK (label IN ('spam', 'ham')),
    tokens        TEXT NOT NULL,
    created_at    TEXT NOT NULL
  ) STRICT`,
    "submission_id, team_id, label, tokens, created_at",
    { was: "spam_lessons_by_owner", now: "CREATE INDEX spam_lessons_by_team ON spam_lessons (team_id)" },
  ),
  rekeyed(
    "confirmation_emails",
    `(
    team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    email   TEXT NOT NULL,
    due_at  TEXT NOT NULL
  ) STRICT`,
    "team_id, email, due_at",
    {
      was: "confirmation_emails_by_owner",
      now: "CREATE INDEX confirmation_emails_by_team ON confirmation_emails (team_id, due_at)",
    },
  ),
];
