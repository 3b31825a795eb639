import type { Database } from "bun:sqlite";

/**
 * A honeypot catch no longer teaches the spam filter (whoever fills the field chooses its words):
 * the lessons earlier versions recorded for catches are taken back out, their counts subtracted
 * from each owner's model (whose version moves on), and a token no lesson counts any more goes. A
 * catch the owner has moved since (an audited `submission.moved`) holds the owner's own lesson,
 * and stays. PostgreSQL's twin is postgres/migrate.ts version 22.
 */
export function up(db: Database): void {
  const caught = db
    .query<{ submission_id: string; owner_id: string; tokens: string }, []>(
      `SELECT l.submission_id, l.owner_id, l.tokens FROM spam_lessons l JOIN submissions s ON s.id = l.submission_id
       WHERE l.label = 'spam' AND EXISTS (SELECT 1 FROM json_each(s.spam, '$.reasons') WHERE value = 'honeypot')
         AND NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.object_id = l.submission_id AND a.action = 'submission.moved')`,
    )
    .all();
  const owners = new Map<string, { lessons: number; tokens: Map<number, number> }>();
  for (const lesson of caught) {
    const owner = owners.get(lesson.owner_id) ?? { lessons: 0, tokens: new Map<number, number>() };
    owners.set(lesson.owner_id, owner);
    owner.lessons += 1;
    // As spam/filter-repo.ts packs them: 32-bit little-endian integers in base64.
    const bytes = Buffer.from(lesson.tokens, "base64");
    for (const t of new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2))
      owner.tokens.set(t, (owner.tokens.get(t) ?? 0) + 1);
  }
  const subtract = db.prepare("UPDATE spam_tokens SET spam = max(spam - ?, 0) WHERE owner_id = ? AND token = ?");
  // 20 of each: when a filter files (spam/filter-repo.ts FILING_AFTER, as of this version).
  const lessen = db.prepare(
    `UPDATE spam_filters SET spam = max(spam - ?1, 0), version = version + 1,
       filing_since = CASE WHEN spam - ?1 < 20 OR ham < 20 THEN NULL ELSE filing_since END
     WHERE owner_id = ?2`,
  );
  for (const [ownerId, { lessons, tokens }] of owners) {
    for (const [token, n] of tokens) subtract.run(n, ownerId, token);
    lessen.run(lessons, ownerId);
  }
  db.run("DELETE FROM spam_tokens WHERE spam = 0 AND ham = 0");
  const forget = db.prepare("DELETE FROM spam_lessons WHERE submission_id = ?");
  for (const lesson of caught) forget.run(lesson.submission_id);
}
