import type { TestServer } from "./harness";

const ROLLUP = (table: string, unit: string) =>
  `SELECT dimension, ${unit} AS k, value, count FROM ${table} WHERE form_id = ? ORDER BY dimension, k, value`;

const RECOUNT = (length: number) => `
  SELECT dimension, k, value, count(*) AS count FROM (
    SELECT 'total' AS dimension, substr(created_at, 1, ${length}) AS k, '' AS value FROM inbox
    UNION ALL SELECT 'country', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.country'), ''), 'ZZ') FROM inbox
    UNION ALL SELECT 'browser', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.browser'), ''), 'unknown') FROM inbox
    UNION ALL SELECT 'device', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.device'), ''), 'unknown') FROM inbox)
  GROUP BY dimension, k, value ORDER BY dimension, k, value`;

/** What formsvc keeps about a form's inbox: its counters (unread among them), its waitlist joiners (with their submissions), its daily and monthly rollups. */
export async function keptCounts(server: TestServer, formId: string) {
  // On PostgreSQL the rows hold the counts once the deltas are folded into them.
  await server.services.foldTallies();
  const form = (
    await server.query("SELECT submission_count, unread_count, users_joined_count FROM forms WHERE id = ?", formId)
  )[0];
  return {
    submissionCount: form.submission_count as number,
    unread: form.unread_count as number,
    usersJoined: form.users_joined_count as number,
    joiners: await server.query(
      "SELECT email, submissions FROM waitlist_joiners WHERE form_id = ? ORDER BY email",
      formId,
    ),
    daily: await server.query(ROLLUP("form_daily_counts", "day"), formId),
    monthly: await server.query(ROLLUP("form_monthly_counts", "month"), formId),
  };
}

/** The same, recounted from the submissions stored now: what keptCounts must equal. */
export async function recount(server: TestServer, formId: string) {
  const waitlist = (await server.query("SELECT form_type FROM forms WHERE id = ?", formId))[0].form_type === "waitlist";
  const inbox = `WITH inbox AS (SELECT * FROM submissions WHERE form_id = ?1 AND status = 'inbox')`;
  const joiners = waitlist
    ? await server.query(
        `${inbox} SELECT email, count(*) AS submissions FROM inbox WHERE email IS NOT NULL GROUP BY email ORDER BY email`,
        formId,
      )
    : [];
  return {
    submissionCount: (await server.query(`${inbox} SELECT count(*) AS n FROM inbox`, formId))[0].n as number,
    unread: (await server.query(`${inbox} SELECT count(*) AS n FROM inbox WHERE state = 'new'`, formId))[0].n as number,
    usersJoined: waitlist
      ? joiners.length +
        ((await server.query(`${inbox} SELECT count(*) AS n FROM inbox WHERE email IS NULL`, formId))[0].n as number)
      : 0,
    joiners,
    daily: await server.query(`${inbox} ${RECOUNT(10)}`, formId),
    monthly: await server.query(`${inbox} ${RECOUNT(7)}`, formId),
  };
}
